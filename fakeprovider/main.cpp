#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "dashboard_access.hpp"
#include "duration.hpp"
#include "generated/version.hpp"
#include "http_token.hpp"
#include "json_text.hpp"
#include "listen_address.hpp"
#include "model/send_attribution.hpp"
#include "nearest_name.hpp"
#include "one_line.hpp"
#include "output_path.hpp"
#include "processes/data_plane_workers.hpp"
#include "processes/decision_server.hpp"
#include "results.hpp"
#include "scenario_clock.hpp"
#include "scenario_flags.hpp"
#include "server/admin_api.hpp"
#include "server/data_plane.hpp"
#include "server/locked_provider.hpp"
#include "store/redis_quota.hpp"
#include "upstream/upstream_flags.hpp"

using namespace stampede;

namespace {

constexpr int kUsageError = 2;
constexpr int kRuntimeError = 1;
// Descriptors beyond the connections: listen sockets, epoll, the admin API, files.
constexpr rlim_t kSpareDescriptors = 64;
// 16 bytes a slot, twice as many slots: 10 million items fill at most 512 MiB.
constexpr std::size_t kMaxItemsLimit = 10'000'000;
// Room for the upstream's headers, which libmicrohttpd writes out of the connection's memory:
// the provider's own answers fit in far less.
constexpr std::size_t kProxyMemoryPerConnection = 16 * 1024;

struct Args {
  std::string scenario;
  FlagValues values;  // field -> flag values
  std::string listen = "127.0.0.1:8080";
  std::string admin_listen = "127.0.0.1:8081";
  std::string time_scale = "1";
  std::string bin = "1s";
  std::string arrivals_out;
  std::string stats_out;
  std::string results_out;
  std::string admin_token;
  unsigned max_connections = 16000;
  unsigned threads = 2;
  unsigned processes = 1;
  std::string arrival_stamp = "kernel";
  std::string http_server = "auto";
  std::string idle_timeout = "600s";
  std::string header_timeout = "10s";
  std::string store;
  std::string attempt_header;
  std::string item_header = "X-Request-Id,amz-sdk-invocation-id,Idempotency-Key";
  std::string client_header = "X-Client-Id";
  std::string max_items = "1000000";
  std::string hint_tolerance = "100ms";
  UpstreamFlags upstream;  // its url is the scenario's provider.upstream (--upstream)
};

// fakeprovider takes the provider section's fields, and lists the wire's own under "Dialect"
// (loadgen simulate has no wire: docs/ADMIN_API.md#dialects).
void add_scenario_flags(CLI::App& app, Args& args) {
  app.add_option("--scenario", args.scenario,
                 "scenario file (JSON); only its provider section is used; flags override it")
      ->type_name("FILE")
      ->check(CLI::ExistingFile.description(""));
  for (const auto& f : scenario_fields()) {
    if ((f.in & kFakeprovider) == 0) continue;
    auto* opt =
        app.add_option(std::string(f.flag), args.values[std::string(f.name)], std::string(f.help));
    opt->group(f.dialect ? "Dialect" : "Provider")->type_name(std::string(f.type));
    if (!f.default_text.empty()) opt->default_str(std::string(f.default_text));
    if (!f.list) opt->expected(1);
  }
}

// Proxy mode's flags beside --upstream (a scenario field: provider.upstream).
void add_proxy_flags(CLI::App& app, UpstreamFlags& f) {
  const auto* group = "Proxy (with --upstream; docs/PROXY.md)";
  app.add_option("--upstream-cacert", f.cacert,
                 "https upstream: trust this CA bundle (PEM) instead of the system's")
      ->type_name("FILE")
      ->group(group);
  app.add_flag("--upstream-insecure", f.insecure,
               "https upstream: check neither its certificate nor its name (a test bench only)")
      ->group(group);
  app.add_option("--upstream-timeout", f.timeout,
                 "how long the upstream may be silent, before its answer (then 504) or within "
                 "it (then the stream is cut), and a request may wait for a pooled connection "
                 "(then 503); whole seconds")
      ->type_name("DURATION")
      ->capture_default_str()
      ->group(group);
  app.add_option("--upstream-connections", f.connections,
                 "keep-alive connections to the upstream, per data-plane thread; requests "
                 "beyond wait for one, up to --upstream-timeout")
      ->type_name("N")
      ->capture_default_str()
      ->group(group);
  app.add_flag("--upstream-strip-headers", f.strip_headers,
               "do not forward the headers stampede reads (the tenant header unless it is "
               "Authorization, X-Attempt, --attempt-header, --client-header); by default they "
               "go on as they came")
      ->group(group);
  app.add_option("--max-body", f.max_body,
                 "the longest request body forwarded; a longer one is answered 413 and never "
                 "reaches the upstream")
      ->type_name("BYTES")
      ->capture_default_str()
      ->group(group);
}

Parsed<Scenario> scenario_from(const Args& args) {
  return build_scenario_from_flags(args.scenario, args.values);
}

int fail(int code, const std::string& message) {
  std::cerr << "fakeprovider: " << one_line(message) << "\n";
  return code;
}

Parsed<std::string> header_flag(const std::string& flag, const std::string& name) {
  if (is_http_token(name)) return Parsed<std::string>::ok(name);
  return Parsed<std::string>::fail(flag + ": '" + name +
                                   "' is not a header name; expected letters, digits and "
                                   "!#$%&'*+-.^_`|~, e.g. X-Request-Id");
}

// --attempt-header, --item-header, --client-header, --max-items and --hint-tolerance; "none"
// turns a header rule off.
Parsed<SendRules> send_rules_from(const Args& args) {
  using Result = Parsed<SendRules>;
  SendRules rules;
  if (!args.attempt_header.empty()) {
    const auto name = header_flag("--attempt-header", args.attempt_header);
    if (!name) return Result::fail(name.error());
    for (const char* read : {"X-Attempt", "X-Stainless-Retry-Count", "amz-sdk-request"}) {
      if (ascii_iequals(*name, read))
        return Result::fail("--attempt-header: " + *name + " is read already, before it");
    }
    rules.attempt_header = *name;
  }
  rules.item_headers.clear();
  if (args.item_header != "none") {
    std::size_t from = 0;
    while (true) {
      const auto comma = args.item_header.find(',', from);
      const auto name = header_flag("--item-header", args.item_header.substr(from, comma - from));
      if (!name) return Result::fail(name.error());
      rules.item_headers.push_back(*name);
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    if (rules.item_headers.size() > kMaxItemHeaders)
      return Result::fail("--item-header: " + std::to_string(rules.item_headers.size()) +
                          " names; at most " + std::to_string(kMaxItemHeaders));
  }
  rules.client_header.clear();
  if (args.client_header != "none") {
    const auto name = header_flag("--client-header", args.client_header);
    if (!name) return Result::fail(name.error());
    rules.client_header = *name;
  }
  const std::string& n = args.max_items;
  std::size_t items = 0;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), items);
  if (n.empty() || ec != std::errc() || end != n.data() + n.size() || items < 1 ||
      items > kMaxItemsLimit)
    return Result::fail("--max-items: '" + n + "' is not a whole number from 1 to " +
                        std::to_string(kMaxItemsLimit));
  rules.max_items = items;
  const auto tolerance = parse_duration_ns(args.hint_tolerance);
  if (!tolerance || *tolerance <= 0)
    return Result::fail("--hint-tolerance: '" + args.hint_tolerance +
                        "' is not a duration above zero, e.g. 100ms or 1s");
  rules.hint_tolerance_ns = *tolerance;
  return Result::ok(std::move(rules));
}

