#include "cli/provider_command.hpp"

#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/data_plane_host.hpp"
#include "duration.hpp"
#include "exit_codes.hpp"
#include "json_text.hpp"
#include "one_line.hpp"
#include "output_path.hpp"
#include "recording/stats_document.hpp"
#include "results.hpp"
#include "scenario_clock.hpp"
#include "server/admin_api.hpp"
#include "server/connection_refusals.hpp"
#include "server/locked_provider.hpp"
#include "store/redis_quota.hpp"

namespace stampede {
namespace {

constexpr int kRuntimeError = 1;
// Descriptors beyond the connections: listen sockets, epoll, the admin API, files.
constexpr rlim_t kSpareDescriptors = 64;

int fail(int code, const std::string& message) {
  std::cerr << "fakeprovider: " << one_line(message) << "\n";
  return code;
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

// --store: the quota layers in Redis, joined (its scenario clock, or a new one from now).
// Null and no error without --store.
Parsed<std::unique_ptr<RedisQuota>> open_store(const std::optional<StoreSettings>& settings,
                                               double time_scale) {
  using Result = Parsed<std::unique_ptr<RedisQuota>>;
  if (!settings) return Result::ok(nullptr);
  auto store = std::make_unique<RedisQuota>(settings->target, settings->limits, time_scale);
  if (auto e = store->connect()) return Result::fail("--store: " + *e);
  if (!store->join(ScenarioClock::unix_ns()))
    return Result::fail("--store: Redis at " + settings->target.where() + " did not answer");
  return Result::ok(std::move(store));
}

// GET /admin/settings: the provider section this process decides by (with --processes, for
// every worker on the one port), the data plane's address, and the store the counters live in
// (replicas sharing one each decide by their own section: give them the same scenario), and
// whether it forwards what it admits (proxy mode), whose answers are then an upstream's.
nlohmann::json settings_document(const ProviderRun& run, int port) {
  return {{"listen", run.data_plane.listen.url(port)},
          {"port", port},
          {"processes", run.processes},
          {"proxy", run.data_plane.upstream.has_value()},
          {"store", run.store ? nlohmann::json("redis://" + run.store->target.where())
                              : nlohmann::json(nullptr)},
          {"time_scale", run.time_scale},
          {"provider", to_json(run.scenario).at("provider")}};
}

// Every thread (and worker) started from here on inherits the mask; this one waits for the
// signals, and for a worker's end.
sigset_t block_stop_signals(unsigned processes) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  if (processes > 1) sigaddset(&stop_signals, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return stop_signals;
}

void say_serving(const ProviderRun& run, int data_port, int admin_port) {
  std::cout << "listening on " << run.data_plane.listen.url(data_port) << "\n"
            << "admin on " << run.admin_listen.url(admin_port) << "\n";
  if (run.processes > 1)
    std::cout << "serving the data plane from " << run.processes << " processes\n";
  if (run.data_plane.upstream)
    std::cout << "forwarding what is admitted to " << run.data_plane.upstream->url.base() << "\n";
  std::cout << std::flush;
}

// The pacing's own error, apart from what any reader adds (docs/LLM.md).
void say_token_lateness(const LogHistogram& late) {
  std::cerr << "fakeprovider: " << late.count()
            << (late.count() == 1 ? " streamed token" : " streamed tokens")
            << " written late by p50 " << format_duration_rounded(late.quantile(0.5)) << ", p99 "
            << format_duration_rounded(late.quantile(0.99)) << ", max "
            << format_duration_rounded(late.max()) << "\n";
}

// The files asked for, each written whatever became of the others; 0 or kRuntimeError.
int write_outputs(const ProviderRun& run, const LockedProvider& provider,
                  const StatsDocument& stats) {
  int code = 0;
  const auto write = [&](const char* flag, const std::string& path, const auto& text_of) {
    if (path.empty()) return;
    if (auto e = write_output(path, text_of())) code = fail(kRuntimeError, flag + (": " + *e));
  };
  write("--arrivals-out", run.arrivals_out, [&] { return provider.arrivals_csv(); });
  write("--stats-out", run.stats_out, [&] { return stats.text(); });
  write("--results-out", run.results_out,
        [&] { return json_text(provider.results_json(), 1) + "\n"; });
  return code;
}

}  // namespace

int serve_provider(const ProviderRun& run) {
  auto store = open_store(run.store, run.time_scale);
  if (!store) return fail(kExitUsage, store.error());
  sigset_t stop_signals = block_stop_signals(run.processes);

  DataPlaneConfig data_config = run.data_plane;
  data_config.max_connections = raise_descriptor_limit(run.data_plane.max_connections);
  RefusalTally refusals;  // before the workers fork: they share it
  data_config.turned_away = &refusals.count();
  const auto& provider_config = run.scenario.provider;
  DataPlaneHost data_plane;
  if (run.processes > 1) {
    if (auto e = data_plane.fork_workers({data_config, provider_config, run.send_rules,
                                          run.time_scale, run.processes, run.stop_wait_ns}))
      return fail(kRuntimeError, *e);
  }
  LockedProvider provider({provider_config, run.time_scale, run.bin_ns,
                           /*keep_log=*/!run.arrivals_out.empty(),
                           std::size_t{run.data_plane.threads} * run.processes, store->get(),
                           run.send_rules, &refusals.count()});
  if (auto e = data_plane.start(data_config, provider)) return fail(kRuntimeError, *e);
  AdminApi admin({run.admin_listen, run.admin_token, settings_document(run, data_plane.port())},
                 provider);
  if (auto e = admin.start()) return fail(kRuntimeError, *e);
  say_serving(run, data_plane.port(), admin.port());

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);

  int code = 0;
  if (signal_number == SIGCHLD)
    code = fail(kRuntimeError, "a data-plane worker ended before the provider was stopped");
  if (auto failed = data_plane.stop(run.stop_wait_ns)) code = fail(kRuntimeError, *failed);
  admin.stop();

  const auto stats = provider.stats_document();
  if (const int written = write_outputs(run, provider, *stats)) code = written;
  const auto requests = stats->head.at("requests").get<std::int64_t>();
  std::cerr << "fakeprovider: stopped on " << strsignal(signal_number) << " after " << requests
            << (requests == 1 ? " request (" : " requests (")
            << outcome_summary(stats->head.at("totals")) << ")\n";
  if (const LogHistogram* late = data_plane.token_lateness(); late && late->count() > 0)
    say_token_lateness(*late);
  return code;
}

}  // namespace stampede
