#include "cli/provider_args.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>
#include <utility>
#include <vector>

#include "binned_counts.hpp"
#include "dashboard_access.hpp"
#include "duration.hpp"
#include "enum_table.hpp"
#include "http_token.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// 16 bytes a slot, twice as many slots: 10 million items fill at most 512 MiB.
constexpr std::size_t kMaxItemsLimit = 10'000'000;
constexpr unsigned kMaxThreads = 64;  // of one process, and processes
// Room for a request's head and the upstream's answer's head together (docs/PROXY.md): the
// provider's own answers fit in far less.
constexpr std::size_t kProxyMemoryPerConnection = 16 * 1024;

constexpr EnumTable<ArrivalStamping, 3> kStampings{{{ArrivalStamping::kKernel, "kernel"},
                                                    {ArrivalStamping::kWatch, "watch"},
                                                    {ArrivalStamping::kRead, "read"}}};

void take_bin(const std::string& bin, ProviderRun& run, Errors& errors) {
  const auto bin_ns = take("--bin", parse_duration_ns(bin), errors);
  if (!bin_ns) return;
  if (*bin_ns < kNsPerMs || *bin_ns % kNsPerMs != 0 || *bin_ns > BinnedCounts::kMaxBinNs) {
    errors.push_back("--bin: '" + bin +
                     "' must be a whole number of milliseconds, from 1ms to 1h, e.g. 1s or 100ms");
    return;
  }
  run.bin_ns = *bin_ns;
}

// The data plane's and the admin API's addresses; the admin API beyond loopback needs a token.
void take_addresses(const ProviderArgs& a, ProviderRun& run, Errors& errors) {
  if (auto listen = take("--listen", parse_listen_address(a.listen), errors))
    run.data_plane.listen = *listen;
  const auto admin = take("--admin-listen", parse_listen_address(a.admin_listen), errors);
  if (!admin) return;
  run.admin_listen = *admin;
  run.admin_token = a.admin_token;
  add_error(token_needed_beyond_loopback("--admin-listen", a.admin_listen, *admin, a.admin_token,
                                         "--admin-token", "FAKEPROVIDER_ADMIN_TOKEN"),
            errors);
}

void take_counts(const ProviderArgs& a, ProviderRun& run, Errors& errors) {
  if (a.max_connections == 0) errors.push_back("--max-connections: must be at least 1");
  run.data_plane.max_connections = a.max_connections;
  for (const auto& [flag, n] : {std::pair{"--threads", a.threads}, {"--processes", a.processes}}) {
    if (n == 0 || n > kMaxThreads)
      errors.push_back(std::string(flag) + ": " + std::to_string(n) + " is not 1-" +
                       std::to_string(kMaxThreads));
  }
  run.data_plane.threads = a.threads;
  run.processes = a.processes;
}

void take_arrival_stamp(const std::string& name, ProviderRun& run, Errors& errors) {
  if (const auto stamping = find_enum(kStampings, name)) {
    run.data_plane.stamping = *stamping;
    return;
  }
  errors.push_back("--arrival-stamp: '" + name + "' is not kernel, watch or read");
}

void take_timeouts(const ProviderArgs& a, ProviderRun& run, Errors& errors) {
  if (const auto idle = take("--idle-timeout", parse_duration_ns(a.idle_timeout), errors)) {
    if (*idle < kNsPerSec || *idle % kNsPerSec != 0)
      errors.push_back("--idle-timeout: '" + a.idle_timeout +
                       "' must be a whole number of seconds, at least 1s, e.g. 600s");
    run.data_plane.idle_timeout_s = static_cast<unsigned>(*idle / kNsPerSec);
  }
  if (const auto header = take("--header-timeout", parse_duration_ns(a.header_timeout), errors))
    run.data_plane.header_timeout_ns = *header;
}

Parsed<std::string> header_flag(const std::string& flag, const std::string& name) {
  if (is_http_token(name)) return Parsed<std::string>::ok(name);
  return Parsed<std::string>::fail(flag + ": '" + name +
                                   "' is not a header name; expected letters, digits and "
                                   "!#$%&'*+-.^_`|~, e.g. X-Request-Id");
}

