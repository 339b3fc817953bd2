#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"

namespace stampede {

// One arrival of a trace as its line gives it.
struct TraceRecord {
  // Since the epoch as the line spells it (CSV's bare seconds: since its zero); the reader
  // makes it relative to the trace's first record.
  std::int64_t time_ns = 0;
  bool second_resolution = false;  // the line's time has no fraction: somewhere in its second
  std::int64_t line = 0;
  std::size_t column = 0;  // where its time starts, from 1
  std::optional<std::string> tenant;
  std::optional<std::int64_t> tokens;
  std::string method;
  std::string path;
};

// How a trace's lines are read (--trace-format): CSV with a header, HAR 1.2, an access log in
// nginx's log_format syntax (combined and common are two), or a log with a $msec or
// $time_iso8601 time somewhere on its lines. Pure: a line in, records out.
class TraceFormat {
 public:
  enum class Kind { kAuto, kCsv, kHar, kLog, kScan };

  // "auto", "csv", "har", "combined", "common" or "nginx:<log_format>"; the error says which
  // are accepted.
  static Parsed<TraceFormat> parse(std::string_view spec);
  // The format of a trace whose first line (not blank) is this, and that line's number.
  static Parsed<TraceFormat> detect(std::string_view line, std::int64_t n);

  Kind kind() const { return kind_; }
  // Records with their times and tokens only (every line still checked whole): what counting
  // a trace's arrivals, or playing only their times, needs, without a string a line.
  void times_only() { fields_ = false; }
  // CSV: the first line is its header, read here rather than as a record.
  bool header_pending() const { return kind_ == Kind::kCsv && csv_.columns == 0; }
  std::optional<std::string> read_header(std::string_view line, std::int64_t n);
  // Appends the records of line n (none for a blank line, or HAR's lines without a time);
  // the error names the line and column and says how to fix it.
  std::optional<std::string> read(std::string_view line, std::int64_t n,
                                  std::vector<TraceRecord>& out) const;

 private:
  struct Piece {
    bool variable = false;
    std::string text;  // the literal, or the variable's name without '$'
  };
  // A CSV column's meaning, in the header's names' order: time, tenant, tokens, method, path.
  static constexpr std::size_t kCsvTimeRole = 0, kCsvTenantRole = 1, kCsvTokensRole = 2,
                               kCsvMethodRole = 3, kCsvPathRole = 4, kCsvRoles = 5;
  struct CsvColumns {
    std::size_t columns = 0;        // 0: the header is still to be read
    std::vector<std::size_t> role;  // by column (kCsvRoles: none); short of the columns
    std::array<bool, kCsvRoles> has{};
    std::size_t timed_columns = 0;  // the columns up to the last of time and tokens
  };

  static Parsed<TraceFormat> log_format(std::string_view format);
  std::optional<std::string> read_csv(std::string_view line, std::int64_t n,
                                      std::vector<TraceRecord>& out) const;
  std::optional<std::string> read_log(std::string_view line, std::int64_t n,
                                      std::vector<TraceRecord>& out) const;
  std::optional<std::string> read_scan(std::string_view line, std::int64_t n,
                                       std::vector<TraceRecord>& out) const;
  static std::optional<std::string> read_har(std::string_view line, std::int64_t n,
                                             std::vector<TraceRecord>& out);

  Kind kind_ = Kind::kAuto;
  std::vector<Piece> pieces_;  // kLog
  bool scan_msec_ = false;     // kScan: $msec, else $time_iso8601
  CsvColumns csv_;
  bool fields_ = true;  // tenant, method and path
};

}  // namespace stampede
