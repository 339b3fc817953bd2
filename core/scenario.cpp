#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "assertion.hpp"
#include "duration.hpp"
#include "strict_json.hpp"

namespace stampede {

using json = nlohmann::json;

namespace {

constexpr std::string_view kPolicyField = "fleet.policy";

// Sets a section's keys, the preset first so that the section's other fields refine it.
std::optional<std::string> set_section(Scenario& s, const std::string& key, const json& section) {
  if (section.contains("policy")) {
    if (auto error = set_field(s, kPolicyField, section.at("policy"))) return error;
  }
  for (const auto& [sub, v] : section.items()) {
    if (key + "." + sub == kPolicyField) continue;
    if (auto error = set_field(s, key + "." + sub, v)) return error;
  }
  return std::nullopt;
}

std::string format_windowed(double x, std::int64_t window_ns) {
  std::ostringstream out;
  out << x << "," << format_duration(window_ns);
  return out.str();
}

// "10ms,2ms", as the field takes it.
std::string format_hop_delay(const HopDelay& h) {
  return format_duration(h.mean_ns) + "," + format_duration(h.sd_ns);
}

}  // namespace

namespace {

// Both rate and duration may be huge: saturate rather than convert a double no integer holds.
std::int64_t whole_items(double n) {
  n = std::floor(n);
  return n <= static_cast<double>(kMaxItems) ? static_cast<std::int64_t>(n) : kMaxItems + 1;
}

}  // namespace

std::int64_t FleetConfig::item_count() const {
  // Stages end: items may only cut the ramp's arrivals short.
  if (workload == WorkloadKind::kSteady && !stages.empty()) {
    const std::int64_t ramp = whole_items(stages_area(stages));
    return items ? std::min(*items, ramp) : ramp;
  }
  if (items) return *items;
  if (workload == WorkloadKind::kSteady && rate && duration_ns)
    return whole_items(rate->per_second() * ns_to_s(*duration_ns));
  return clients;
}

Parsed<Scenario> scenario_from_json(const json& j) {
  if (!j.is_object()) return Parsed<Scenario>::fail("a scenario is a JSON object");
  Scenario s;
  for (const auto& [key, value] : j.items()) {
    if (key == "provider" || key == "fleet") {
      if (!value.is_object()) return Parsed<Scenario>::fail(key + ": expected an object");
      if (auto error = set_section(s, key, value)) return Parsed<Scenario>::fail(*error);
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
  const auto j = parse_strict_json(text.str());
  if (!j) return Parsed<Scenario>::fail("scenario file '" + path + "' " + j.error());
  auto s = scenario_from_json(*j);
  if (!s) return Parsed<Scenario>::fail("scenario file '" + path + "': " + s.error());
  // Read with the file, so that a bad one is named by the file it is in.
  for (const auto& e : s->expectations) {
    auto a = parse_assertion(e);
    if (!a)
      return Parsed<Scenario>::fail("scenario file '" + path + "': expectations: " + a.error());
  }
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
  // A --policy replaces the file's policy and yields to the other flags.
  auto ordered = overrides;
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const FieldOverride& o) { return o.field == kPolicyField; });
  for (const auto& o : ordered) {
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
      {"ratelimit_headers", to_string(ratelimit_headers_of(p))},
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
  if (!f.stages.empty()) fleet["stages"] = format_stages(f.stages);
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
  // LLM quotas only when used, so a scenario without them reads as before.
  if (p.token_allowance) provider["token_allowance"] = format_rate(*p.token_allowance);
  if (p.spend_cap) provider["spend_cap"] = *p.spend_cap;
  if (p.token_allowance || p.spend_cap) {
    provider["token_header"] = p.token_header;
    if (!p.token_field.empty()) provider["token_field"] = p.token_field;
    provider["default_tokens"] = p.default_tokens;
  }
  if (f.tokens) fleet["tokens"] = *f.tokens;
  // Only in occ mode, so a plain scenario's document stays as it was.
  if (p.mode == ProviderMode::kOcc) {
    provider["mode"] = to_string(p.mode);
    fleet["hop_delay"] = format_hop_delay(f.hop_delay);
  }
  if (p.hop_delay) provider["hop_delay"] = format_hop_delay(*p.hop_delay);
  // The wire's dialect only when not the default, so a scenario without one reads as before.
  if (p.dialect != Dialect::kGeneric) provider["dialect"] = to_string(p.dialect);
  if (p.retry_after_ms) provider["retry_after_ms"] = "on";
  if (p.retry_after_jitter > 0) provider["retry_after_jitter"] = p.retry_after_jitter;
  // The preset's fields with a preset, or where they differ from the defaults: a classic
  // policy's results read as before, and a preset's read back the same.
  const FleetConfig defaults;
  const bool preset = !f.policy.empty();
  if (preset) fleet["policy"] = f.policy;
  if (preset || f.multiplier != defaults.multiplier) fleet["multiplier"] = f.multiplier;
  if (preset || f.randomization != defaults.randomization) fleet["randomization"] = f.randomization;
  if (preset || f.jitter_ns != defaults.jitter_ns) fleet["jitter"] = format_duration(f.jitter_ns);
  if (preset || f.adaptive_rate) fleet["adaptive_rate"] = f.adaptive_rate ? "on" : "off";
  if (f.retry_quota) {
    std::ostringstream q;
    q << f.retry_quota->capacity << "," << f.retry_quota->retry_cost << ","
      << f.retry_quota->timeout_cost << "," << f.retry_quota->success_refund;
    fleet["retry_quota"] = q.str();
  }
  if (f.adaptive_throttle) {
    fleet["adaptive_throttle"] =
        format_windowed(f.adaptive_throttle->k, f.adaptive_throttle->window_ns);
  }
  if (f.retry_ratio)
    fleet["retry_ratio"] = format_windowed(f.retry_ratio->ratio, f.retry_ratio->window_ns);
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
  need(f.multiplier >= 1, "fleet.multiplier: must be at least 1");
  need(f.jitter_ns >= 0, "fleet.jitter: must be a duration >= 0");
  if (!f.stages.empty()) {
    need(f.workload == WorkloadKind::kSteady,
         "fleet.stages: stages are the steady workload's arrival rate, and imply it; leave "
         "fleet.workload out (it is " +
             std::string(to_string(f.workload)) + ")");
    need(!f.rate, "fleet.stages: give stages or a rate, not both");
    need(!f.duration_ns, "fleet.duration: stages set how long items arrive; leave it out");
  } else if (f.workload == WorkloadKind::kSteady) {
    need(f.rate.has_value(),
         "fleet.rate: the steady workload needs an arrival rate, e.g. 50/s, or stages");
    need(f.items || f.duration_ns,
         "fleet.duration: the steady workload needs a duration or an item count, e.g. 60s");
  }
  if (f.workload != WorkloadKind::kSteady)
    need(!f.rate, "fleet.rate: only the steady workload takes a rate; use --workload steady");
  // The occ cycle holds its client for a read and a write; the open model's free-client
  // accounting is not built for it.
  need(!(f.open_model() && p.mode == ProviderMode::kOcc),
       "fleet.workload: occ mode runs the storm and queue workloads, not steady or stages");
  need(f.item_count() > 0, "fleet.items: the workload creates no items; give at least 1");
  need(f.item_count() <= kMaxItems, "fleet.items: at most " + std::to_string(kMaxItems) +
                                        " (a steady workload makes rate x duration, stages "
                                        "the area under the ramp)");
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
