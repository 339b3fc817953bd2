#include "trace_recording.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "trace_fidelity.hpp"

namespace stampede {
namespace {

void record_gap(LogHistogram& gaps, std::optional<std::int64_t>& last, std::int64_t at_ns) {
  if (last) gaps.record(at_ns - *last);
  last = at_ns;
}

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / kNsPerMs;
}

}  // namespace

void TraceRecording::record_arrival(std::int64_t at_ns) {
  arrivals.add(at_ns, 0);
  record_gap(arrival_gaps_ns, last_arrival_ns_, at_ns);
}

void TraceRecording::record_first_send(std::int64_t at_ns) {
  record_gap(first_send_gaps_ns, last_first_send_ns_, at_ns);
}

void TraceRecording::merge(const TraceRecording& o) {
  arrivals.merge(o.arrivals);
  arrival_gaps_ns.merge(o.arrival_gaps_ns);
  first_send_gaps_ns.merge(o.first_send_gaps_ns);
  lag_ns.merge(o.lag_ns);
}

TraceFidelity trace_fidelity(const TraceRecording& t, const BinnedCounts& client_by_send) {
  return {ms(t.lag_ns.quantile(0.5)), ms(t.lag_ns.quantile(0.99)), ms(t.lag_ns.max()),
          largest_bin_difference(t.arrivals, 0, client_by_send, 0),
          ks_distance(t.arrival_gaps_ns, t.first_send_gaps_ns)};
}

nlohmann::json to_json(const TraceRecording& t, const BinnedCounts& client_by_send) {
  const auto f = trace_fidelity(t, client_by_send);
  return {{"lag_p50_ms", f.lag_p50_ms},
          {"lag_p99_ms", f.lag_p99_ms},
          {"lag_max_ms", f.lag_max_ms},
          {"max_second_difference", f.most.count},
          {"max_second_difference_at_s", f.most.at_s},
          {"gaps_ks", f.gaps_ks},
          {"arrivals", t.arrivals.to_json({"arrivals"})},
          {"arrival_gaps_ns", t.arrival_gaps_ns.to_json()},
          {"first_send_gaps_ns", t.first_send_gaps_ns.to_json()},
          {"first_send_lag_ns", t.lag_ns.to_json()}};
}

TraceRecording trace_recording_from_json(const nlohmann::json& j,
                                         const BinnedCounts& client_by_send) {
  TraceRecording t;
  t.arrivals = BinnedCounts::from_json(j.at("arrivals"), {"arrivals"});
  if (t.arrivals.bin_ns() != client_by_send.bin_ns())
    throw std::invalid_argument("trace.arrivals needs the bin_ms of client_sends_by_send");
  t.arrival_gaps_ns = LogHistogram::from_json(j.at("arrival_gaps_ns"));
  t.first_send_gaps_ns = LogHistogram::from_json(j.at("first_send_gaps_ns"));
  t.lag_ns = LogHistogram::from_json(j.at("first_send_lag_ns"));
  return t;
}

}  // namespace stampede
