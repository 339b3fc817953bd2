// The field table: every scenario field's flag, help, parser, printer and check, and what is
// made from it (set_field, field_names, to_json, validate).
#include "scenario_fields.hpp"

#include <algorithm>

#include "duration.hpp"
#include "field_values.hpp"
#include "nearest_name.hpp"
#include "policy_presets.hpp"
#include "upstream_url.hpp"

namespace stampede {
namespace {

using json = nlohmann::json;
using Error = std::optional<std::string>;
using Printed = std::optional<json>;
using Problems = std::vector<std::string>;

// A file may spell a number as a number or a string; a flag always gives a string.
std::string as_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

template <class T, class Out>
Error assign(Parsed<T> parsed, Out& out) {
  if (!parsed) return parsed.error();
  out = *parsed;
  return std::nullopt;
}

template <class T, class Format>
Printed if_set(const std::optional<T>& v, Format format) {
  if (!v) return std::nullopt;
  return json(format(*v));
}

Problems problem_if(bool wrong, std::string what) {
  if (!wrong) return {};
  return {std::move(what)};
}

Error set_seed(std::uint64_t& out, const json& v) {
  std::int64_t seed = 0;
  auto e = assign(parse_count(as_text(v)), seed);
  out = static_cast<std::uint64_t>(seed);
  return e;
}

Error set_outages(ProviderConfig& p, const json& v) {
  std::vector<OutageWindow> windows;
  const json list = v.is_array() ? v : json::array({v});
  for (const auto& item : list) {
    const auto w = parse_outage(as_text(item));
    if (!w) return w.error();
    windows.push_back(*w);
  }
  p.outages = std::move(windows);
  return std::nullopt;
}

Error set_max_tokens(Scenario& s, const json& v) {
  const auto n = parse_count(as_text(v));
  if (!n) return n.error();
  if (*n < 1 || *n > kMaxOutputTokens)
    return "'" + as_text(v) + "' is outside 1 to " + std::to_string(kMaxOutputTokens) +
           ": an LLM request's max_tokens";
  s.fleet.max_tokens = *n;
  return std::nullopt;
}

Problems overlapping_outages(const Scenario& s) {
  auto outages = s.provider.outages;
  std::sort(outages.begin(), outages.end(),
            [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
  Problems problems;
  for (std::size_t i = 1; i < outages.size(); ++i) {
    if (outages[i].start_ns < outages[i - 1].end_ns) {
      problems.push_back(format_outage(outages[i - 1]) + " and " + format_outage(outages[i]) +
                         " overlap");
    }
  }
  return problems;
}

Error set_expectations(Scenario& s, const json& v) {
  if (!v.is_array()) return "expected a list of assertion strings, e.g. [\"peak_ratio <= 2\"]";
  std::vector<std::string> list;
  for (const auto& item : v) {
    if (!item.is_string()) return "expected a list of assertion strings, got " + item.dump();
    list.push_back(item.get<std::string>());
  }
  s.expectations = std::move(list);
  return std::nullopt;
}

// The token quota's fields only when one is used, so a scenario without them reads as before.
bool uses_tokens(const Scenario& s) {
  return s.provider.token_allowance || s.provider.spend_cap;
}

// The preset's refinements with a preset, or where they differ from the defaults: a classic
// policy's results read as before, and a preset's read back the same.
bool shows_refinement(const Scenario& s, bool differs) {
  return !s.fleet.policy.empty() || differs;
}

bool trace(const Scenario& s) {
  return s.fleet.workload == WorkloadKind::kTrace;
}

// The trace workload's fields with it, or where they differ from the defaults: other
// scenarios' documents read as before.
bool shows_trace(const Scenario& s, bool differs) {
  return trace(s) || differs;
}

bool occ(const Scenario& s) {
  return s.provider.mode == ProviderMode::kOcc;
}

// provider.models' limits: each model's field is the provider's own, read and checked by that
// field's entry in the table, so a model spells and checks a limit as the provider does.
struct ModelField {
  const char* key;
  std::optional<Rate> ModelLimits::*rate = nullptr;
  std::optional<Rate> ProviderConfig::*provider_rate = nullptr;
};
constexpr ModelField kModelRates[] = {
    {"allowance", &ModelLimits::allowance, &ProviderConfig::allowance},
    {"token_allowance", &ModelLimits::token_allowance, &ProviderConfig::token_allowance},
    {"input_token_allowance", &ModelLimits::input_token_allowance,
     &ProviderConfig::input_token_allowance},
    {"output_token_allowance", &ModelLimits::output_token_allowance,
     &ProviderConfig::output_token_allowance},
};
constexpr const char* kModelKeys =
    "allowance, token_allowance, input_token_allowance, output_token_allowance, max_concurrent";

// A scenario holding one model's limits as the provider's own, for the table's entries.
Scenario as_provider_limits(const ModelLimits& m) {
  Scenario s;
  for (const auto& f : kModelRates) s.provider.*f.provider_rate = m.*f.rate;
  s.provider.max_concurrent = m.max_concurrent;
  return s;
}

Error set_model(ModelLimits& m, const json& entry) {
  if (!entry.is_object())
    return "expected an object of limits, e.g. {\"allowance\": \"1/min\"}, got " + entry.dump();
  Scenario s;
  for (const auto& [key, value] : entry.items()) {
    const ScenarioField* f = find_field("provider." + key);
    const bool known =
        key == "max_concurrent" || std::any_of(std::begin(kModelRates), std::end(kModelRates),
                                               [&](const ModelField& r) { return key == r.key; });
    if (!known || f == nullptr) return "unknown key '" + key + "'; a model takes " + kModelKeys;
    if (value.is_null()) return key + ": null is not a value; leave the key out instead";
    if (auto e = f->parse(s, value)) return key + ": " + *e;
    if (f->check) {
      if (const auto problems = f->check(s); !problems.empty()) return key + ": " + problems[0];
    }
  }
  for (const auto& f : kModelRates) m.*f.rate = s.provider.*f.provider_rate;
  m.max_concurrent = s.provider.max_concurrent;
  return std::nullopt;
}

// {"small": {"allowance": "1/min"}, ...}: a file's object, or its text from a flag.
Error set_models(Scenario& s, const json& v) {
  const json models = v.is_string() ? json::parse(v.get<std::string>(), nullptr, false) : v;
  if (!models.is_object())
    return "expected an object of model names and their limits, e.g. {\"small\": "
           "{\"allowance\": \"1/min\"}}";
  if (models.size() > kMaxModels) return "at most " + std::to_string(kMaxModels) + " models";
  std::vector<ModelLimits> list;
  for (const auto& [name, entry] : models.items()) {
    if (name.empty() || name.size() > kMaxModelName)
      return "a model's name is 1 to " + std::to_string(kMaxModelName) + " bytes";
    ModelLimits m;
    m.name = name;
    if (auto e = set_model(m, entry)) return name + ": " + *e;
    list.push_back(std::move(m));
  }
  s.provider.models = std::move(list);
  return std::nullopt;
}

Printed print_models(const Scenario& s) {
  if (s.provider.models.empty()) return std::nullopt;
  json out = json::object();
  for (const auto& m : s.provider.models) {
    const Scenario limits = as_provider_limits(m);
    json entry = json::object();
    for (const auto& f : kModelRates) {
      if (auto v = find_field(std::string("provider.") + f.key)->print(limits)) entry[f.key] = *v;
    }
    if (auto v = find_field("provider.max_concurrent")->print(limits)) entry["max_concurrent"] = *v;
    out[m.name] = std::move(entry);
  }
  return out;
}

// The fleet's section first, then the provider's: --help lists them in this order. Built on
// first use, so a binary's own static setup may already read it.
const std::vector<ScenarioField>& table() {
  static const std::vector<ScenarioField> fields{
      {.name = "name",
       .no_flag = "a file's title, printed in the report",
       .example = "storm",
       .parse = [](Scenario& s, const json& v) -> Error {
         s.name = as_text(v);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed { return s.name; }},
      {.name = "description",
       .no_flag = "a file's prose, printed in the report",
       .example = "a storm",
       .parse = [](Scenario& s, const json& v) -> Error {
         s.description = as_text(v);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed { return s.description; }},
      {.name = "expectations",
       .no_flag = "loadgen's --assert adds to them, and is not a scenario field",
       .example = "peak_ratio <= 2",
       .list = true,
       .parse = set_expectations,
       .print = [](const Scenario& s) -> Printed { return s.expectations; }},
      // Fleet
      {.name = "fleet.clients",
       .flag = "--clients",
       .in = kLoadgen,
       .help = "concurrent clients, each with its own stream and state (default 100); steady: the "
               "pool arrivals are taken from (k6's maxVUs)",
       .type = "INT",
       .default_text = "100",
       .example = "50",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_count(as_text(v)), s.fleet.clients); },
       .print = [](const Scenario& s) -> Printed { return s.fleet.clients; },
       .check =
           [](const Scenario& s) {
             if (s.fleet.clients <= 0) return Problems{"must be at least 1"};
             return problem_if(s.fleet.clients > 100'000'000, "at most 100000000");
           }},
      {.name = "fleet.workload",
       .flag = "--workload",
       .in = kLoadgen,
       .help = "storm (default: each client sends at t=0), steady (open model: items arrive at "
               "--rate or --stages whatever the clients' backoff, each taken by a free client or "
               "dropped), queue (items drained by the clients) or trace (the open model's "
               "arrivals from --trace; exec: a process at each)",
       .type = "WORKLOAD",
       .default_text = "storm",
       .example = "queue",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_enum(kWorkloads, as_text(v), "a workload"), s.fleet.workload);
           },
       .print = [](const Scenario& s) -> Printed { return to_string(s.fleet.workload); }},
      {.name = "fleet.items",
       .flag = "--items",
       .in = kLoadgen,
       .help = "items in all (default: one per client; steady: rate x duration, or the stages' "
               "area)",
       .type = "INT",
       .example = "40",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_count(as_text(v)), s.fleet.items); },
       // The count the workload makes, given or not.
       .print = [](const Scenario& s) -> Printed { return s.fleet.item_count(); }},
      {.name = "fleet.rate",
       .flag = "--rate",
       .in = kLoadgen,
       .help = "steady workload's arrival rate: N/s, N/min or N/h",
       .type = "RATE",
       .example = "5/s",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_rate(as_text(v)), s.fleet.rate); },
       .print = [](const Scenario& s) { return if_set(s.fleet.rate, format_rate); }},
      {.name = "fleet.duration",
       .flag = "--duration",
       .in = kLoadgen,
       .help = "steady workload's duration, e.g. 60s",
       .type = "DURATION",
       .example = "60s",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_duration(as_text(v)), s.fleet.duration_ns);
           },
       .print = [](const Scenario& s) { return if_set(s.fleet.duration_ns, format_duration); }},
      {.name = "fleet.stages",
       .flag = "--stages",
       .in = kLoadgen,
       .help = "ramping arrival rate, DURATION:RATE,... e.g. 30s:10/s,2m:100/s,30s:0/s: each stage "
               "ramps linearly from the previous target (the first from 0, or from a leading bare "
               "rate such as 10/s) to its own; implies --workload steady, instead of --rate and "
               "--duration; at most 100 stages (default: none)",
       .type = "DURATION:RATE,...",
       .example = "30s:10/s,30s:0/s",
       .parse =
           [](Scenario& s, const json& v) {
             // Stages are the open model's arrival rate: they imply the steady workload.
             auto e = assign(parse_stages(as_text(v)), s.fleet.stages);
             if (!e) s.fleet.workload = WorkloadKind::kSteady;
             return e;
           },
       .print = [](const Scenario& s) -> Printed {
         if (s.fleet.stages.empty()) return std::nullopt;
         return format_stages(s.fleet.stages);
       }},
      {.name = "fleet.trace",
       .flag = "--trace",
       .in = kLoadgen,
       .help = "the trace workload's file: an nginx or Apache access log, a CSV with a time "
               "column, or a HAR file; each line's time is an item's first send "
               "(docs/TRACE.md)",
       .type = "FILE",
       .example = "access.log",
       .parse = [](Scenario& s, const json& v) -> Error {
         s.fleet.trace.path = as_text(v);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed {
         if (s.fleet.trace.path.empty()) return std::nullopt;
         return s.fleet.trace.path;
       }},
      {.name = "fleet.trace_format",
       .flag = "--trace-format",
       .in = kLoadgen,
       .help = "auto (detected from the first line), csv, har, combined, common, or "
               "'nginx:<log_format>' in nginx's syntax, e.g. 'nginx:$remote_addr $msec "
               "\"$request\"'",
       .type = "FORMAT",
       .default_text = "auto",
       .example = "combined",
       .parse = [](Scenario& s, const json& v) -> Error {
         s.fleet.trace.format = as_text(v);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_trace(s, s.fleet.trace.format != TraceSettings{}.format)) return std::nullopt;
         return s.fleet.trace.format;
       }},
      {.name = "fleet.trace_tenant",
       .flag = "--trace-tenant",
       .in = kLoadgen,
       .help = "the trace's field that is each item's tenant key, sent in --tenant-header and "
               "keyed by the simulated provider: a CSV column or a variable of the log format, "
               "e.g. remote_addr or http_x_api_key; none: no tenant from the trace (default: a "
               "CSV's tenant column; a log, none)",
       .type = "FIELD",
       .example = "http_x_api_key",
       .parse = [](Scenario& s, const json& v) -> Error {
         // nginx's spelling ($http_x_api_key) names the same variable.
         std::string field = as_text(v);
         if (field.starts_with('$')) field.erase(0, 1);
         if (field.empty())
           return "give a field of the trace, e.g. tenant (a CSV column) or remote_addr";
         s.fleet.trace.tenant = std::move(field);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed {
         if (s.fleet.trace.tenant.empty()) return std::nullopt;
         return s.fleet.trace.tenant;
       }},
      {.name = "fleet.trace_tokens",
       .flag = "--trace-tokens",
       .in = kLoadgen,
       .help = "the trace's field that is each item's token count, sent in --token-header and "
               "charged by the simulated provider: a CSV column or a variable of the log format, "
               "e.g. upstream_http_x_tokens; none: no tokens from the trace (default: a CSV's "
               "tokens column; a log, none)",
       .type = "FIELD",
       .example = "upstream_http_x_tokens",
       .parse = [](Scenario& s, const json& v) -> Error {
         std::string field = as_text(v);
         if (field.starts_with('$')) field.erase(0, 1);
         if (field.empty())
           return "give a field of the trace, e.g. tokens (a CSV column) or a log variable";
         s.fleet.trace.tokens = std::move(field);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed {
         if (s.fleet.trace.tokens.empty()) return std::nullopt;
         return s.fleet.trace.tokens;
       }},
      {.name = "fleet.trace_reorder",
       .flag = "--trace-reorder",
       .in = kLoadgen,
       .help = "how far a trace's time may go back (a log is written as requests end): within "
               "it the lines are sorted, beyond it the trace is refused",
       .type = "DURATION",
       .default_text = "1s",
       .example = "5s",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_duration_ns(as_text(v)), s.fleet.trace.reorder_ns);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_trace(s, s.fleet.trace.reorder_ns != TraceSettings{}.reorder_ns))
           return std::nullopt;
         return format_duration(s.fleet.trace.reorder_ns);
       }},
      {.name = "fleet.trace_spread",
       .flag = "--trace-spread",
       .in = kLoadgen,
       .help = "where a line whose time has whole seconds only ($time_local) is sent: uniform "
               "(seeded, within its second) or none (at its start)",
       .type = "uniform|none",
       .default_text = "uniform",
       .example = "none",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_enum(kTraceSpreads, as_text(v), "a trace spread"),
                           s.fleet.trace.playback.spread);
           },
       .print = [](const Scenario& s) -> Printed {
         const auto spread = s.fleet.trace.playback.spread;
         if (!shows_trace(s, spread != TracePlayback{}.spread)) return std::nullopt;
         return std::string(enum_name(kTraceSpreads, spread));
       }},
      {.name = "fleet.speed",
       .flag = "--speed",
       .in = kLoadgen,
       .help = "play the trace K times faster, 0.1 to 1000",
       .type = "K",
       .default_text = "1",
       .example = "10",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_real(as_text(v)), s.fleet.trace.playback.speed);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_trace(s, s.fleet.trace.playback.speed != TracePlayback{}.speed))
           return std::nullopt;
         return s.fleet.trace.playback.speed;
       },
       .check =
           [](const Scenario& s) {
             const double k = s.fleet.trace.playback.speed;
             return problem_if(k < 0.1 || k > 1000, "give a speed from 0.1 to 1000");
           }},
      {.name = "fleet.scale",
       .flag = "--scale",
       .in = kLoadgen,
       .help = "the trace's arrivals times R: below 1 each line kept with probability R "
               "(seeded), above 1 each line R times, the copies within --scale-spread",
       .type = "R",
       .default_text = "1",
       .example = "2.5",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_real(as_text(v)), s.fleet.trace.playback.scale);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_trace(s, s.fleet.trace.playback.scale != TracePlayback{}.scale))
           return std::nullopt;
         return s.fleet.trace.playback.scale;
       },
       .check =
           [](const Scenario& s) {
             return problem_if(s.fleet.trace.playback.scale > 1000, "give a scale up to 1000");
           }},
      {.name = "fleet.scale_spread",
       .flag = "--scale-spread",
       .in = kLoadgen,
       .help = "--scale above 1: each copy of a line is sent at a seeded offset up to this long "
               "after it, in the trace's time",
       .type = "DURATION",
       .default_text = "1s",
       .example = "100ms",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_duration_ns(as_text(v)), s.fleet.trace.playback.scale_spread_ns);
           },
       .print = [](const Scenario& s) -> Printed {
         const auto spread = s.fleet.trace.playback.scale_spread_ns;
         if (!shows_trace(s, spread != TracePlayback{}.scale_spread_ns)) return std::nullopt;
         return format_duration(spread);
       }},
      {.name = "fleet.from",
       .flag = "--from",
       .in = kLoadgen,
       .help = "play the trace from this long after its first line",
       .type = "DURATION",
       .default_text = "0s",
       .example = "1h",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_duration_ns(as_text(v)), s.fleet.trace.playback.from_ns);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_trace(s, s.fleet.trace.playback.from_ns != 0)) return std::nullopt;
         return format_duration(s.fleet.trace.playback.from_ns);
       }},
      {.name = "fleet.to",
       .flag = "--to",
       .in = kLoadgen,
       .help = "play the trace up to this long after its first line (default: its end)",
       .type = "DURATION",
       .example = "2h",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_duration_ns(as_text(v)), s.fleet.trace.playback.to_ns);
           },
       .print = [](const Scenario& s) -> Printed {
         return if_set(s.fleet.trace.playback.to_ns, format_duration);
       }},
      // The preset first (scenario_from_json and build_scenario see to the order), then the
      // fields that refine it.
      {.name = "fleet.policy",
       .flag = "--policy",
       .in = kLoadgen,
       .help = "a client library's retry policy: aws-standard, aws-adaptive, grpc, grpc-go, polly, "
               "tenacity-exponential-jitter, resilience4j or sre (docs/POLICIES.md); the other "
               "policy flags override its fields",
       .type = "POLICY",
       .example = "aws-standard",
       .parse = [](Scenario& s, const json& v) { return apply_policy_preset(s.fleet, as_text(v)); },
       .print = [](const Scenario& s) -> Printed {
         if (s.fleet.policy.empty()) return std::nullopt;
         return s.fleet.policy;
       }},
      {.name = "fleet.strategy",
       .flag = "--strategy",
       .in = kLoadgen,
       .help = "none, fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter, "
               "proportional-jitter, grpc-go-jitter, additive-jitter or decorrelated-jitter-v2",
       .type = "STRATEGY",
       .default_text = "full-jitter",
       .example = "exponential",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_strategy(as_text(v)), s.fleet.strategy); },
       .print = [](const Scenario& s) -> Printed { return to_string(s.fleet.strategy); }},
      {.name = "fleet.base",
       .flag = "--base",
       .in = kLoadgen,
       .help = "base delay, e.g. 1s",
       .type = "DURATION",
       .default_text = "1s",
       .example = "250ms",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_duration(as_text(v)), s.fleet.base_ns);
           },
       .print = [](const Scenario& s) -> Printed { return format_duration(s.fleet.base_ns); }},
      {.name = "fleet.cap",
       .flag = "--cap",
       .in = kLoadgen,
       .help = "delay cap, e.g. 60s",
       .type = "DURATION",
       .default_text = "60s",
       .example = "8s",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_duration(as_text(v)), s.fleet.cap_ns);
           },
       .print = [](const Scenario& s) -> Printed { return format_duration(s.fleet.cap_ns); }},
      {.name = "fleet.max_attempts",
       .flag = "--max-attempts",
       .in = kLoadgen,
       .help = "retries after the first send; 0 = unbounded",
       .type = "INT",
       .default_text = "0",
       .example = "5",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_count(as_text(v)), s.fleet.max_attempts); },
       .print = [](const Scenario& s) -> Printed { return s.fleet.max_attempts; }},
      {.name = "fleet.deadline",
       .flag = "--deadline",
       .in = kLoadgen,
       .help = "total time an item may take, from its first send",
       .type = "DURATION",
       .example = "2m",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_duration(as_text(v)), s.fleet.deadline_ns);
           },
       .print = [](const Scenario& s) { return if_set(s.fleet.deadline_ns, format_duration); }},
      {.name = "fleet.retry_after",
       .flag = "--retry-after",
       .in = kLoadgen,
       .help = "what to do with a Retry-After: ignore, exact or jittered (hint plus full jitter)",
       .type = "MODE",
       .default_text = "ignore",
       .example = "exact",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_enum(kRetryAfterModes, as_text(v), "a Retry-After mode"),
                           s.fleet.retry_after);
           },
       .print = [](const Scenario& s) -> Printed { return to_string(s.fleet.retry_after); }},
      {.name = "fleet.retry_budget",
       .flag = "--retry-budget",
       .in = kLoadgen,
       .help = "MAX_TOKENS,RATIO, gRPC-style retry throttling",
       .type = "MAX_TOKENS,RATIO",
       .example = "10,0.1",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_retry_budget(as_text(v)), s.fleet.retry_budget);
           },
       .print =
           [](const Scenario& s) { return if_set(s.fleet.retry_budget, format_retry_budget); }},
      {.name = "fleet.breaker",
       .flag = "--breaker",
       .in = kLoadgen,
       .help = "FAILURES,COOLDOWN circuit breaker, e.g. 5,30s",
       .type = "FAILURES,COOLDOWN",
       .example = "5,30s",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_breaker(as_text(v)), s.fleet.breaker); },
       .print = [](const Scenario& s) { return if_set(s.fleet.breaker, format_breaker); }},
      {.name = "fleet.multiplier",
       .flag = "--multiplier",
       .in = kLoadgen,
       .help = "the exponential strategies' growth per retry (default 2)",
       .type = "NUMBER",
       .default_text = "2",
       .example = "3",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_real(as_text(v)), s.fleet.multiplier);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_refinement(s, s.fleet.multiplier != FleetConfig{}.multiplier))
           return std::nullopt;
         return s.fleet.multiplier;
       },
       .check =
           [](const Scenario& s) {
             return problem_if(s.fleet.multiplier < 1, "must be at least 1");
           }},
      {.name = "fleet.randomization",
       .flag = "--randomization",
       .in = kLoadgen,
       .help = "proportional jitter's factor r: the delay times uniform(1-r, 1+r)",
       .type = "FRACTION",
       .default_text = "0",
       .example = "0.5",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_fraction(as_text(v)), s.fleet.randomization);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_refinement(s, s.fleet.randomization != FleetConfig{}.randomization))
           return std::nullopt;
         return s.fleet.randomization;
       }},
      {.name = "fleet.jitter",
       .flag = "--jitter",
       .in = kLoadgen,
       .help = "additive jitter's bound: the delay plus uniform(0, JITTER)",
       .type = "DURATION",
       .default_text = "0s",
       .example = "200ms",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_duration_ns(as_text(v)), s.fleet.jitter_ns);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_refinement(s, s.fleet.jitter_ns != FleetConfig{}.jitter_ns))
           return std::nullopt;
         return format_duration(s.fleet.jitter_ns);
       },
       .check =
           [](const Scenario& s) {
             return problem_if(s.fleet.jitter_ns < 0, "must be a duration >= 0");
           }},
      {.name = "fleet.retry_quota",
       .flag = "--retry-quota",
       .in = kLoadgen,
       .help =
           "CAPACITY,RETRY_COST,TIMEOUT_COST,REFUND, the AWS SDKs' retry quota, e.g. 500,5,10,1",
       .type = "CAPACITY,RETRY_COST,TIMEOUT_COST,REFUND",
       .example = "500,5,10,1",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_retry_quota(as_text(v)), s.fleet.retry_quota);
           },
       .print = [](const Scenario& s) { return if_set(s.fleet.retry_quota, format_retry_quota); }},
      {.name = "fleet.adaptive_rate",
       .flag = "--adaptive-rate",
       .in = kLoadgen,
       .help = "on: the AWS SDKs' CUBIC client-side rate limiter (adaptive retry mode)",
       .type = "on|off",
       .default_text = "off",
       .example = "on",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_on_off(as_text(v)), s.fleet.adaptive_rate);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!shows_refinement(s, s.fleet.adaptive_rate)) return std::nullopt;
         return format_on_off(s.fleet.adaptive_rate);
       }},
      {.name = "fleet.adaptive_throttle",
       .flag = "--adaptive-throttle",
       .in = kLoadgen,
       .help = "K,WINDOW, the SRE book's client-side adaptive throttling, e.g. 2,2m",
       .type = "K,WINDOW",
       .example = "2,2m",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_adaptive_throttle(as_text(v)), s.fleet.adaptive_throttle);
           },
       .print =
           [](const Scenario& s) {
             return if_set(s.fleet.adaptive_throttle, format_adaptive_throttle);
           }},
      {.name = "fleet.retry_ratio",
       .flag = "--retry-ratio",
       .in = kLoadgen,
       .help = "RATIO,WINDOW, a per-client retry budget: retries at most RATIO of requests, e.g. "
               "0.1,2m",
       .type = "RATIO,WINDOW",
       .example = "0.1,2m",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_retry_ratio(as_text(v)), s.fleet.retry_ratio);
           },
       .print = [](const Scenario& s) { return if_set(s.fleet.retry_ratio, format_retry_ratio); }},
      {.name = "fleet.timeout",
       .flag = "--timeout",
       .in = kLoadgen,
       .help = "per-request timeout, e.g. 10s",
       .type = "DURATION",
       .default_text = "30s",
       .example = "10s",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_positive_duration(as_text(v)), s.fleet.timeout_ns);
           },
       .print = [](const Scenario& s) -> Printed { return format_duration(s.fleet.timeout_ns); }},
      {.name = "fleet.seed",
       .flag = "--seed",
       .in = kLoadgen,
       .help = "seed of the fleet's random streams",
       .type = "INT",
       .default_text = "1",
       .example = "7",
       .parse = [](Scenario& s, const json& v) { return set_seed(s.fleet.seed, v); },
       .print = [](const Scenario& s) -> Printed { return s.fleet.seed; }},
      {.name = "fleet.tokens",
       .flag = "--input-tokens",
       .old_flag = "--tokens",
       .in = kLoadgen,
       .help = "input tokens every request declares, sent in the provider's token header "
               "(X-Tokens): charged at admission against the provider's input-token allowance, "
               "token allowance and spend cap (simulate charges them the same way); without it, an "
               "LLM request's input tokens are the provider's estimate from the body (a token per "
               "4 bytes of its messages' text) and a plain request's the provider's default",
       .type = "INT",
       .example = "2000",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_count(as_text(v)), s.fleet.tokens); },
       .print = [](const Scenario& s) -> Printed {
         if (!s.fleet.tokens) return std::nullopt;
         return *s.fleet.tokens;
       }},
      {.name = "fleet.stream",
       .no_flag = "loadgen run and simulate take it as --stream, a flag without a value",
       .example = "on",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_on_off(as_text(v)), s.fleet.stream); },
       // Only when streamed, so a plain fleet's document reads as before.
       .print = [](const Scenario& s) -> Printed {
         if (!s.fleet.stream) return std::nullopt;
         return true;
       }},
      {.name = "fleet.max_tokens",
       .no_flag = "loadgen run and simulate take it as --max-tokens (with --stream, streamed)",
       .example = "400",
       .parse = set_max_tokens,
       .print = [](const Scenario& s) -> Printed {
         // Given without a stream, it makes the fleet's requests LLM requests all the same.
         if (!s.fleet.stream && !s.given.count("fleet.max_tokens")) return std::nullopt;
         return s.fleet.max_tokens;
       }},
      {.name = "fleet.hop_delay",
       .flag = "--hop-delay",
       .in = kLoadgen,
       .help = "occ mode, simulate only: one network hop, MEAN,SD of a normal folded at zero "
               "(10ms,2ms)",
       .type = "MEAN,SD",
       .default_text = "10ms,2ms",
       .example = "5ms,1ms",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_hop_delay(as_text(v)), s.fleet.hop_delay);
           },
       // Only in occ mode, so a plain scenario's document stays as it was.
       .print = [](const Scenario& s) -> Printed {
         if (!occ(s)) return std::nullopt;
         return format_hop_delay(s.fleet.hop_delay);
       }},
      // Provider
      {.name = "provider.allowance",
       .flag = "--allowance",
       .in = kBothBinaries,
       .help = "per-tenant allowance: N/s, N/min or N/h",
       .type = "RATE",
       .example = "100/s",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_rate(as_text(v)), s.provider.allowance); },
       .print = [](const Scenario& s) { return if_set(s.provider.allowance, format_rate); }},
      {.name = "provider.limiter",
       .flag = "--limiter",
       .in = kBothBinaries,
       .help = "per-second (a longer allowance enforced a second at a time: 4000/min admits "
               "about 67 a second), fixed-window, sliding-window or token-bucket",
       .type = "LIMITER",
       .default_text = "per-second",
       .example = "token-bucket",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_enum(kLimiters, as_text(v), "a limiter"), s.provider.limiter);
           },
       .print = [](const Scenario& s) -> Printed { return to_string(s.provider.limiter); }},
      {.name = "provider.burst",
       .flag = "--burst",
       .in = kBothBinaries,
       .help = "token bucket size, also per-second's (default: one second of allowance)",
       .type = "INT",
       .example = "20",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_count(as_text(v)), s.provider.burst); },
       .print = [](const Scenario& s) -> Printed {
         if (!s.provider.burst) return std::nullopt;
         return *s.provider.burst;
       },
       .check =
           [](const Scenario& s) {
             return problem_if(s.provider.burst && *s.provider.burst <= 0, "must be at least 1");
           }},
      {.name = "provider.capacity",
       .flag = "--capacity",
       .in = kBothBinaries,
       .help = "global capacity across tenants, answered 529: N/s",
       .type = "RATE",
       .example = "1000/s",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_rate(as_text(v)), s.provider.capacity); },
       .print = [](const Scenario& s) { return if_set(s.provider.capacity, format_rate); }},
      {.name = "provider.outages",
       .flag = "--outage",
       .in = kBothBinaries,
       .help = "START-END[:STATUS], STATUS 503 (default), 529, 500 or reset; repeatable; replaces "
               "the file's outages",
       .type = "START-END[:STATUS]",
       .example = "0s-30s:529",
       .list = true,
       .parse = [](Scenario& s, const json& v) { return set_outages(s.provider, v); },
       .print = [](const Scenario& s) -> Printed {
         json list = json::array();
         for (const auto& w : s.provider.outages) list.push_back(format_outage(w));
         return list;
       },
       .check = overlapping_outages},
      {.name = "provider.error_rate",
       .flag = "--error-rate",
       .in = kBothBinaries,
       .help = "fraction of requests answered 400",
       .type = "FRACTION",
       .default_text = "0",
       .example = "0.1",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_fraction(as_text(v)), s.provider.error_rate);
           },
       .print = [](const Scenario& s) -> Printed { return s.provider.error_rate; }},
      {.name = "provider.latency",
       .flag = "--latency",
       .in = kBothBinaries,
       .help = "service time: 5ms, or a uniform range 5ms-20ms",
       .type = "DURATION[-DURATION]",
       .default_text = "0s",
       .example = "5ms-20ms",
       .parse = [](Scenario& s, const json& v) -> Error {
         const auto latency = parse_latency(as_text(v));
         if (!latency) return latency.error();
         s.provider.latency_min_ns = latency->min_ns;
         s.provider.latency_max_ns = latency->max_ns;
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed {
         return format_latency(s.provider.latency_min_ns, s.provider.latency_max_ns);
       },
       .check =
           [](const Scenario& s) {
             const auto& p = s.provider;
             return problem_if(!(p.latency_min_ns >= 0 && p.latency_max_ns >= p.latency_min_ns),
                               "must be a duration >= 0 or a range LOW-HIGH");
           }},
      {.name = "provider.tenant_header",
       .flag = "--tenant-header",
       .in = kBothBinaries,
       .help = "header naming the tenant (default X-Api-Key); of an Authorization, fakeprovider "
               "takes the bearer token (or a SigV4 access key id)",
       .type = "HEADER",
       .default_text = "X-Api-Key",
       .example = "X-Key",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_header_name(as_text(v)), s.provider.tenant_header);
           },
       .print = [](const Scenario& s) -> Printed { return s.provider.tenant_header; },
       .check =
           [](const Scenario& s) {
             return problem_if(s.provider.tenant_header.empty(), "must not be empty");
           }},
      {.name = "provider.retry_after",
       .flag = "--retry-after",
       .in = kBothBinaries,
       .help = "send Retry-After on 429/503/529: on or off",
       .type = "on|off",
       .default_text = "on",
       .example = "off",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_on_off(as_text(v)), s.provider.retry_after);
           },
       .print = [](const Scenario& s) -> Printed { return format_on_off(s.provider.retry_after); }},
      {.name = "provider.ratelimit_headers",
       .flag = "--ratelimit-headers",
       .in = kBothBinaries,
       .help = "none, ietf, x-ratelimit, anthropic (anthropic-ratelimit-requests-*, -tokens-*) or "
               "openai (x-ratelimit-limit-requests, ...); default: the dialect's (fakeprovider "
               "--dialect), ietf",
       .type = "HEADERS",
       .example = "x-ratelimit",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_enum(kHeaderDialects, as_text(v), "a header dialect"),
                           s.provider.ratelimit_headers);
           },
       // The headers sent: the dialect's when none are given.
       .print = [](const Scenario& s) -> Printed {
         return to_string(ratelimit_headers_of(s.provider));
       }},
      {.name = "provider.dialect",
       .flag = "--dialect",
       .in = kFakeprovider,
       .help = "the API real SDKs expect: openai (x-ratelimit-*-requests, its error body, a 200 "
               "shaped as a chat completion), anthropic (anthropic-ratelimit-*, its errors, a "
               "Message), aws (a throttle is 400 ThrottlingException, the spend cap 400 "
               "ServiceQuotaExceededException) or generic (default: RateLimit-* and "
               "Anthropic-shaped errors); --ratelimit-headers, when given, overrides its "
               "rate-limit headers",
       .type = "DIALECT",
       .default_text = "generic",
       .example = "openai",
       .dialect = true,
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_enum(kDialects, as_text(v), "a dialect"), s.provider.dialect);
           },
       // Only when not the default, so a scenario without one reads as before.
       .print = [](const Scenario& s) -> Printed {
         if (s.provider.dialect == Dialect::kGeneric) return std::nullopt;
         return to_string(s.provider.dialect);
       }},
      {.name = "provider.retry_after_ms",
       .flag = "--retry-after-ms",
       .in = kFakeprovider,
       .help = "on: beside Retry-After (whole seconds) send retry-after-ms, the hint in "
               "milliseconds rounded up, which the OpenAI and Anthropic SDKs read first; off "
               "(default)",
       .type = "on|off",
       .default_text = "off",
       .example = "on",
       .dialect = true,
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_on_off(as_text(v)), s.provider.retry_after_ms);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!s.provider.retry_after_ms) return std::nullopt;
         return format_on_off(true);
       }},
      {.name = "provider.retry_after_jitter",
       .flag = "--retry-after-jitter",
       .in = kFakeprovider,
       .help =
           "FRACTION 0-1: stretch each rejection's hint by a factor drawn from [1, 1+FRACTION), "
           "per client and send from --provider-seed, so rejected clients are not all told the "
           "same "
           "time; never shorter than the hint; 0 (default) off",
       .type = "FRACTION",
       .default_text = "0",
       .example = "0.5",
       .dialect = true,
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_fraction(as_text(v)), s.provider.retry_after_jitter);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!(s.provider.retry_after_jitter > 0)) return std::nullopt;
         return s.provider.retry_after_jitter;
       }},
      {.name = "provider.seed",
       .flag = "--seed",
       .in = kBothBinaries,
       .help = "seed of the provider's injected errors and latency",
       .type = "INT",
       .default_text = "1",
       .example = "7",
       .parse = [](Scenario& s, const json& v) { return set_seed(s.provider.seed, v); },
       .print = [](const Scenario& s) -> Printed { return s.provider.seed; }},
      // LLM quotas
      {.name = "provider.token_allowance",
       .flag = "--token-allowance",
       .in = kBothBinaries,
       .help = "per-tenant tokens per window, e.g. 80000/min; each request costs the tokens it "
               "declares, answered 429 token_rate_exceeded",
       .type = "RATE",
       .example = "80000/min",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_rate(as_text(v)), s.provider.token_allowance);
           },
       .print = [](const Scenario& s) { return if_set(s.provider.token_allowance, format_rate); }},
      {.name = "provider.spend_cap",
       .flag = "--spend-cap",
       .in = kBothBinaries,
       .help = "tokens per tenant for the whole run, never refilled (POST /admin/reset restores "
               "it); beyond it 429 spend_cap_exceeded with x-should-retry: false and no "
               "Retry-After",
       .type = "INT",
       .example = "300000",
       .parse = [](Scenario& s,
                   const json& v) { return assign(parse_count(as_text(v)), s.provider.spend_cap); },
       .print = [](const Scenario& s) -> Printed {
         if (!s.provider.spend_cap) return std::nullopt;
         return *s.provider.spend_cap;
       }},
      {.name = "provider.token_header",
       .flag = "--token-header",
       .in = kBothBinaries,
       .help = "request header declaring the request's tokens (default X-Tokens)",
       .type = "HEADER",
       .default_text = "X-Tokens",
       .example = "X-T",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_header_name(as_text(v)), s.provider.token_header);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!uses_tokens(s)) return std::nullopt;
         return s.provider.token_header;
       }},
      {.name = "provider.token_field",
       .flag = "--token-field",
       .in = kBothBinaries,
       .help = "top-level JSON body field declaring the tokens when the header is absent, e.g. "
               "max_tokens (default: none; the body is not read)",
       .type = "NAME",
       .example = "max_tokens",
       .parse = [](Scenario& s, const json& v) -> Error {
         s.provider.token_field = as_text(v);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed {
         if (!uses_tokens(s) || s.provider.token_field.empty()) return std::nullopt;
         return s.provider.token_field;
       }},
      {.name = "provider.default_tokens",
       .flag = "--default-tokens",
       .in = kBothBinaries,
       .help = "tokens counted for a request that declares none (default 1)",
       .type = "INT",
       .default_text = "1",
       .example = "3",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_count(as_text(v)), s.provider.default_tokens);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!uses_tokens(s)) return std::nullopt;
         return s.provider.default_tokens;
       }},
      // LLM limits (docs/LLM.md): read from the LLM dialects' request bodies, in process.
      {.name = "provider.input_token_allowance",
       .flag = "--input-token-allowance",
       .in = kFakeprovider,
       .help = "LLM dialects: per-tenant input tokens per window, e.g. 40000/min, charged at "
               "admission: the request's declared count (--token-header), else estimated from "
               "the body's messages at one token per 4 bytes, rounded up; answered 429 "
               "input_token_rate_exceeded",
       .type = "RATE",
       .example = "40000/min",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_rate(as_text(v)), s.provider.input_token_allowance);
           },
       .print =
           [](const Scenario& s) { return if_set(s.provider.input_token_allowance, format_rate); }},
      {.name = "provider.output_token_allowance",
       .flag = "--output-token-allowance",
       .in = kFakeprovider,
       .help = "LLM dialects: per-tenant output tokens per window, e.g. 8000/min, reserved at the "
               "request's max_tokens when it is admitted and settled when its answer ends (the "
               "unused part given back then); answered 429 output_token_rate_exceeded",
       .type = "RATE",
       .example = "8000/min",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_rate(as_text(v)), s.provider.output_token_allowance);
           },
       .print =
           [](const Scenario& s) {
             return if_set(s.provider.output_token_allowance, format_rate);
           }},
      {.name = "provider.max_concurrent",
       .flag = "--max-concurrent",
       .in = kFakeprovider,
       .help = "LLM dialects: answers a tenant may have open at once (streams included); beyond "
               "them 429 concurrency_exceeded, retry hint from the earliest expected end",
       .type = "INT",
       .example = "4",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_count(as_text(v)), s.provider.max_concurrent);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!s.provider.max_concurrent) return std::nullopt;
         return *s.provider.max_concurrent;
       },
       .check =
           [](const Scenario& s) {
             return problem_if(s.provider.max_concurrent && *s.provider.max_concurrent <= 0,
                               "must be at least 1");
           }},
      {.name = "provider.models",
       .no_flag = "a scenario file's map of model names to their limits",
       .example = "{\"small\": {\"allowance\": \"1/min\", \"max_concurrent\": 2}}",
       .parse = set_models,
       .print = print_models},
      {.name = "provider.models_only",
       .no_flag = "a scenario file's, beside provider.models",
       .example = "on",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_on_off(as_text(v)), s.provider.models_only);
           },
       .print = [](const Scenario& s) -> Printed {
         if (!s.provider.models_only) return std::nullopt;
         return true;
       }},
      // occ mode
      {.name = "provider.mode",
       .flag = "--mode",
       .in = kBothBinaries,
       .help = "plain, or occ: one versioned row, GET /row then PUT /row with If-Match, 412 on a "
               "conflict",
       .type = "MODE",
       .default_text = "plain",
       .example = "occ",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_enum(kModes, as_text(v), "a mode"), s.provider.mode);
           },
       // Only in occ mode, so a plain scenario's document stays as it was.
       .print = [](const Scenario& s) -> Printed {
         if (!occ(s)) return std::nullopt;
         return to_string(s.provider.mode);
       }},
      // fakeprovider's own: in loadgen, --hop-delay is the simulator's network (fleet.hop_delay).
      {.name = "provider.hop_delay",
       .flag = "--hop-delay",
       .in = kFakeprovider,
       .help = "emulate loadgen simulate's network (occ mode's model) on this fast one: hold each "
               "request one hop, MEAN,SD of a normal folded at zero (e.g. 10ms,2ms, as simulate's "
               "--hop-delay), decide it then, and answer one more hop later; scenario time, scaled "
               "by --time-scale (default: none, decide on arrival)",
       .type = "MEAN,SD",
       .example = "10ms,2ms",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_hop_delay(as_text(v)), s.provider.hop_delay);
           },
       .print = [](const Scenario& s) { return if_set(s.provider.hop_delay, format_hop_delay); }},
      // LLM streams (docs/LLM.md): read only in the anthropic and openai dialects.
      {.name = "provider.first_token",
       .flag = "--first-token",
       .in = kBothBinaries,
       .help = "LLM dialects: time from a streamed answer's start to its first token (scenario "
               "time)",
       .type = "DURATION",
       .default_text = "0s",
       .example = "800ms",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_duration_ns(as_text(v)), s.provider.stream.first_token_ns);
           },
       .print = [](const Scenario& s) -> Printed {
         if (s.provider.stream.first_token_ns == 0) return std::nullopt;
         return format_duration(s.provider.stream.first_token_ns);
       }},
      {.name = "provider.token_rate",
       .flag = "--token-rate",
       .in = kBothBinaries,
       .help = "LLM dialects: tokens a second in each streamed answer, N/s (default: every token "
               "with the first)",
       .type = "RATE",
       .example = "20/s",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_rate(as_text(v)), s.provider.stream.token_rate);
           },
       .print =
           [](const Scenario& s) { return if_set(s.provider.stream.token_rate, format_rate); }},
      {.name = "provider.output_tokens",
       .flag = "--output-tokens",
       .in = kBothBinaries,
       .help = "LLM dialects: an answer's tokens, N or MIN-MAX (a seeded draw per request), "
               "bounded by the request's max_tokens (default: max_tokens)",
       .type = "N|MIN-MAX",
       .example = "50-400",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_token_range(as_text(v)), s.provider.stream.output_tokens);
           },
       .print =
           [](const Scenario& s) {
             return if_set(s.provider.stream.output_tokens, format_token_range);
           }},
      {.name = "provider.stream_errors",
       .flag = "--stream-errors",
       .in = kBothBinaries,
       .help = "LLM dialects: the share of streamed answers broken after a seeded number of "
               "tokens (anthropic: an overloaded_error event; openai: the connection cut)",
       .type = "FRACTION",
       .default_text = "0",
       .example = "0.05",
       .parse =
           [](Scenario& s, const json& v) {
             return assign(parse_fraction(as_text(v)), s.provider.stream.errors);
           },
       .print = [](const Scenario& s) -> Printed {
         if (s.provider.stream.errors == 0) return std::nullopt;
         return s.provider.stream.errors;
       }},
      {.name = "provider.upstream",
       .flag = "--upstream",
       .in = kFakeprovider,
       .help = "proxy mode: forward every request the provider admits to this service, "
               "http://HOST:PORT[/PREFIX] or https://..., and pass its answer back; refused "
               "ones are answered here and never reach it (docs/PROXY.md; default: none, "
               "answer 200 here)",
       .type = "URL",
       .example = "http://127.0.0.1:9000/api",
       .parse = [](Scenario& s, const json& v) -> Error {
         const auto url = parse_upstream_url(as_text(v));
         if (!url) return url.error();
         s.provider.upstream = as_text(v);
         return std::nullopt;
       },
       .print = [](const Scenario& s) -> Printed {
         if (s.provider.upstream.empty()) return std::nullopt;
         return s.provider.upstream;
       },
       .check =
           [](const Scenario& s) {
             return problem_if(
                 !s.provider.upstream.empty() && s.provider.mode == ProviderMode::kOcc,
                 "occ mode's row answers itself; give no upstream with mode occ");
           }},
  };
  return fields;
}

