#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "binned_counts.hpp"
#include "duration.hpp"
#include "log_histogram.hpp"
#include "trace_fidelity.hpp"

namespace stampede {

// What a trace run records of its playback, for the results' trace section (docs/RESULTS.md):
// fixed in size whatever the trace's length, and merged by adding, as the rest of a Recording.
// Each stream of arrivals (a shard's, a live loop's) records its own: a gap is between two
// arrivals of one stream, or two first sends of one stream, so that merged streams set like
// against like.
class TraceRecording {
 public:
  BinnedCounts arrivals{kNsPerSec, 1};  // the trace's arrivals per second, as played
  LogHistogram arrival_gaps_ns;         // between consecutive arrivals of a stream
  LogHistogram first_send_gaps_ns;      // between consecutive first sends of a stream
  LogHistogram lag_ns;                  // each first send's time past its arrival's

  // An arrival of the stream, taken or dropped, at its time in the played trace.
  void record_arrival(std::int64_t at_ns);
  // An item's first send, as it goes: scenario time, in the order the stream sends them.
  void record_first_send(std::int64_t at_ns);
  // How late an item's first send went after its arrival's time (scenario ns).
  void record_lag(std::int64_t due_ns, std::int64_t sent_ns) { lag_ns.record(sent_ns - due_ns); }
  void merge(const TraceRecording& other);

 private:
  // The stream's last arrival and first send: a merged recording's mean nothing, and are
  // neither merged nor written.
  std::optional<std::int64_t> last_arrival_ns_;
  std::optional<std::int64_t> last_first_send_ns_;
};

// The figures of a replay's honesty, from what was recorded and the clients' first sends per
// second (client_sends_by_send's label 1).
struct TraceFidelity {
  double lag_p50_ms = 0;
  double lag_p99_ms = 0;
  double lag_max_ms = 0;
  BinDifference most;  // first sends against the trace's arrivals, per second
  double gaps_ks = 0;  // the trace's inter-arrival times against the first sends'
};
TraceFidelity trace_fidelity(const TraceRecording& trace, const BinnedCounts& client_by_send);

// The trace section: what was recorded, and the figures computed from it and the clients'
// first sends per second (client_sends_by_send's label 1).
nlohmann::json to_json(const TraceRecording& trace, const BinnedCounts& client_by_send);
// Throws on a malformed section; the arrivals must be binned as the first sends are.
TraceRecording trace_recording_from_json(const nlohmann::json& j,
                                         const BinnedCounts& client_by_send);

}  // namespace stampede