void take_attempt_header(const std::string& given, SendRules& rules, Errors& errors) {
  if (given.empty()) return;
  const auto name = take(header_flag("--attempt-header", given), errors);
  if (!name) return;
  for (const char* read : {"X-Attempt", "X-Stainless-Retry-Count", "amz-sdk-request"}) {
    if (ascii_iequals(*name, read)) {
      errors.push_back("--attempt-header: " + *name + " is read already, before it");
      return;
    }
  }
  rules.attempt_header = *name;
}

// Comma-separated; each name that is not one is its own error.
void take_item_headers(const std::string& given, SendRules& rules, Errors& errors) {
  rules.item_headers.clear();
  if (given == "none") return;
  for (std::size_t from = 0;;) {
    const auto comma = given.find(',', from);
    if (auto name = take(header_flag("--item-header", given.substr(from, comma - from)), errors))
      rules.item_headers.push_back(*name);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  const auto named = static_cast<std::size_t>(std::count(given.begin(), given.end(), ',')) + 1;
  if (named > kMaxItemHeaders)
    errors.push_back("--item-header: " + std::to_string(named) + " names; at most " +
                     std::to_string(kMaxItemHeaders));
}

void take_client_header(const std::string& given, SendRules& rules, Errors& errors) {
  rules.client_header.clear();
  if (given == "none") return;
  if (auto name = take(header_flag("--client-header", given), errors)) rules.client_header = *name;
}

void take_max_items(const std::string& n, SendRules& rules, Errors& errors) {
  std::size_t items = 0;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), items);
  if (n.empty() || ec != std::errc() || end != n.data() + n.size() || items < 1 ||
      items > kMaxItemsLimit) {
    errors.push_back("--max-items: '" + n + "' is not a whole number from 1 to " +
                     std::to_string(kMaxItemsLimit));
    return;
  }
  rules.max_items = items;
}

void take_hint_tolerance(const std::string& given, SendRules& rules, Errors& errors) {
  const auto tolerance = parse_duration_ns(given);
  if (!tolerance || *tolerance <= 0) {
    errors.push_back("--hint-tolerance: '" + given +
                     "' is not a duration above zero, e.g. 100ms or 1s");
    return;
  }
  rules.hint_tolerance_ns = *tolerance;
}

// --attempt-header, --item-header, --client-header, --max-items and --hint-tolerance; "none"
// turns a header rule off.
void take_send_rules(const ProviderArgs& a, SendRules& rules, Errors& errors) {
  take_attempt_header(a.attempt_header, rules, errors);
  take_item_headers(a.item_header, rules, errors);
  take_client_header(a.client_header, rules, errors);
  take_max_items(a.max_items, rules, errors);
  take_hint_tolerance(a.hint_tolerance, rules, errors);
}

// Proxy mode: --upstream is a scenario field, the headers stripped are the send rules'.
void take_upstream(const ProviderArgs& a, ProviderRun& run, Errors& errors) {
  UpstreamFlags flags = a.upstream;
  flags.url = run.scenario.provider.upstream;
  const auto& rules = run.send_rules;
  auto upstream = upstream_config_from(flags, {run.scenario.provider.tenant_header, "X-Attempt",
                                               rules.attempt_header, rules.client_header});
  errors.insert(errors.end(), upstream.errors.begin(), upstream.errors.end());
  if (!upstream.command) return;
  run.data_plane.upstream = std::move(*upstream.command);
  if (run.data_plane.upstream) run.data_plane.memory_per_connection = kProxyMemoryPerConnection;
}

// --http-server: one server serves every mode now; its names are still taken, so the scripts
// that named one run on. Any other name (the server earlier releases offered included) is an
// error that says what to do: served natively instead, a run meant to measure that server
// would measure another silently.
void check_http_server(const ProviderArgs& args, Errors& errors) {
  if (args.http_server == "auto" || args.http_server == "native") return;
  errors.push_back("--http-server: '" + args.http_server +
                   "' is not auto or native; the data plane's own server serves every mode: "
                   "drop --http-server (or give native)");
}

