#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "duration.hpp"

namespace stampede {

using json = nlohmann::json;

std::int64_t FleetConfig::item_count() const {
  if (items) return *items;
  if (workload == WorkloadKind::kSteady && rate && duration_ns) {
    // Both may be huge: saturate rather than convert a double no integer holds.
    const double n = std::floor(rate->per_second() * ns_to_s(*duration_ns));
    return n <= static_cast<double>(kMaxItems) ? static_cast<std::int64_t>(n) : kMaxItems + 1;
  }
  return clients;
}

Parsed<Scenario> scenario_from_json(const json& j) {
  if (!j.is_object()) return Parsed<Scenario>::fail("a scenario is a JSON object");
  Scenario s;
  for (const auto& [key, value] : j.items()) {
    if (key == "provider" || key == "fleet") {
      if (!value.is_object()) return Parsed<Scenario>::fail(key + ": expected an object");
      for (const auto& [sub, v] : value.items()) {
        if (auto error = set_field(s, key + "." + sub, v)) return Parsed<Scenario>::fail(*error);
      }
    } else if (auto error = set_field(s, key, value)) {
      return Parsed<Scenario>::fail(*error);
    }
  }
  return Parsed<Scenario>::ok(std::move(s));
}

Parsed<Scenario> load_scenario_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Parsed<Scenario>::fail("cannot read scenario file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  const json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Parsed<Scenario>::fail("scenario file '" + path + "' is not valid JSON");
  }
  auto s = scenario_from_json(j);
  if (!s) return Parsed<Scenario>::fail("scenario file '" + path + "': " + s.error());
  return s;
}

Parsed<Scenario> build_scenario(const std::string& path,
                                const std::vector<FieldOverride>& overrides) {
  Scenario s;
  if (!path.empty()) {
    auto loaded = load_scenario_file(path);
    if (!loaded) return loaded;
    s = *loaded;
  }
  for (const auto& o : overrides) {
    if (auto error = set_field(s, o.field, o.value)) return Parsed<Scenario>::fail(*error);
  }
  std::string errors;
  for (const auto& e : validate(s)) errors += (errors.empty() ? "" : "; ") + e;
  if (!errors.empty()) return Parsed<Scenario>::fail(errors);
  return Parsed<Scenario>::ok(std::move(s));
}

json to_json(const Scenario& s) {
  const auto& p = s.provider;
  const auto& f = s.fleet;
  json provider{
      {"limiter", to_string(p.limiter)},
      {"error_rate", p.error_rate},
      {"latency",
       format_duration(p.latency_min_ns) +
           (p.latency_max_ns != p.latency_min_ns ? "-" + format_duration(p.latency_max_ns) : "")},
      {"tenant_header", p.tenant_header},
      {"retry_after", p.retry_after ? "on" : "off"},
      {"ratelimit_headers", to_string(p.ratelimit_headers)},
      {"seed", p.seed}};
  if (p.allowance) provider["allowance"] = format_rate(*p.allowance);
  if (p.burst) provider["burst"] = *p.burst;
  if (p.capacity) provider["capacity"] = format_rate(*p.capacity);
  provider["outages"] = json::array();
  for (const auto& w : p.outages) provider["outages"].push_back(format_outage(w));

  json fleet{{"clients", f.clients},
             {"workload", to_string(f.workload)},
             {"items", f.item_count()},
             {"strategy", to_string(f.strategy)},
             {"base", format_duration(f.base_ns)},
             {"cap", format_duration(f.cap_ns)},
             {"max_attempts", f.max_attempts},
             {"retry_after", to_string(f.retry_after)},
             {"timeout", format_duration(f.timeout_ns)},
             {"seed", f.seed}};
  if (f.rate) fleet["rate"] = format_rate(*f.rate);
  if (f.duration_ns) fleet["duration"] = format_duration(*f.duration_ns);
  if (f.deadline_ns) fleet["deadline"] = format_duration(*f.deadline_ns);
  if (f.retry_budget) {
    std::ostringstream b;
    b << f.retry_budget->max_tokens << "," << f.retry_budget->token_ratio;
    fleet["retry_budget"] = b.str();
  }
  if (f.breaker) {
    fleet["breaker"] =
        std::to_string(f.breaker->failures) + "," + format_duration(f.breaker->cooldown_ns);
  }
  return {{"name", s.name},
          {"description", s.description},
          {"provider", provider},
          {"fleet", fleet},
          {"expectations", s.expectations}};
}

std::vector<std::string> validate(const Scenario& s) {
  std::vector<std::string> errors;
  const auto& f = s.fleet;
  const auto& p = s.provider;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) errors.push_back(what);
  };
  need(f.clients > 0, "fleet.clients: must be at least 1");
  need(f.clients <= 100'000'000, "fleet.clients: at most 100000000");
  const bool uses_base = f.strategy != StrategyKind::kNone;
  need(!uses_base || f.cap_ns >= f.base_ns,
       "fleet.cap: " + format_duration(f.cap_ns) + " is below fleet.base " +
           format_duration(f.base_ns) + "; the cap must be at least the base");
  if (f.workload == WorkloadKind::kSteady) {
    need(f.rate.has_value(), "fleet.rate: the steady workload needs an arrival rate, e.g. 50/s");
    need(f.items || f.duration_ns,
         "fleet.duration: the steady workload needs a duration or an item count, e.g. 60s");
  } else {
    need(!f.rate, "fleet.rate: only the steady workload takes a rate; use --workload steady");
  }
  need(f.item_count() > 0, "fleet.items: the workload creates no items; give at least 1");
  need(f.item_count() <= kMaxItems, "fleet.items: at most " + std::to_string(kMaxItems) +
                                        " (a steady workload makes rate x duration)");
  if (p.burst) need(*p.burst > 0, "provider.burst: must be at least 1");
  need(p.latency_min_ns >= 0 && p.latency_max_ns >= p.latency_min_ns,
       "provider.latency: must be a duration >= 0 or a range LOW-HIGH");
  need(!p.tenant_header.empty(), "provider.tenant_header: must not be empty");
  auto outages = p.outages;
  std::sort(outages.begin(), outages.end(),
            [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  for (std::size_t i = 1; i < outages.size(); ++i) {
    need(outages[i].start_ns >= outages[i - 1].end_ns,
         "provider.outages: " + format_outage(outages[i - 1]) + " and " +
             format_outage(outages[i]) + " overlap");
  }
  return errors;
}

std::int64_t recovery_ns(const ProviderConfig& p) {
  std::int64_t end = 0;
  for (const auto& w : p.outages) end = std::max(end, w.end_ns);
  return end;
}

}  // namespace stampede
