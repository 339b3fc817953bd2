#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace stampede {

// The headline numbers of a run; their names are the metric names --assert accepts.
struct Summary {
  double items = 0;
  double delivered = 0;
  double dead_lettered = 0;
  double unfinished = 0;
  double requests = 0;
  double peak_second = 0;    // start of the busiest second after the last outage, scenario s
  double peak_arrivals = 0;  // arrivals at the provider in that second
  double peak_ratio = 0;     // peak_arrivals / allowance per second
  double drain_s = 0;        // when the last item got through
  double amplification = 0;  // requests / items
  double p50_s = 0;          // item latency from its intended start, backoff included
  double p99_s = 0;
  double attempts_p99 = 0;  // sends per item
  double lateness_p50_ms = 0;
  double lateness_p99_ms = 0;
  double writes = 0;  // occ mode: conditional writes attempted
  // What a staging gate asks of a run (docs/RESULTS.md has the exact definitions).
  double p95_s = 0;
  double delivered_ratio = 0;    // delivered / items
  double dead_letter_ratio = 0;  // dead_lettered / items
  double retries = 0;            // requests that were not an item's first send
  double retry_share = 0;        // retries / requests
  double status_ratio_2xx = 0;   // of the requests, the share the clients saw answered so
  double status_ratio_4xx = 0;   // 429 included
  double status_ratio_5xx = 0;   // 503 and 529 included
  double status_ratio_429 = 0;
  double status_ratio_503 = 0;
  double status_ratio_529 = 0;
  double status_ratio_connect_error = 0;
  double status_ratio_timeout = 0;
  double status_ratio_bad_response = 0;  // answered, but not in HTTP/1.x
  double peak_retry_second = 0;          // the busiest second among retries, past the first wave
  double peak_retries = 0;
  double peak_retry_ratio = 0;   // peak_retries / allowance per second
  double provider_requests = 0;  // arrivals the provider itself recorded
  // The provider's per-item record (its results document, GET /admin/results).
  double hint_share = 0;  // of the retries after a Retry-After, the share within 100 ms of it
  double lockstep = 0;    // the share of retries in the busiest tenth of 100 ms bins
  // The open model (steady, stages): arrivals that found every client busy.
  double dropped = 0;
  double dropped_ratio = 0;  // dropped / items
  // Live runs: the share of requests in another second than the simulation's (sim_divergence.hpp).
  double sim_divergence = 0;
};

// What a metric needs to mean anything; asserting on it without that is a usage error.
enum class MetricNeed : std::uint8_t {
  kNothing,
  kAllowance,        // a declared allowance (or capacity) to be measured against
  kProviderView,     // the provider's own record (--provider-admin against a fakeprovider)
  kProviderResults,  // its per-item record: its results document (exec, GET /admin/results)
  kSimComparison,    // a live run set against its own simulation (run, merge)
  kClientView,       // loadgen's own clients' record of each send (run, simulate): the answers
                     // that never came and the clients' lateness, which no provider sees
  kItemSends,        // each item's sends: the clients' record, or the provider's per-item one
};

// What a run must have done for a metric to say anything (core/gate.cpp's rule): a retry
// metric reads the same on a fleet that never retried whatever its policy, and a latency
// over no delivered item reads 0.
enum class MetricExercise : std::uint8_t {
  kAlways,
  kRetries,   // every send numbered (which were retries is known), and one retry at least
  kDelivery,  // a delivered item
};

struct MetricField {
  std::string_view name;
  double Summary::*field;
  std::string_view meaning;
  MetricNeed needs = MetricNeed::kNothing;
  MetricExercise exercise = MetricExercise::kAlways;
};