// --store: where, and the scenario's limits as its script enforces them (Redis is reached only
// when the server starts).
void take_store(const ProviderArgs& a, const std::optional<Scenario>& scenario, ProviderRun& run,
                Errors& errors) {
  if (a.store.empty()) return;
  const auto target = take("--store", parse_redis_url(a.store), errors);
  if (!scenario) return;
  const auto limits = take("--store", script_limits(scenario->provider), errors);
  if (target && limits) run.store = StoreSettings{*target, *limits};
}

// The LLM limits hold reservations in this process's provider until the answers end: a worker
// process or a shared store does not settle them yet.
void check_llm_limits_local(const ProviderArgs& a, const std::optional<Scenario>& scenario,
                            Errors& errors) {
  if (!scenario) return;
  const ProviderConfig& p = scenario->provider;
  const bool llm_limits = p.input_token_allowance || p.output_token_allowance || p.max_concurrent;
  for (const auto& [limits, set] :
       {std::pair{"--input-token-allowance, --output-token-allowance and --max-concurrent are",
                  llm_limits},
        {"provider.models is", !p.models.empty()}}) {
    for (const auto& [flag, used] :
         {std::pair{"--processes", a.processes > 1}, {"--store", !a.store.empty()}}) {
      if (set && used)
        errors.push_back(std::string(flag) + ": " + limits + " not yet supported with " + flag +
                         "; run one process without a store");
    }
  }
}

// At a stop: at most their longest service time (and two hops, each at most six standard
// deviations long in all likelihood), and a few seconds more.
std::int64_t stop_wait_ns(const ProviderConfig& p, double time_scale) {
  const std::int64_t hops_ns =
      p.hop_delay ? 2 * (p.hop_delay->mean_ns + 6 * p.hop_delay->sd_ns) : 0;
  return ScenarioClock(time_scale).wall_ns(std::max(p.latency_min_ns, p.latency_max_ns) + hops_ns) +
         5 * kNsPerSec;
}

// What needs the scenario: the proxy's settings, the stop's wait.
void take_scenario(const ProviderArgs& a, const std::optional<Scenario>& scenario,
                   std::optional<double> scale, ProviderRun& run, Errors& errors) {
  if (scenario) {
    run.scenario = *scenario;
    take_upstream(a, run, errors);
  }
  check_http_server(a, errors);
  if (scenario && scale) run.stop_wait_ns = stop_wait_ns(scenario->provider, *scale);
}

// Before serving: a path found bad at exit would lose every arrival recorded.
void take_outputs(const ProviderArgs& a, ProviderRun& run, Errors& errors) {
  check_each_output({{"--arrivals-out", a.arrivals_out},
                     {"--stats-out", a.stats_out},
                     {"--results-out", a.results_out}},
                    errors);
  run.arrivals_out = a.arrivals_out;
  run.stats_out = a.stats_out;
  run.results_out = a.results_out;
}

}  // namespace

Checked<ProviderRun> check_provider_run(const ProviderArgs& a) {
  Errors errors;
  ProviderRun run;
  const auto scenario =
      take(build_scenario_from_flags(a.scenario, a.values, provider_flag), errors);
  const auto scale = take("--time-scale", parse_time_scale(a.time_scale), errors);
  if (scale) run.time_scale = *scale;
  take_bin(a.bin, run, errors);
  take_addresses(a, run, errors);
  take_counts(a, run, errors);
  take_arrival_stamp(a.arrival_stamp, run, errors);
  take_timeouts(a, run, errors);
  take_send_rules(a, run.send_rules, errors);
  take_scenario(a, scenario, scale, run, errors);
  take_outputs(a, run, errors);
  take_store(a, scenario, run, errors);
  check_llm_limits_local(a, scenario, errors);
  return checked(std::move(run), std::move(errors));
}

}  // namespace stampede
