#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "duration.hpp"
#include "policy/time_heap.hpp"
#include "policy/trace_format.hpp"
#include "policy/trace_lines.hpp"

namespace stampede {

struct TraceReadOptions {
  TraceFormat format;                   // Kind::kAuto: detected from the first line
  std::int64_t reorder_ns = kNsPerSec;  // TraceSettings::reorder_ns
  std::string tenant{};                 // TraceSettings::tenant
  std::string tokens{};                 // TraceSettings::tokens
  bool times_only = false;              // TraceFormat::times_only
};

// A trace's records in time order, each time relative to the first record's, read line by line
// as they are asked for. Memory: one line, and the records of one reorder window.
class TraceReader {
 public:
  TraceReader(std::istream& in, TraceReadOptions options);

  // The next record; none at the end or on the first error (error() names its line and column,
  // and an empty trace is one).
  std::optional<TraceRecord> next();
  const std::string& error() const { return error_; }
  // Instead of next(): reads the trace to its end checking every line as next() would, but
  // unsorted: how many records it has, or none on the first error.
  std::optional<std::int64_t> count();

 private:
  void no_records();
  bool read_line();
  bool choose_fields();
  std::optional<std::string> take(std::vector<TraceRecord>& records);
  std::optional<TraceRecord> pop();
  bool settled() const;

  TraceLines lines_;
  TraceReadOptions options_;
  bool detected_ = false;
  bool done_ = false;
  std::vector<TraceRecord> parsed_;  // one line's, reused
  TimeHeap<TraceRecord> pending_;
  bool counting_ = false;
  std::int64_t records_ = 0;    // read so far
  std::int64_t latest_ns_ = 0;  // the latest time read so far, and its line
  std::int64_t latest_line_ = 0;
  std::optional<std::int64_t> first_ns_;
  std::string error_;
};

}  // namespace stampede
