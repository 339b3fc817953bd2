#include "stream_recording.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

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
  open_transitions.merge(o.open_transitions);
}

void StreamRecording::record_open(std::int64_t start_ns, std::int64_t end_ns) {
  open_transitions.add(start_ns, kOpened);
  // An end before its start (clocks read apart) still closes what it opened, in its bin.
  open_transitions.add(std::max(start_ns, end_ns), kClosed);
}

OpenStreamsPeak open_streams_peak(const BinnedCounts& h) {
  OpenStreamsPeak peak;
  const auto levels = running_levels(h);
  for (std::size_t b = 0; b < levels.size(); ++b) {
    if (levels[b] <= peak.open) continue;
    peak.open = levels[b];
    peak.second = ns_to_s(static_cast<std::int64_t>(b) * h.bin_ns());
  }
  return peak;
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

const std::vector<std::string> kOpenLabels{"opened", "closed"};

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / kNsPerMs;
}

}  // namespace

// The quantiles and the peak for a reader, the histograms and transitions they come from for
// a merge.
nlohmann::json to_json(const StreamRecording& s) {
  nlohmann::json j = {{"completed", s.completed},
                      {"broken", s.broken},
                      {"tokens_received", s.tokens},
                      {"first_token_p50_ms", ms(s.first_token_ns.quantile(0.50))},
                      {"first_token_p99_ms", ms(s.first_token_ns.quantile(0.99))},
                      {"duration_p50_ms", ms(s.duration_ns.quantile(0.50))},
                      {"duration_p99_ms", ms(s.duration_ns.quantile(0.99))},
                      {"first_token_ns", s.first_token_ns.to_json()},
                      {"duration_ns", s.duration_ns.to_json()},
                      {"open_transitions", s.open_transitions.to_json(kOpenLabels)}};
  // No series (merged only from documents older than it): no peak, rather than a peak of 0.
  if (s.open_transitions.bins() == 0) return j;
  const auto peak = open_streams_peak(s.open_transitions);
  j["open_peak"] = peak.open;
  j["open_peak_second"] = peak.second;
  return j;
}

StreamRecording stream_recording_from_json(const nlohmann::json& j) {
  StreamRecording s;
  s.completed = json_int64(j.at("completed"));
  s.broken = json_int64(j.at("broken"));
  s.tokens = json_int64(j.at("tokens_received"));
  s.first_token_ns = LogHistogram::from_json(j.at("first_token_ns"));
  s.duration_ns = LogHistogram::from_json(j.at("duration_ns"));
  // Absent from documents written before it: no transitions. The peak is derived, not read.
  if (const auto it = j.find("open_transitions"); it != j.end()) {
    s.open_transitions = BinnedCounts::from_json(*it, kOpenLabels);
    if (s.open_transitions.bin_ns() != kNsPerSec)
      throw std::runtime_error("streams.open_transitions: bin_ms must be 1000");
  }
  return s;
}

}  // namespace stampede
