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
};

struct MetricField {
  std::string_view name;
  double Summary::*field;
  std::string_view meaning;
};

inline constexpr std::array<MetricField, 16> kMetrics{{
    {"items", &Summary::items, "items the workload created"},
    {"delivered", &Summary::delivered, "items that got a 2xx"},
    {"dead_lettered", &Summary::dead_lettered, "items given up on"},
    {"unfinished", &Summary::unfinished, "items neither delivered nor dead-lettered at the end"},
    {"requests", &Summary::requests, "requests sent in all"},
    {"peak_second", &Summary::peak_second, "start of the busiest second after the last outage (s)"},
    {"peak_arrivals", &Summary::peak_arrivals, "arrivals at the provider in the busiest second"},
    {"peak_ratio", &Summary::peak_ratio, "peak_arrivals / allowance per second"},
    {"drain_s", &Summary::drain_s, "when the last item got through (s)"},
    {"amplification", &Summary::amplification, "requests / items"},
    {"p50_s", &Summary::p50_s, "median item latency, backoff included (s)"},
    {"p99_s", &Summary::p99_s, "p99 item latency, backoff included (s)"},
    {"attempts_p99", &Summary::attempts_p99, "p99 of sends per item"},
    {"lateness_p50_ms", &Summary::lateness_p50_ms, "median wake lateness of the harness (ms)"},
    {"lateness_p99_ms", &Summary::lateness_p99_ms, "p99 wake lateness of the harness (ms)"},
    {"writes", &Summary::writes, "occ mode: conditional writes (PUT with If-Match) attempted"},
}};

std::optional<double> metric_value(const Summary& s, std::string_view name);
nlohmann::json to_json(const Summary& s);
Summary summary_from_json(const nlohmann::json& j);

}  // namespace stampede
