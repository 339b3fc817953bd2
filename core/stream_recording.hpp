#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

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

  // Whether any stream was read: a run that streamed none has no section.
  bool any() const { return completed > 0 || broken > 0; }
  // One stream, its times from the request's write: its first token's (none: none came), its
  // end's when it completed (none: it broke or was cut off).
  void record(std::optional<std::int64_t> first_token_ns, std::optional<std::int64_t> end_ns,
              std::int64_t tokens_read);
  void merge(const StreamRecording& other);
};

nlohmann::json to_json(const StreamRecording& s);
// The section as to_json writes it; throws on a malformed one (results_from_json says so).
StreamRecording stream_recording_from_json(const nlohmann::json& j);

}  // namespace stampede