// The trace workload's file, and its flags only with it.
void check_trace(const Scenario& s, Problems& errors) {
  const auto& t = s.fleet.trace;
  if (trace(s) && t.path.empty())
    errors.push_back("fleet.trace: the trace workload needs a trace file, e.g. --trace access.log");
  for (const auto name : trace_field_names()) {
    if (!trace(s) && s.given.count(std::string(name)))
      errors.push_back(std::string(name) +
                       ": only the trace workload reads a trace; add --workload trace");
  }
  if (t.playback.to_ns && *t.playback.to_ns <= t.playback.from_ns)
    errors.push_back("fleet.to: " + format_duration(*t.playback.to_ns) +
                     " is not after fleet.from " + format_duration(t.playback.from_ns) +
                     "; give a window that ends after it starts");
}

// Settings only the LLM dialects' own answers read, here: refused where nothing would read
// them. why: what they do, after their names.
void need_llm_answers(const ProviderConfig& p, const std::string& settings, const char* why,
                      Problems& errors) {
  if (p.dialect != Dialect::kAnthropic && p.dialect != Dialect::kOpenAi)
    errors.push_back("provider.dialect: " + settings + " " + why +
                     "; give --dialect anthropic or --dialect openai (it is " +
                     std::string(to_string(p.dialect)) + ")");
  if (!p.upstream.empty())
    errors.push_back(
        "provider.upstream: in proxy mode the upstream writes the answers; leave out " + settings);
}

