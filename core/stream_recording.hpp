#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "duration.hpp"
#include "log_histogram.hpp"

namespace stampede {

// A fleet's streamed answers (loadgen run --stream, docs/LLM.md), as its clients read them:
// the results' `streams` section (docs/RESULTS.md). Merged by adding, as the rest of a
// Recording is, so the shards of a run in several processes add up.
struct StreamRecording {
  LogHistogram first_token_ns;  // wall: the request written -> the first content token read
  LogHistogram duration_ns;     // wall: the request written -> the stream's end (completed ones)
  std::int64_t tokens = 0;      // content tokens read, in every stream, broken ones too
  std::int64_t completed = 0;   // streams that reached the dialect's end
  std::int64_t broken = 0;      // streams that ended before it: an error event, or cut
  // Streams opening and closing per second of scenario time (labels kOpened, kClosed): the
  // streams open at the end of a bin are the running sum, as the items in backoff are. Kept
  // as transitions, not levels, so that shards add up.
  BinnedCounts open_transitions{kNsPerSec, 2};
  static constexpr std::size_t kOpened = 0;
  static constexpr std::size_t kClosed = 1;

  // Whether any stream was read: a run that streamed none has no section.
  bool any() const { return completed > 0 || broken > 0; }
  // One stream, its times from the request's write: its first token's (none: none came), its
  // end's when it completed (none: it broke or was cut off).
  void record(std::optional<std::int64_t> first_token_ns, std::optional<std::int64_t> end_ns,
              std::int64_t tokens_read);
  // A stream open from start_ns to end_ns (scenario time), completed or broken.
  void record_open(std::int64_t start_ns, std::int64_t end_ns);
  void merge(const StreamRecording& other);
};

// The most streams open at the end of any bin, and that bin's start (scenario s).
struct OpenStreamsPeak {
  std::int64_t open = 0;
  double second = 0;
};
OpenStreamsPeak open_streams_peak(const BinnedCounts& transitions);

nlohmann::json to_json(const StreamRecording& s);
// The section as to_json writes it; throws on a malformed one (results_from_json says so).
StreamRecording stream_recording_from_json(const nlohmann::json& j);

}  // namespace stampede
