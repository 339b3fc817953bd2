#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "duration.hpp"

namespace stampede {

// Where a second-resolution time is sent within its second: at a seeded uniform offset (the
// default: a log's whole second is not a burst at its start) or at its start.
enum class TraceSpread { kUniform, kNone };

// How a trace is played (--speed, --scale, --scale-spread, --from, --to, --trace-spread).
struct TracePlayback {
  double speed = 1;  // K times faster
  double scale = 1;  // R < 1: each record kept with probability R; R > 1: R copies of each
  std::int64_t scale_spread_ns = kNsPerSec;  // a copy is sent up to this long after its record
  std::int64_t from_ns = 0;                  // the window of the trace played, [from, to)
  std::optional<std::int64_t> to_ns;
  TraceSpread spread = TraceSpread::kUniform;
};

// The trace workload's input (docs/TRACE.md): the file, how to read it, how to play it.
struct TraceSettings {
  std::string path;
  std::string format = "auto";  // --trace-format, checked where the formats are known
  // How far a time may go back before a later one (a log is written as requests end, not as
  // they start): within it the records are sorted, beyond it the trace is refused.
  std::int64_t reorder_ns = kNsPerSec;
  // --trace-tenant: the field whose value is an item's tenant key. Empty: the format's own
  // (a CSV's tenant column; a log has none unless asked); "none": no tenant from the trace.
  std::string tenant;
  // --trace-tokens: the field whose value is an item's tokens. Empty: the format's own (a
  // CSV's tokens column; a log has none unless asked); "none": no tokens from the trace.
  std::string tokens;
  TracePlayback playback;
};

}  // namespace stampede