inline constexpr std::array<MetricField, 39> kMetrics{{
    {"items", &Summary::items, "items the workload created"},
    {"delivered", &Summary::delivered, "items that got a 2xx"},
    {"dead_lettered", &Summary::dead_lettered, "items given up on"},
    {"unfinished", &Summary::unfinished, "items neither delivered nor dead-lettered at the end"},
    {"requests", &Summary::requests, "requests sent in all"},
    {"peak_second", &Summary::peak_second, "start of the busiest second after the last outage (s)"},
    {"peak_arrivals", &Summary::peak_arrivals, "arrivals at the provider in the busiest second"},
    {"peak_ratio", &Summary::peak_ratio, "peak_arrivals / allowance per second",
     MetricNeed::kAllowance},
    {"drain_s", &Summary::drain_s, "when the last item got through (s)", MetricNeed::kNothing,
     MetricExercise::kDelivery},
    {"amplification", &Summary::amplification, "requests / items"},
    {"p50_s", &Summary::p50_s, "median item latency, backoff included (s)", MetricNeed::kNothing,
     MetricExercise::kDelivery},
    {"p99_s", &Summary::p99_s, "p99 item latency, backoff included (s)", MetricNeed::kNothing,
     MetricExercise::kDelivery},
    {"attempts_p99", &Summary::attempts_p99, "p99 of sends per item", MetricNeed::kItemSends},
    {"lateness_p50_ms", &Summary::lateness_p50_ms, "median wake lateness of the harness (ms)",
     MetricNeed::kClientView},
    {"lateness_p99_ms", &Summary::lateness_p99_ms, "p99 wake lateness of the harness (ms)",
     MetricNeed::kClientView},
    {"writes", &Summary::writes, "occ mode: conditional writes (PUT with If-Match) attempted"},
    {"p95_s", &Summary::p95_s, "p95 item latency, backoff included (s)", MetricNeed::kNothing,
     MetricExercise::kDelivery},
    {"delivered_ratio", &Summary::delivered_ratio, "delivered / items"},
    {"dead_letter_ratio", &Summary::dead_letter_ratio, "dead_lettered / items"},
    {"retries", &Summary::retries, "requests that were not an item's first send",
     MetricNeed::kNothing, MetricExercise::kRetries},
    {"retry_share", &Summary::retry_share, "retries / requests", MetricNeed::kNothing,
     MetricExercise::kRetries},
    {"status_ratio_2xx", &Summary::status_ratio_2xx, "share of requests answered 2xx"},
    {"status_ratio_4xx", &Summary::status_ratio_4xx,
     "share of requests answered 4xx, 429 included"},
    {"status_ratio_5xx", &Summary::status_ratio_5xx,
     "share of requests answered 5xx, 503 and 529 included"},
    {"status_ratio_429", &Summary::status_ratio_429, "share of requests answered 429",
     MetricNeed::kNothing, MetricExercise::kRetries},
    {"status_ratio_503", &Summary::status_ratio_503, "share of requests answered 503",
     MetricNeed::kNothing, MetricExercise::kRetries},
    {"status_ratio_529", &Summary::status_ratio_529, "share of requests answered 529",
     MetricNeed::kNothing, MetricExercise::kRetries},
    {"status_ratio_connect_error", &Summary::status_ratio_connect_error,
     "share of requests refused or reset before an answer", MetricNeed::kClientView},
    {"status_ratio_timeout", &Summary::status_ratio_timeout,
     "share of requests with no answer within the timeout", MetricNeed::kClientView},
    {"status_ratio_bad_response", &Summary::status_ratio_bad_response,
     "share of requests answered with something that is not HTTP/1.x", MetricNeed::kClientView},
    {"peak_retry_second", &Summary::peak_retry_second,
     "start of the busiest second among retries, past the first second and the last outage (s)",
     MetricNeed::kNothing, MetricExercise::kRetries},
    {"peak_retries", &Summary::peak_retries, "retries in that second", MetricNeed::kNothing,
     MetricExercise::kRetries},
    {"peak_retry_ratio", &Summary::peak_retry_ratio, "peak_retries / allowance per second",
     MetricNeed::kAllowance, MetricExercise::kRetries},
    {"provider_requests", &Summary::provider_requests, "arrivals the provider itself recorded",
     MetricNeed::kProviderView},
    {"hint_share", &Summary::hint_share,
     "of the retries after a Retry-After, the share that came within 100 ms of it (1: the "
     "fleet sleeps exactly the hint)",
     MetricNeed::kProviderResults, MetricExercise::kRetries},
    {"lockstep", &Summary::lockstep,
     "the share of retries in the busiest tenth of 100 ms bins after the first rejection (about "
     "0.1: spread evenly; 1: in lockstep)",
     MetricNeed::kProviderResults, MetricExercise::kRetries},
    {"dropped", &Summary::dropped,
     "steady and stages: arrivals that found no free client and were not sent (k6's "
     "dropped_iterations); 0 in the other workloads"},
    {"dropped_ratio", &Summary::dropped_ratio, "dropped / items"},
    {"sim_divergence", &Summary::sim_divergence,
     "live runs: the share of requests that would have to move to another second, be added or "
     "be removed to turn the arrivals per second into the simulation's (0: the same)",
     MetricNeed::kSimComparison},
}};

std::optional<double> metric_value(const Summary& s, std::string_view name);
nlohmann::json to_json(const Summary& s);
Summary summary_from_json(const nlohmann::json& j);

}  // namespace stampede