void check_streams(const ProviderConfig& p, Problems& errors) {
  if (p.stream == StreamConfig{}) return;
  need_llm_answers(p, "--first-token, --token-rate, --output-tokens and --stream-errors",
                   "shape LLM answers", errors);
}

// The LLM limits read LLM request bodies, in this process's limiters.
void check_llm_limits(const ProviderConfig& p, Problems& errors) {
  if (!p.input_token_allowance && !p.output_token_allowance && !p.max_concurrent) return;
  need_llm_answers(p, "--input-token-allowance, --output-token-allowance and --max-concurrent",
                   "are read from LLM request bodies", errors);
}

void check_models(const ProviderConfig& p, Problems& errors) {
  if (p.models_only && p.models.empty())
    errors.push_back(
        "provider.models_only: it refuses every model provider.models does not list; list "
        "some");
  if (p.models.empty()) return;
  need_llm_answers(p, "provider.models", "is read from LLM request bodies", errors);
  if (p.spend_cap) errors.push_back("provider.spend_cap: not yet supported with provider.models");
}

// The rules that involve more than one field: every broken one, each named by a field.
void check_across_fields(const Scenario& s, Problems& errors) {
  const auto& f = s.fleet;
  const auto need = [&](bool ok, const std::string& what) {
    if (!ok) errors.push_back(what);
  };
  const bool uses_base = f.strategy != StrategyKind::kNone;
  need(!uses_base || f.cap_ns >= f.base_ns,
       "fleet.cap: " + format_duration(f.cap_ns) + " is below fleet.base " +
           format_duration(f.base_ns) + "; the cap must be at least the base");
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
  need(!(f.open_model() && occ(s)),
       "fleet.workload: occ mode runs the storm and queue workloads, not steady or stages");
  check_trace(s, errors);
  check_streams(s.provider, errors);
  check_llm_limits(s.provider, errors);
  check_models(s.provider, errors);
  // A trace's arrivals are counted when it is read, and an empty one is refused then.
  need(f.item_count() > 0 || (trace(s) && !f.items),
       "fleet.items: the workload creates no items; give at least 1");
  need(f.item_count() <= kMaxItems, "fleet.items: at most " + std::to_string(kMaxItems) +
                                        " (a steady workload makes rate x duration, stages "
                                        "the area under the ramp)");
}

}  // namespace