// Each connection is a descriptor: raise the soft limit to what --max-connections needs, and
// the hard one too when allowed. Returns the connections the limit allows.
unsigned raise_descriptor_limit(unsigned max_connections) {
  const rlim_t need = max_connections + kSpareDescriptors;
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur >= need) return max_connections;
  rlimit want{need, std::max(need, lim.rlim_max)};
  if (setrlimit(RLIMIT_NOFILE, &want) == 0) return max_connections;
  want = {lim.rlim_max, lim.rlim_max};
  setrlimit(RLIMIT_NOFILE, &want);
  getrlimit(RLIMIT_NOFILE, &lim);
  const auto allowed = static_cast<unsigned>(
      lim.rlim_cur > kSpareDescriptors ? lim.rlim_cur - kSpareDescriptors : 0);
  std::cerr << "fakeprovider: warning: --max-connections " << max_connections << " needs " << need
            << " file descriptors but RLIMIT_NOFILE allows " << lim.rlim_cur << "; serving at most "
            << allowed << " connections (raise it with 'ulimit -n' or as root)\n";
  return allowed;
}

std::string outcome_summary(const nlohmann::json& totals) {
  std::string out;
  for (const auto& name : kOutcomeNames) {
    const auto n = totals.at(std::string(name)).get<std::int64_t>();
    if (n == 0) continue;
    out += (out.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(n);
  }
  return out.empty() ? "none" : out;
}

// --http-server: auto is native unless a mode that needs libmicrohttpd's is on.
Parsed<HttpServer> http_server_from(const Args& args, bool upstream) {
  using Result = Parsed<HttpServer>;
  const char* needs = upstream              ? "proxy mode (--upstream)"
                      : !args.store.empty() ? "--store"
                                            : nullptr;
  if (args.http_server == "libmicrohttpd") return Result::ok(HttpServer::kLibmicrohttpd);
  if (args.http_server == "auto")
    return Result::ok(needs ? HttpServer::kLibmicrohttpd : HttpServer::kNative);
  if (args.http_server != "native") {
    return Result::fail("--http-server: '" + args.http_server +
                        "' is not auto, native or libmicrohttpd");
  }
  if (needs) {
    return Result::fail(std::string("--http-server native: ") + needs +
                        " is served by libmicrohttpd only; leave --http-server out (auto) or "
                        "give --http-server libmicrohttpd");
  }
  return Result::ok(HttpServer::kNative);
}

// --store: the quota layers in Redis, joined (its scenario clock, or a new one from now).
// Null and no error without --store.
Parsed<std::unique_ptr<RedisQuota>> open_store(const Args& args, const ProviderConfig& config,
                                               double time_scale) {
  using Result = Parsed<std::unique_ptr<RedisQuota>>;
  if (args.store.empty()) return Result::ok(nullptr);
  const auto target = parse_redis_url(args.store);
  if (!target) return Result::fail("--store: " + target.error());
  const auto limits = script_limits(config);
  if (!limits) return Result::fail("--store: " + limits.error());
  auto store = std::make_unique<RedisQuota>(*target, *limits, time_scale);
  if (auto e = store->connect()) return Result::fail("--store: " + *e);
  if (!store->join(ScenarioClock::unix_ns())) {
    return Result::fail("--store: Redis at " + target->where() + " did not answer");
  }
  return Result::ok(std::move(store));
}

// GET /admin/settings: the provider section this process decides by (with --processes, for
// every worker on the one port), the data plane's address, and the store the counters live in
// (replicas sharing one each decide by their own section: give them the same scenario).
nlohmann::json settings_document(const Args& args, const Scenario& scenario,
                                 const ListenAddress& listen, int port, double time_scale) {
  const auto store = parse_redis_url(args.store);
  return {{"listen", listen.url(port)},
          {"port", port},
          {"processes", args.processes},
          {"store", store ? nlohmann::json("redis://" + store->where()) : nlohmann::json(nullptr)},
          {"time_scale", time_scale},
          {"provider", to_json(scenario).at("provider")}};
}

// How long requests in flight may take to finish at a stop: at most their longest service
// time (and two hops, each at most six standard deviations long in all likelihood), and a few
// seconds more.
std::int64_t stop_wait_ns(const ProviderConfig& p, double time_scale) {
  const std::int64_t hops_ns =
      p.hop_delay ? 2 * (p.hop_delay->mean_ns + 6 * p.hop_delay->sd_ns) : 0;
  return ScenarioClock(time_scale).wall_ns(std::max(p.latency_min_ns, p.latency_max_ns) + hops_ns) +
         5 * kNsPerSec;
}

// The data plane in this process, or in --processes workers that ask this one to decide.
class DataPlaneHost {
 public:
  // Before any thread starts: the workers are forked here.
  std::optional<std::string> fork_workers(const WorkersConfig& config) {
    auto started = start_data_plane_workers(config);
    if (!started) return started.error();
    workers_.emplace(std::move(*started));
    return std::nullopt;
  }
  std::optional<std::string> start(const DataPlaneConfig& config, LockedProvider& provider) {
    if (workers_) {
      decisions_.emplace(provider, workers_->group.take_channels());
      return std::nullopt;
    }
    plane_.emplace(config, provider);
    return plane_->start();
  }
  int port() const { return workers_ ? workers_->port : plane_->port(); }
  // The workers finish what they hold, asking for decisions until they exit.
  std::optional<std::string> stop(std::int64_t max_wait_ns) {
    if (plane_) plane_->stop(max_wait_ns);
    if (!workers_) return std::nullopt;
    workers_->group.signal_all(SIGTERM);
    auto failed = workers_->group.wait();
    decisions_->join();
    return failed;
  }

 private:
  std::optional<DataPlaneWorkers> workers_;
  std::optional<DecisionServer> decisions_;
  std::optional<DataPlane> plane_;
};

int serve(const Args& args) {
  auto scenario = scenario_from(args);
  if (!scenario) return fail(kUsageError, scenario.error());
  const auto scale = parse_time_scale(args.time_scale);
  if (!scale) return fail(kUsageError, "--time-scale: " + scale.error());
  const auto bin_ns = parse_duration_ns(args.bin);
  if (!bin_ns) return fail(kUsageError, "--bin: " + bin_ns.error());
  if (*bin_ns < kNsPerMs || *bin_ns % kNsPerMs != 0 || *bin_ns > BinnedCounts::kMaxBinNs) {
    return fail(kUsageError, "--bin: '" + args.bin +
                                 "' must be a whole number of milliseconds, "
                                 "from 1ms to 1h, e.g. 1s or 100ms");
  }
  const auto listen = parse_listen_address(args.listen);
  if (!listen) return fail(kUsageError, "--listen: " + listen.error());
  const auto admin_listen = parse_listen_address(args.admin_listen);
  if (!admin_listen) return fail(kUsageError, "--admin-listen: " + admin_listen.error());
  if (auto e = token_needed_beyond_loopback("--admin-listen", args.admin_listen, *admin_listen,
                                            args.admin_token, "--admin-token",
                                            "FAKEPROVIDER_ADMIN_TOKEN"))
    return fail(kUsageError, *e);
  if (args.max_connections == 0) {
    return fail(kUsageError, "--max-connections: must be at least 1");
  }
  if (args.threads == 0 || args.threads > 64) {
    return fail(kUsageError, "--threads: " + std::to_string(args.threads) + " is not 1-64");
  }
  if (args.processes == 0 || args.processes > 64) {
    return fail(kUsageError, "--processes: " + std::to_string(args.processes) + " is not 1-64");
  }
  const std::map<std::string, ArrivalStamping> stampings = {{"kernel", ArrivalStamping::kKernel},
                                                            {"watch", ArrivalStamping::kWatch},
                                                            {"read", ArrivalStamping::kRead}};
  const auto stamping = stampings.find(args.arrival_stamp);
  if (stamping == stampings.end()) {
    return fail(kUsageError,
                "--arrival-stamp: '" + args.arrival_stamp + "' is not kernel, watch or read");
  }
  const auto idle_timeout = parse_duration_ns(args.idle_timeout);
  if (!idle_timeout) return fail(kUsageError, "--idle-timeout: " + idle_timeout.error());
  if (*idle_timeout < kNsPerSec || *idle_timeout % kNsPerSec != 0) {
    return fail(kUsageError, "--idle-timeout: '" + args.idle_timeout +
                                 "' must be a whole number of seconds, at least 1s, e.g. 600s");
  }
  const auto header_timeout = parse_duration_ns(args.header_timeout);
  if (!header_timeout) return fail(kUsageError, "--header-timeout: " + header_timeout.error());
  const auto send_rules = send_rules_from(args);
  if (!send_rules) return fail(kUsageError, send_rules.error());
  UpstreamFlags upstream_flags = args.upstream;
  upstream_flags.url = scenario->provider.upstream;
  const auto upstream =
      upstream_config_from(upstream_flags, {scenario->provider.tenant_header, "X-Attempt",
                                            send_rules->attempt_header, send_rules->client_header});
  if (!upstream) return fail(kUsageError, upstream.error());
  const auto http_server = http_server_from(args, upstream->has_value());
  if (!http_server) return fail(kUsageError, http_server.error());
  // Before serving: a path found bad at exit would lose every arrival recorded.
  if (auto e = check_output_flags({{"--arrivals-out", args.arrivals_out},
                                   {"--stats-out", args.stats_out},
                                   {"--results-out", args.results_out}}))
    return fail(kUsageError, *e);

  auto store = open_store(args, scenario->provider, *scale);
  if (!store) return fail(kUsageError, store.error());

  // Every thread (and worker) started from here on inherits the mask; this one waits for the
  // signals, and for a worker's end.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (args.processes > 1) sigaddset(&stop_signals, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  DataPlaneConfig data_config;
  data_config.listen = *listen;
  data_config.max_connections = raise_descriptor_limit(args.max_connections);
  data_config.threads = args.threads;
  data_config.stamping = stamping->second;
  data_config.http_server = *http_server;
  data_config.idle_timeout_s = static_cast<unsigned>(*idle_timeout / kNsPerSec);
  data_config.header_timeout_ns = *header_timeout;
  data_config.upstream = *upstream;
  RefusalTally refusals;  // before the workers fork: they share it
  data_config.turned_away = &refusals.count();
  if (*upstream) data_config.memory_per_connection = kProxyMemoryPerConnection;
  const std::int64_t stop_wait = stop_wait_ns(scenario->provider, *scale);
  DataPlaneHost data_plane;
  if (args.processes > 1) {
    if (auto e = data_plane.fork_workers(
            {data_config, scenario->provider, *send_rules, *scale, args.processes, stop_wait}))
      return fail(kRuntimeError, *e);
  }
  LockedProvider provider({scenario->provider, *scale, *bin_ns,
                           /*keep_log=*/!args.arrivals_out.empty(),
                           std::size_t{args.threads} * args.processes, store->get(), *send_rules,
                           &refusals.count()});
  if (auto e = data_plane.start(data_config, provider)) return fail(kRuntimeError, *e);
  AdminApi admin({*admin_listen, args.admin_token,
                  settings_document(args, *scenario, *listen, data_plane.port(), *scale)},
                 provider);
  if (auto e = admin.start()) return fail(kRuntimeError, *e);

  std::cout << "listening on " << listen->url(data_plane.port()) << "\n"
            << "admin on " << admin_listen->url(admin.port()) << "\n";
  if (args.processes > 1)
    std::cout << "serving the data plane from " << args.processes << " processes\n";
  if (*upstream) std::cout << "forwarding what is admitted to " << (*upstream)->url.base() << "\n";
  std::cout << std::flush;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);

  int code = 0;
  if (signal_number == SIGCHLD) {
    code = fail(kRuntimeError, "a data-plane worker ended before the provider was stopped");
  }
  if (auto failed = data_plane.stop(stop_wait)) code = fail(kRuntimeError, *failed);
  admin.stop();

  if (!args.arrivals_out.empty()) {
    if (auto e = write_output(args.arrivals_out, provider.arrivals_csv())) {
      code = fail(kRuntimeError, "--arrivals-out: " + *e);
    }
  }
  const auto stats = provider.stats_document();
  if (!args.stats_out.empty()) {
    if (auto e = write_output(args.stats_out, stats->text())) {
      code = fail(kRuntimeError, "--stats-out: " + *e);
    }
  }
  if (!args.results_out.empty()) {
    if (auto e = write_output(args.results_out, json_text(provider.results_json(), 1) + "\n")) {
      code = fail(kRuntimeError, "--results-out: " + *e);
    }
  }
  std::cerr << "fakeprovider: stopped on " << strsignal(signal_number) << " after "
            << stats->head.at("requests").get<std::int64_t>() << " requests ("
            << outcome_summary(stats->head.at("totals")) << ")\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "fakeprovider: a rate-limited HTTP provider that enforces allowances, outages and "
      "capacity\nthe way real APIs do, and records the arrival time of every request on its "
      "own clock.\nAny method and path; the admin API (stats, metrics, reset, outages) has its "
      "own port."};
  app.set_version_flag("--version", std::string("fakeprovider ") + kVersion);
  Args args;
  add_scenario_flags(app, args);
  app.add_option("--listen", args.listen, "data plane HOST:PORT; port 0 picks a free one")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  app.add_option("--admin-listen", args.admin_listen,
                 "admin API HOST:PORT (stats, metrics, the live dashboard at /dashboard); "
                 "beyond loopback it needs --admin-token")
      ->type_name("HOST:PORT")
      ->capture_default_str();
  app.add_option("--time-scale", args.time_scale,
                 "wall seconds per scenario second, e.g. 0.1 replays ten times faster")
      ->type_name("NUMBER")
      ->capture_default_str();
  app.add_option("--bin", args.bin, "histogram bin of the stats, in scenario time")
      ->type_name("DURATION")
      ->capture_default_str();
  app.add_option("--arrivals-out", args.arrivals_out,
                 "on exit, write every arrival here (CSV: "
                 "t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream; t_ns when "
                 "its bytes came in, decided_t_ns the time its limiters used, upstream what the "
                 "upstream answered a forwarded one)")
      ->type_name("FILE");
  app.add_option("--stats-out", args.stats_out, "on exit, write the final stats JSON here")
      ->type_name("FILE");
  app.add_option("--results-out", args.results_out,
                 "on exit (SIGINT, SIGTERM), write the provider's own results document here: "
                 "the results schema loadgen report draws and loadgen gate checks, with each "
                 "item's fate, its waits against the Retry-After, and the lockstep figure "
                 "(docs/RESULTS.md; also GET /admin/results) (default: none)")
      ->type_name("FILE");
  app.add_option("--admin-token", args.admin_token,
                 "require 'Authorization: Bearer TOKEN' on the admin API")
      ->type_name("TOKEN")
      ->envname("FAKEPROVIDER_ADMIN_TOKEN");
  app.add_option("--max-connections", args.max_connections,
                 "open connections the data plane holds at once (each process's, with "
                 "--processes)")
      ->type_name("INT")
      ->capture_default_str();
  app.add_option("--threads", args.threads,
                 "data plane threads (of each process), each with its own epoll loop")
      ->type_name("INT")
      ->capture_default_str();
  app.add_option("--processes", args.processes,
                 "serve the data plane from this many processes on one port (SO_REUSEPORT), "
                 "each holding up to --max-connections, for more connections than one process "
                 "may open; this one decides for them all: one allowance, one admin API, one "
                 "record (docs/SHARDING.md)")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--arrival-stamp", args.arrival_stamp,
                 "kernel: stamp an arrival with the kernel's receive stamp of its first bytes "
                 "(exact in a burst); watch: when a watcher thread sees them come in (exact in a "
                 "burst, for more CPU per request); read: when a server thread reads it (late in "
                 "a burst)")
      ->type_name("kernel|watch|read")
      ->capture_default_str();
  app.add_option("--http-server", args.http_server,
                 "native: the data plane's own HTTP/1.1 server (the least CPU a request); "
                 "libmicrohttpd: GNU libmicrohttpd's, which proxy mode (--upstream) and --store "
                 "need; auto (default): native unless one of those is given")
      ->type_name("auto|native|libmicrohttpd")
      ->capture_default_str();
  app.add_option("--idle-timeout", args.idle_timeout,
                 "close a connection silent this long (wall time; longer than any backoff a "
                 "client sleeps on its open connection)")
      ->type_name("DURATION")
      ->capture_default_str();
  app.add_option("--header-timeout", args.header_timeout,
                 "close a connection whose request headers, or then its body, are incomplete this "
                 "long after its first byte (wall time; slowloris); 0s turns it off; the headers' "
                 "limit needs --arrival-stamp kernel or watch")
      ->type_name("DURATION")
      ->capture_default_str();
  app.add_option("--attempt-header", args.attempt_header,
                 "a header in which your clients send their send number (1 = the first send), "
                 "read when a request has none of X-Attempt, X-Stainless-Retry-Count (0 = the "
                 "first send) and amz-sdk-request (attempt=N) (default: none)")
      ->type_name("HEADER")
      ->group("Send numbers");
  app.add_option("--item-header", args.item_header,
                 "otherwise, the headers (comma-separated, first present wins) that name a "
                 "request's item: its n-th arrival is its n-th send; none: off")
      ->type_name("HEADER,...")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option("--client-header", args.client_header,
                 "otherwise, the header that names the client, for one item per client: its "
                 "n-th arrival is its n-th send (Authorization: the bearer token; the tenant "
                 "header will do too); also the arrival log's client_id; none: off")
      ->type_name("HEADER")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option("--max-items", args.max_items,
                 "items and clients numbered by counting at once (at most 10000000); "
                 "arrivals of any further one are unattributed")
      ->type_name("INT")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option("--hint-tolerance", args.hint_tolerance,
                 "a followed item's retry came at its Retry-After (the results' hint_share) "
                 "when its wait was within this of it, in scenario time; widen it for a "
                 "fleet across a network or on a loaded machine")
      ->type_name("DURATION")
      ->group("Send numbers")
      ->capture_default_str();
  app.add_option(
         "--store", args.store,
         "redis://HOST[:PORT][/PREFIX]: keep capacity, the request and token "
         "allowances and the spend cap in Redis (one atomic script per batch of decisions), so "
         "replicas given the same store and scenario enforce one allowance and one "
         "spend cap per tenant on one scenario clock; keys start with PREFIX "
         "(default stampede). Without it they live in this process. Arrivals are still "
         "recorded per replica")
      ->type_name("URL");
  add_proxy_flags(app, args.upstream);
  app.footer(
      "Example:\n"
      "  fakeprovider --allowance 100/s --outage 0s-30s:503 --listen 127.0.0.1:8080 "
      "--arrivals-out arrivals.csv\n"
      "  curl -i http://127.0.0.1:8080/v1/messages; curl http://127.0.0.1:8081/admin/stats\n"
      "  fakeprovider --mode occ &  curl -i http://127.0.0.1:8080/row; "
      "curl -i -X PUT -H 'If-Match: \"0\"' http://127.0.0.1:8080/row");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A mistyped flag: the nearest name is the likely fix, not CLI11's "not expected".
    std::vector<std::string> known;
    for (const auto* opt : app.get_options()) {
      for (const auto& l : opt->get_lnames()) known.push_back("--" + l);
      for (const auto& n : opt->get_snames()) known.push_back("-" + n);
    }
    const auto flag = unknown_flag({argv + 1, argv + argc}, known);
    return fail(kUsageError,
                (flag ? *flag : std::string(e.what())) + "; run 'fakeprovider --help'");
  }
  return serve(args);
}
