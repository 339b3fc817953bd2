#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"

namespace stampede {

// A tenant goes verbatim into a request header: at most this long (an API key is a few dozen
// bytes; a field this long is not one).
inline constexpr std::size_t kMaxTraceTenant = 1024;

// A line's method and path, read only when asked for (exec hands them to its program): kept
// apart from its record, so a record without them moves as one null pointer, not two strings.
struct TraceRequest {
  std::string method;
  std::string path;
};

// One arrival of a trace as its line gives it.
struct TraceRecord {
  // Since the epoch as the line spells it (CSV's bare seconds: since its zero); the reader
  // makes it relative to the trace's first record.
  std::int64_t time_ns = 0;
  bool second_resolution = false;  // the line's time has no fraction: somewhere in its second
  std::int64_t line = 0;
  std::size_t column = 0;             // where its time starts, from 1
  std::optional<std::string> tenant;  // checked: fit for a header line (kMaxTraceTenant)
  std::optional<std::int64_t> tokens;
  // Shared by the copies --scale makes of a line, and never changed once the line is read.
  std::shared_ptr<TraceRequest> request;

  std::string_view method() const { return request ? request->method : std::string_view(); }
  std::string_view path() const { return request ? request->path : std::string_view(); }
  // The request to fill in, made on first use.
  TraceRequest& fill_request() {
    if (!request) request = std::make_shared<TraceRequest>();
    return *request;
  }
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
  // Records with their times, tokens and tenants only (every line still checked whole): what
  // counting a trace's arrivals, or playing them as items, needs, without a method or path.
  void times_only() { fields_ = false; }
  // CSV: the first line is its header, read here rather than as a record.
  bool header_pending() const { return kind_ == Kind::kCsv && csv_.columns == 0; }
  std::optional<std::string> read_header(std::string_view line, std::int64_t n);
  // What a record takes from a field the user names: its tenant (--trace-tenant) or its
  // tokens (--trace-tokens).
  enum class Field { kTenant, kTokens };
  // Which field is each record's tenant or tokens, once the format is known (a CSV's header
  // read): a CSV column or a log format's variable; "" the format's own (a CSV's tenant or
  // tokens column, none for the others); "none" none. The error names the field and the ones
  // the format has.
  std::optional<std::string> choose(Field which, std::string_view field);
  // Appends the records of line n (none for a blank line, or HAR's lines without a time);
  // the error names the line and column and says how to fix it.
  std::optional<std::string> read(std::string_view line, std::int64_t n,
                                  std::vector<TraceRecord>& out) const;

 private:
  struct Piece {
    bool variable = false;
    std::string text;  // the literal, or the variable's name without '$'
    int time = -1;     // a time variable: which (the .cpp's table's index), once, not a line
  };
  // A CSV column's meaning, in the header's names' order: time, tenant, tokens, method, path.
  static constexpr std::size_t kCsvTimeRole = 0, kCsvTenantRole = 1, kCsvTokensRole = 2,
                               kCsvMethodRole = 3, kCsvPathRole = 4, kCsvRoles = 5;
  struct CsvColumns {
    std::size_t columns = 0;        // 0: the header is still to be read
    std::vector<std::size_t> role;  // by column (kCsvRoles: none); short of the columns
    std::array<bool, kCsvRoles> has{};
    std::size_t read_columns = 0;    // the columns up to the last of time, tokens and tenant
    std::vector<std::string> names;  // the header's, for --trace-tenant
  };

  static Parsed<TraceFormat> log_format(std::string_view format);
  // has and read_columns from role, after the header or --trace-tenant set the roles.
  void settle_csv_roles();
  std::optional<std::string> read_csv(std::string_view line, std::int64_t n,
                                      std::vector<TraceRecord>& out) const;
  std::optional<std::string> read_log(std::string_view line, std::int64_t n,
                                      std::vector<TraceRecord>& out) const;
  std::optional<std::string> read_scan(std::string_view line, std::int64_t n,
                                       std::vector<TraceRecord>& out) const;
  static std::optional<std::string> read_har(std::string_view line, std::int64_t n,
                                             std::vector<TraceRecord>& out);

  Kind kind_ = Kind::kAuto;
  std::vector<Piece> pieces_;                // kLog
  std::optional<std::size_t> tenant_piece_;  // kLog: the variable that is the tenant
  std::optional<std::size_t> tokens_piece_;  // kLog: the variable that is the tokens
  bool scan_msec_ = false;                   // kScan: $msec, else $time_iso8601
  CsvColumns csv_;
  bool fields_ = true;  // method and path
};

}  // namespace stampede