std::string_view ScenarioField::section() const {
  const auto dot = name.find('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

std::string_view ScenarioField::key() const {
  const auto dot = name.find('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

const std::vector<ScenarioField>& scenario_fields() {
  return table();
}

const ScenarioField* find_field(std::string_view name) {
  for (const auto& f : table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const std::vector<std::string_view>& trace_field_names() {
  static const std::vector<std::string_view> names{"fleet.trace",
                                                   "fleet.trace_format",
                                                   "fleet.trace_tenant",
                                                   "fleet.trace_tokens",
                                                   "fleet.trace_reorder",
                                                   "fleet.trace_spread",
                                                   "fleet.speed",
                                                   "fleet.scale",
                                                   "fleet.scale_spread",
                                                   "fleet.from",
                                                   "fleet.to"};
  return names;
}

std::optional<std::string> set_field(Scenario& s, std::string_view field, const json& value) {
  if (const auto* f = find_field(field)) {
    if (value.is_null())
      return std::string(field) + ": null is not a value; leave the key out instead";
    if (auto error = f->parse(s, value)) return std::string(field) + ": " + *error;
    s.given.emplace(field);
    return std::nullopt;
  }
  // A section's key given outside it ("allowance" at the top, or in "fleet"): the section is
  // the fix.
  const auto key = field.substr(field.rfind('.') + 1);
  for (const std::string section : {"provider", "fleet"}) {
    const auto nested = section + "." + std::string(key);
    if (find_field(nested))
      return "unknown key '" + std::string(field) + "'; it belongs in the " + section +
             " section, as " + nested + ": {\"" + section + "\": {\"" + std::string(key) +
             "\": ...}}";
  }
  // The nearest key is the likely fix; fifty names are not.
  auto candidates = field_names();
  candidates.insert(candidates.end(), {"provider", "fleet"});  // the sections, for "fleets"
  const auto near = did_you_mean(field, candidates);
  return "unknown key '" + std::string(field) + "'" +
         (near.empty() ? "; the keys are listed in docs/SCENARIO.md" : near);
}

std::vector<std::string> field_names() {
  std::vector<std::string> names;
  for (const auto& f : table()) names.emplace_back(f.name);
  return names;
}

json to_json(const Scenario& s) {
  json out{{"provider", json::object()}, {"fleet", json::object()}};
  for (const auto& f : table()) {
    auto value = f.print(s);
    if (!value) continue;
    auto& section = f.section().empty() ? out : out[std::string(f.section())];
    section[std::string(f.key())] = std::move(*value);
  }
  return out;
}

std::vector<std::string> validate(const Scenario& s) {
  Problems errors;
  for (const auto& f : table()) {
    if (f.check == nullptr) continue;
    for (const auto& problem : f.check(s)) errors.push_back(std::string(f.name) + ": " + problem);
  }
  check_across_fields(s, errors);
  return errors;
}

}  // namespace stampede
