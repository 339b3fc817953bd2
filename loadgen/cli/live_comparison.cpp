#include "cli/live_comparison.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim_divergence.hpp"

namespace stampede {
namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, 7> kCompared{
    "requests", "delivered", "dead_lettered", "peak_second", "peak_arrivals", "drain_s", "writes"};

json headline(const Summary& s) {
  json j = json::object();
  for (const auto name : kCompared) {
    j[std::string(name)] = std::round(*metric_value(s, name) * 1000.0) / 1000.0;
  }
  return j;
}

const BinnedCounts& arrivals(const Results& r) {
  return r.provider_side ? r.recording.provider_by_outcome : r.recording.client_by_outcome;
}

}  // namespace

json compare_with_simulation(const Results& live, const Results& simulated) {
  json c;
  c["simulated"] = headline(simulated.summary);
  c["live"] = headline(live.summary);
  json diff = json::object();
  for (const auto name : kCompared) {
    const std::string key(name);
    diff[key] =
        std::round((c["live"][key].get<double>() - c["simulated"][key].get<double>()) * 1000.0) /
        1000.0;
  }
  c["difference"] = diff;

  const auto& a = arrivals(live);
  const auto& b = arrivals(simulated);
  const std::size_t bins = std::max(a.bins(), b.bins());
  std::int64_t differing = 0;
  std::int64_t abs_difference = 0;
  if (a.bin_ns() == b.bin_ns()) {
    for (std::size_t i = 0; i < bins; ++i) {
      const auto x = i < a.bins() ? a.bin_total(i) : 0;
      const auto y = i < b.bins() ? b.bin_total(i) : 0;
      differing += x != y;
      abs_difference += std::llabs(x - y);
    }
  }
  c["arrivals_per_second"] = {{"seconds", bins},
                              {"seconds_differing", differing},
                              {"abs_difference", abs_difference},
                              {"side", live.provider_side ? "provider" : "client"}};
  if (const auto d = sim_divergence(a, b))
    c["arrivals_per_second"]["sim_divergence"] = std::round(*d * 1000.0) / 1000.0;
  c["matches"] = a.bin_ns() == b.bin_ns() && differing == 0 &&
                 a.overflow_total() == b.overflow_total() &&
                 live.recording.requests == simulated.recording.requests &&
                 live.recording.delivered == simulated.recording.delivered &&
                 live.recording.dead_lettered == simulated.recording.dead_lettered;
  return c;
}

bool take_divergence(const json& comparison, Summary& s) {
  const auto& a = comparison.at("arrivals_per_second");
  const auto it = a.find("sim_divergence");
  if (it == a.end() || !it->is_number()) return false;
  s.sim_divergence = it->get<double>();
  return true;
}

std::string format_comparison(const json& c) {
  const auto& s = c["simulated"];
  const auto& l = c["live"];
  const auto& a = c["arrivals_per_second"];
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "simulation of the same scenario and seed: requests %.0f (live %.0f), busiest "
                "second t=%g with %.0f (live t=%g with %.0f), delivered %.0f (live %.0f)\n"
                "arrivals per second (%s side): %lld of %lld seconds differ from the simulation, "
                "by %lld requests in all%s\n",
                s["requests"].get<double>(), l["requests"].get<double>(),
                s["peak_second"].get<double>(), s["peak_arrivals"].get<double>(),
                l["peak_second"].get<double>(), l["peak_arrivals"].get<double>(),
                s["delivered"].get<double>(), l["delivered"].get<double>(),
                a["side"].get<std::string>().c_str(), a["seconds_differing"].get<long long>(),
                a["seconds"].get<long long>(), a["abs_difference"].get<long long>(),
                c["matches"].get<bool>() ? ": the live run matches" : "");
  return buf;
}

}  // namespace stampede
