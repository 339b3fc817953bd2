#include "stream_recording.hpp"

#include <algorithm>

#include "duration.hpp"
#include "json_int.hpp"
#include "saturating.hpp"

namespace stampede {

void StreamRecording::merge(const StreamRecording& o) {
  first_token_ns.merge(o.first_token_ns);
  duration_ns.merge(o.duration_ns);
  tokens = saturating_add(tokens, o.tokens);
  completed = saturating_add(completed, o.completed);
  broken = saturating_add(broken, o.broken);
}

void StreamRecording::record(std::optional<std::int64_t> first_token_at,
                             std::optional<std::int64_t> end_at, std::int64_t tokens_read) {
  tokens = saturating_add(tokens, tokens_read);
  if (first_token_at) first_token_ns.record(std::max<std::int64_t>(0, *first_token_at));
  if (!end_at) {
    ++broken;
    return;
  }
  ++completed;
  duration_ns.record(std::max<std::int64_t>(0, *end_at));
}

namespace {

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / kNsPerMs;
}

}  // namespace

// The quantiles for a reader, the histograms they come from for a merge.
nlohmann::json to_json(const StreamRecording& s) {
  return {{"completed", s.completed},
          {"broken", s.broken},
          {"tokens_received", s.tokens},
          {"first_token_p50_ms", ms(s.first_token_ns.quantile(0.50))},
          {"first_token_p99_ms", ms(s.first_token_ns.quantile(0.99))},
          {"duration_p50_ms", ms(s.duration_ns.quantile(0.50))},
          {"duration_p99_ms", ms(s.duration_ns.quantile(0.99))},
          {"first_token_ns", s.first_token_ns.to_json()},
          {"duration_ns", s.duration_ns.to_json()}};
}

StreamRecording stream_recording_from_json(const nlohmann::json& j) {
  StreamRecording s;
  s.completed = json_int64(j.at("completed"));
  s.broken = json_int64(j.at("broken"));
  s.tokens = json_int64(j.at("tokens_received"));
  s.first_token_ns = LogHistogram::from_json(j.at("first_token_ns"));
  s.duration_ns = LogHistogram::from_json(j.at("duration_ns"));
  return s;
}

}  // namespace stampede
