#include "cli/run_command.hpp"

#include <curl/curl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/attempt_log.hpp"
#include "cli/fleet_dashboard.hpp"
#include "cli/fleet_outputs.hpp"
#include "cli/fleet_supervisor.hpp"
#include "cli/fleet_workers.hpp"
#include "cli/harness_connections.hpp"
#include "cli/junit_writer.hpp"
#include "cli/live_comparison.hpp"
#include "cli/process_usage.hpp"
#include "cli/progress_line.hpp"
#include "cli/provider_settings.hpp"
#include "cli/run_dashboard.hpp"
#include "cli/run_summary.hpp"
#include "cli/signal_descriptor.hpp"
#include "cli/worker_progress.hpp"
#include "gate.hpp"
#include "live/http/connections.hpp"
#include "live/probe.hpp"
#include "live/provider_admin.hpp"
#include "one_line.hpp"
#include "output_path.hpp"
#include "report_format.hpp"
#include "scenario_clock.hpp"
#include "sim/sim_engine.hpp"
#include "sim/sim_trials.hpp"
#include "terminal_summary.hpp"
#include "url_redaction.hpp"

namespace stampede {
namespace {

// A start later than this after --start-at is said on stderr too; the results say any.
constexpr double kLateWorthSaying = 0.01;

// A run that ends before it could be judged: one line, and a JUnit file whose one case is
// the error, so a CI server shows what the exit code says.
int refuse(const RunCommand& cmd, int code, const std::string& message) {
  std::cerr << "loadgen: " << one_line(message) << "\n";
  write_junit_error(cmd.junit_path, cmd.scenario.name, message, cmd.quiet);
  return code;
}

int harness_failure(const RunCommand& cmd, const std::string& message) {
  return refuse(cmd, kExitUnreachable, message);
}

// Before any load: a fakeprovider whose clock runs at another scale keeps windows the fleet
// misreads, and every number after would be wrong.
std::optional<int> check_provider_scale(const RunCommand& cmd, const ProviderAdmin& admin) {
  const auto answer = admin.check_stats();
  // The flag names the wrong server: a usage error, found before any load, as a wrong scale is.
  if (answer.foreign) return refuse(cmd, kExitUsage, not_a_fakeprovider(admin, answer));
  if (!answer.stats) return harness_failure(cmd, "provider admin unreachable: " + answer.error);
  const auto& stats = answer.stats;
  if (stats->time_scale == cmd.options.time_scale) return std::nullopt;
  return refuse(cmd, kExitUsage,
                "--time-scale " + format_general(cmd.options.time_scale) +
                    ": the fakeprovider at " + redact_url(admin.url().text) +
                    " runs at --time-scale " + format_general(stats->time_scale) +
                    "; give both the same");
}

// With --provider-admin the run describes the provider the fleet meets: the settings it
// enforces become the scenario's provider section (its tenant header the clients'), or the run
// is refused. A check the adopted settings give no meaning is then a usage error, as it is
// when the flags are read.
std::optional<int> adopt_enforced_provider(RunCommand& cmd, const ProviderAdmin& admin) {
  const auto enforced = read_enforced_provider(admin, cmd.scenario, cmd.request.url);
  if (!enforced.provider) return refuse(cmd, enforced.code, enforced.error);
  cmd.scenario.provider = *enforced.provider;
  cmd.request.tenant_header = cmd.scenario.provider.tenant_header;
  cmd.provider_settings = enforced.settings;
  auto context = metric_context("run", cmd.scenario.provider, !cmd.shard.sharded());
  context.sim_comparison = true;  // computed after the run
  for (const auto& a : cmd.assertions) {
    if (auto e = meaning_error(a, context)) return refuse(cmd, kExitUsage, *e);
  }
  return std::nullopt;
}

// Runs the engine until it finishes, a signal stops it, or --max-duration does.
LiveRun drive(LiveEngine& engine, const SignalDescriptor& signals, const RunCommand& cmd,
              RunDashboard& ticker) {
  ProgressPrinter progress(!cmd.quiet, isatty(STDERR_FILENO) != 0, cmd.progress_every_ns,
                           ScenarioClock::steady_ns());
  ProgressReporter reporter(cmd.worker_dir.empty() ? -1 : kWorkerProgressFd,
                            ScenarioClock::steady_ns());
  LiveProgress before;
  int signals_seen = 0;
  while (true) {
    pollfd fds[2] = {{engine.done_fd(), POLLIN, 0}, {signals.fd(), POLLIN, 0}};
    const auto now_ns = ScenarioClock::steady_ns();
    const auto wait_ms = std::min({progress.until_due_ns(now_ns), ticker.until_due_ns(now_ns),
                                   reporter.until_due_ns(now_ns)}) /
                         kNsPerMs;
    const int n = poll(fds, 2, static_cast<int>(wait_ms) + 1);
    if (n > 0 && (fds[0].revents & POLLIN)) break;
    if (n > 0 && (fds[1].revents & POLLIN)) {
      const int sig = signals.take();
      // The first signal leaves in-flight requests their grace; a second ends it, and so does
      // one after --max-duration stopped the run (its grace is running already).
      const bool stopped = signals_seen++ > 0 || engine.stopping();
      const std::int64_t grace = stopped ? 0 : cmd.options.grace_ns;
      progress.clear();
      if (cmd.worker_dir.empty())  // a worker's supervisor said it
        std::fprintf(stderr, "loadgen: %s: starting no more attempts; %s\n", strsignal(sig),
                     grace ? "in-flight requests have a short grace (again to abort them)"
                           : "aborting in-flight requests");
      engine.stop(grace);
    }
    const auto now = ScenarioClock::steady_ns();
    if (progress.due(now)) {
      const LiveProgress p = engine.progress();
      progress.print(format_run_progress(p, before, cmd.options.time_scale), now);
      before = p;
    }
    ticker.tick(now);
    reporter.tick(engine, now);
  }
  progress.clear();
  ticker.tick(ScenarioClock::steady_ns(), true);
  return engine.finish();
}

// Whom the fleet trusted and what it presented: paths, never what is in them.
TlsRecord tls_record(const TlsSettings& tls) {
  const auto path_or_none = [](const std::string& p) {
    return p.empty() ? std::nullopt : std::optional<std::string>(p);
  };
  return {tls.verify_peer, path_or_none(tls.ca_from), path_or_none(tls.ca_file),
          path_or_none(tls.ca_path), path_or_none(tls.cert_file)};
}

LiveSection live_section(const RunCommand& cmd, const LiveRun& run,
                         std::optional<std::int64_t> start_at_epoch_ns) {
  LiveSection l;
  l.url = redact_url(cmd.request.url.text);
  l.method = cmd.request.method;
  l.time_scale = cmd.options.time_scale;
  l.latency_compensated = cmd.options.compensate_latency;
  l.max_duration_s = ns_to_s(cmd.options.max_duration_ns);
  l.http_client = run.http_client;
  if (cmd.request.url.scheme == "https") l.tls = tls_record(cmd.request.tls);
  l.loops = run.loops;
  l.cpu_user_s = run.cpu_user_s;
  l.cpu_sys_s = run.cpu_sys_s;
  l.cpu_wait_s = run.cpu_wait_s;
  l.first_sends = run.first_sends;
  l.first_send_connect_errors = run.first_send_connect_errors;
  l.send_lateness_ns = run.send_lateness_ns;
  l.source_addresses = run.source_addresses;
  l.processes.push_back(own_process_usage("run", cmd.shard.index));
  l.wall_s = run.wall_s;
  l.end_s = ns_to_s(run.end_ns);
  if (start_at_epoch_ns) {
    l.start_at = static_cast<double>(*start_at_epoch_ns) / 1e9;
    l.start_late_s = static_cast<double>(run.start_late_ns) / 1e9;
  }
  l.stopped = to_string(run.stopped);
  return l;
}

// The provider's arrival histograms as the results' own.
void adopt_provider_bins(const ProviderStats& stats, Results& r) {
  r.recording.provider_by_outcome = stats.by_outcome;
  r.recording.provider_by_send = stats.by_send;
  r.provider_side = true;
}

// The provider's own arrival histograms replace the clients' view when it has them in
// one-second bins (the summary's peak is per second). A shard's provider saw the whole fleet,
// not the shard: its histograms go into the section for `loadgen merge`, and the shard's
// own summary keeps the clients' view.
ProviderSection take_provider_view(const ProviderAdmin& admin, bool sharded, Results& r) {
  const auto stats = admin.stats();
  if (!stats) {
    std::cerr << "loadgen: warning: provider stats unavailable (" << stats.error()
              << "); the summary uses the clients' view\n";
    ProviderSection unread;
    unread.admin = redact_url(admin.url().text);
    unread.error = stats.error();
    return unread;
  }
  ProviderSection section = provider_section(admin.url(), *stats);
  if (stats->bin_ns != kNsPerSec) {
    std::cerr << "loadgen: warning: the provider bins arrivals by "
              << format_duration(stats->bin_ns) << ", not 1s; the summary uses the clients' view\n";
    return section;
  }
  if (sharded) return shard_provider_section(admin.url(), *stats);
  adopt_provider_bins(*stats, r);
  if (stats->requests != r.recording.requests) {
    std::cerr << "loadgen: warning: the provider recorded " << stats->requests
              << " requests, the clients sent " << r.recording.requests << "\n";
  }
  return section;
}

// A run cut short with items still going did not show what the fleet does: it fails.
// What stopped the run early, if anything: "a signal", "--max-duration 1h"; empty: nothing.
std::string stopped_by(const RunCommand& cmd, const LiveRun& run) {
  if (run.stopped == StopReason::kNone) return "";
  if (run.stopped == StopReason::kSignal) return "a signal";
  return "--max-duration " + format_duration(cmd.options.max_duration_ns);
}

std::ostream& null_stream() {
  static std::ostream none(nullptr);
  return none;
}

// The exit code of a finished run and its 'run completed' case, each failure said on stderr.
struct Judgment {
  int code = kExitOk;
  JunitCase run_case{kRunCase, JunitCase::State::kPassed, {}};
};

// A worker's verdicts are its shard's: its supervisor says the fleet's, and whether the fleet
// could connect at all.
Judgment judge(const RunCommand& cmd, const LiveRun& run, const Results& r,
               const nlohmann::json& doc, const std::vector<JunitCase>& cases) {
  Judgment j;
  std::ostream& say = cmd.worker_dir.empty() ? std::cerr : null_stream();
  for (const auto& c : cases) {
    if (c.state != JunitCase::State::kPassed) say << "loadgen: " << one_line(c.message) << "\n";
  }
  // A check a shard cannot judge (it saw no retry) may judge the fleet: a worker's refusal is
  // a failure its supervisor judges again on the merged fleet.
  j.code = gate_exit_code(r.verdicts);
  if (!cmd.worker_dir.empty()) j.code = std::min(j.code, kExitFailed);
  if (auto stop = stop_failure(stopped_by(cmd, run), run.wall_s, r.recording.unfinished)) {
    say << "loadgen: " << *stop << "\n";
    j.run_case = {kRunCase, JunitCase::State::kFailed, *stop};
    j.code = std::max(j.code, kExitFailed);
  }
  if (run.first_sends > 0 && run.first_send_connect_errors == run.first_sends) {
    const std::string why = "target unreachable: every first attempt (" +
                            std::to_string(run.first_sends) + ") was refused a connection";
    std::cerr << "loadgen: " << why << "\n";
    j.run_case = {kRunCase, JunitCase::State::kError, why};
    j.code = kExitUnreachable;
  } else if (const auto failure = cmd.worker_dir.empty()
                                      ? connection_failure(run_connection_evidence(r, doc))
                                      : std::nullopt) {
    std::cerr << "loadgen: " << failure->why << "\n";
    if (failure->harness) {
      j.run_case = {kRunCase, JunitCase::State::kError, failure->why};
      j.code = kExitUnreachable;
    }
  }
  return j;
}

// What the engine is given beyond the command's options: where the probe found the target,
// the shard, and when to start.
LiveOptions engine_options(const RunCommand& cmd, const ProbedTarget& probed,
                           const SourcePlan& sources) {
  LiveOptions options = cmd.options;
  // A name is resolved once, here; an address needs no resolving.
  if (probed.address != cmd.request.url.host)
    options.resolve_entry = probed.resolve_entry(cmd.request.url);
  options.connect_address = probed.address;
  options.connect_port = probed.port;
  options.keep_attempts = !cmd.attempts_path.empty();
  options.shard = cmd.shard;
  options.sources = sources;
  if (cmd.start_at_epoch_ns)
    options.start_steady_ns = ScenarioClock::steady_at_unix(*cmd.start_at_epoch_ns);
  return options;
}

// How many clients one process may hold connections for; the workers, if more.
Parsed<std::int64_t> workers_of(const RunCommand& cmd) {
  if (!cmd.worker_dir.empty()) return Parsed<std::int64_t>::ok(1);
  return worker_count({cmd.scenario.fleet.clients, descriptor_room(), cmd.processes,
                       cmd.shard_given, cmd.dashboard.has_value()});
}

// The clients that connect from this command's processes share its source addresses: a
// worker's are the whole fleet's (its supervisor's), a shard's its own.
Parsed<SourcePlan> sources_of(const RunCommand& cmd, const ProbedTarget& probed) {
  const Shard group = cmd.worker_dir.empty() ? cmd.shard : Shard{};
  const PortRange range = local_port_range();
  auto plan =
      plan_sources(first_senders_of(cmd.scenario.fleet, group),
                   source_share(range, cmd.connections_per_source), probed.address, group, range);
  if (!plan)
    return Parsed<SourcePlan>::fail("--clients " + std::to_string(cmd.scenario.fleet.clients) +
                                    ": " + plan.error());
  return plan;
}

// Found before any load: more clients than this machine lets one process hold connections
// for (the command's mistake, a usage error that says how to raise the limit), an https
// target whose certificate or ours fails, more connections than source addresses can carry
// to it, a provider at another time scale. The exit code then; the probed target and the
// source addresses otherwise. A supervisor (workers > 1) holds no connection itself.
std::optional<int> preflight(const RunCommand& cmd, std::int64_t workers,
                             std::optional<ProbedTarget>& probed, SourcePlan& sources,
                             std::optional<ProviderAdmin>& admin) {
  const auto clients = cmd.shard.clients_below(cmd.scenario.fleet.clients);
  if (auto error = workers > 1 ? std::nullopt : raise_descriptor_limit(clients))
    return refuse(cmd, kExitUsage,
                  "--clients: " + *error +
                      " (ulimit -n N in the shell that starts loadgen; beyond the hard limit "
                      "as root, LimitNOFILE= in a systemd unit, or docker run --ulimit nofile=N; "
                      "or leave out --shard and --processes 1: loadgen run then spreads the "
                      "fleet over worker processes)");
  auto target = probe_target(cmd.request.url, cmd.request.tls, kProbeTimeoutMs);
  if (!target) return harness_failure(cmd, target.error());
  probed = *target;
  auto plan = sources_of(cmd, *probed);
  if (!plan) return refuse(cmd, kExitUsage, plan.error());
  sources = *plan;
  if (!cmd.provider_admin) return std::nullopt;
  admin.emplace(*cmd.provider_admin, cmd.provider_admin_token);
  return check_provider_scale(cmd, *admin);
}

// Every shard resetting the provider would wipe the others' first sends: shard 0 alone
// resets it, at the shared start.
bool resets_provider(const RunCommand& cmd) {
  return cmd.shard.index == 0;
}

// The provider's t = 0 now, or at a shared start: the other shards send from then on, and a
// reset landing after it would forget their first sends (and replicas sharing a store would
// follow it only after admitting some), so it goes ahead of it. The error, if any.
std::optional<std::string> reset_provider(const RunCommand& cmd,
                                          std::optional<ProviderAdmin>& admin,
                                          std::optional<std::int64_t> start_at_epoch_ns) {
  if (!admin || !resets_provider(cmd)) return std::nullopt;
  if (auto e = admin->reset(start_at_epoch_ns)) return "provider admin unreachable: " + *e;
  return std::nullopt;
}

// A worker whose supervisor picks the start: told once every worker's connections are open.
bool awaits_fleet_start(const RunCommand& cmd) {
  return !cmd.worker_dir.empty() && !cmd.start_at_epoch_ns;
}

// Called with the connections open, once the worker said so: it learns the start, which
// worker 0 names the provider's t = 0. A signal first stops the engine before it sends
// anything (the supervisor passed it on and sends no start): the start is then now, and the
// worker still writes its results, every item unfinished, as one stopped later would.
Parsed<std::int64_t> fleet_start(LiveEngine& engine, const RunCommand& cmd,
                                 const SignalDescriptor& signals,
                                 std::optional<ProviderAdmin>& admin,
                                 std::optional<std::int64_t>& start_at_epoch_ns) {
  using Result = Parsed<std::int64_t>;
  const auto heard = await_fleet_start(kWorkerStartFd, signals.fd());
  if (!heard) return Result::fail(heard.error());
  std::int64_t start_ns = heard->unix_ns;
  if (heard->signalled) {
    signals.take();
    engine.stop(0);
    start_ns = ScenarioClock::unix_ns();
  }
  start_at_epoch_ns = start_ns;
  if (auto e = reset_provider(cmd, admin, start_ns)) return Result::fail(*e);
  return Result::ok(ScenarioClock::steady_at_unix(start_ns));
}

// A command that starts on its own starts this far ahead, the provider reset to it: its loops
// start and put every client's first send on their timers before t=0 (0.26 us a client here),
// not after it, when the first clients' sends would be due while the last are still scheduled.
constexpr std::int64_t kStartAheadNs = 50'000'000;

// Starts the engine: at the start the supervisor gives, at --start-at (whose reset went
// before), or just ahead, the provider reset to it. A worker says it is ready first. The error,
// if any; start_at_epoch_ns, the shared start.
std::optional<std::string> start(LiveEngine& engine, const RunCommand& cmd,
                                 const SignalDescriptor& signals,
                                 std::optional<ProviderAdmin>& admin,
                                 std::optional<std::int64_t>& start_at_epoch_ns) {
  return engine.start([&]() -> Parsed<std::int64_t> {
    if (!cmd.worker_dir.empty()) say_ready(kWorkerProgressFd);
    if (awaits_fleet_start(cmd)) return fleet_start(engine, cmd, signals, admin, start_at_epoch_ns);
    if (cmd.start_at_epoch_ns) return Parsed<std::int64_t>::ok(0);
    const std::int64_t start_ns = ScenarioClock::unix_ns() + kStartAheadNs;
    if (auto e = reset_provider(cmd, admin, start_ns)) return Parsed<std::int64_t>::fail(*e);
    return Parsed<std::int64_t>::ok(ScenarioClock::steady_at_unix(start_ns));
  });
}

// The clients' results of a finished run, without the provider's view.
Results clients_results(const RunCommand& cmd, LiveRun& run, double start_late_s) {
  Results r;
  r.engine = "run";
  r.scenario = cmd.scenario;
  r.recording = std::move(run.recording);
  if (cmd.shard.sharded()) r.shard = ShardInfo{cmd.shard.index, cmd.shard.count, start_late_s};
  r.context = RunContext{redact_url(cmd.request.url.text),
                         format_utc(ScenarioClock::unix_ns() - saturating_ns(run.wall_s * 1e9)),
                         run.wall_s, cmd.options.time_scale, stopped_by(cmd, run)};
  return r;
}

// The dashboard's save: the results of the clients' recording so far, as finish() makes them
// but for the verdicts, the comparison and the warnings; the provider's bins as last read
// where finish() would take them.
Results results_so_far(const RunCommand& cmd, Recording recording, double wall_s,
                       const std::optional<Parsed<ProviderStats>>& provider) {
  LiveRun run;
  run.recording = std::move(recording);
  run.wall_s = wall_s;
  Results r = clients_results(cmd, run, 0);
  if (provider && *provider && (*provider)->bin_ns == kNsPerSec && !cmd.shard.sharded())
    adopt_provider_bins(**provider, r);
  r.summary = summarize(r.recording, r.scenario.provider, r.provider_side);
  return r;
}

// The same scenario simulated over the same span, for the comparison.
nlohmann::json simulated_comparison(const RunCommand& cmd, const LiveRun& run, const Results& r) {
  SimOptions sim_options;
  sim_options.shard = cmd.shard;
  if (run.stopped != StopReason::kNone)
    sim_options.horizon_ns = std::max<std::int64_t>(run.end_ns, 1);
  const Results simulated = simulate_scenario(cmd.scenario, sim_options);
  return compare_with_simulation(r, simulated);
}

FleetOutputs outputs_of(const RunCommand& cmd, const LiveRun& run) {
  FleetOutputs outputs{cmd.out_path, cmd.junit_path, cmd.report_path, {}, cmd.quiet};
  if (!cmd.dead_letter_path.empty())
    outputs.files.push_back(
        {"the dead letters", cmd.dead_letter_path, format_dead_letters(run.dead_letters)});
  if (!cmd.attempts_path.empty())
    outputs.files.push_back({"the attempts", cmd.attempts_path, format_attempts(run.attempts)});
  return outputs;
}

// The results, the summary, the verdicts and the files of a finished run; its exit code.
int finish(const RunCommand& cmd, LiveRun& run, std::optional<ProviderAdmin>& admin,
           std::optional<std::int64_t> start_at_epoch_ns) {
  const double start_late_s = static_cast<double>(run.start_late_ns) / 1e9;
  if (start_late_s >= kLateWorthSaying && !cmd.quiet)
    std::cerr << "loadgen: started " << start_late_s << " s after "
              << (cmd.start_at_epoch_ns    ? "--start-at"
                  : cmd.worker_dir.empty() ? "the start it planned"
                                           : "the fleet's start")
              << "\n";
  Results r = clients_results(cmd, run, start_late_s);
  ProviderSection provider;
  if (admin) provider = take_provider_view(*admin, cmd.shard.sharded(), r);
  r.summary = summarize(r.recording, r.scenario.provider, r.provider_side);
  const nlohmann::json comparison = simulated_comparison(cmd, run, r);
  auto context = metric_context(r);
  context.sim_comparison = take_divergence(comparison, r.summary);
  r.verdicts = evaluate_gate(cmd.assertions, r, context);
  nlohmann::json j = to_json(r);
  j["live"] = to_json(live_section(cmd, run, start_at_epoch_ns));
  if (admin) {
    provider.settings = cmd.provider_settings;
    j["provider"] = to_json(provider);
  }
  j["comparison"] = comparison;
  if (!cmd.quiet) print_run_summary(r, j, cmd.out_path);
  const auto cases = junit_cases(r.verdicts);
  auto [code, run_case] = judge(cmd, run, r, j, cases);
  if (!write_fleet_outputs(r, j, run.wall_s, outputs_of(cmd, run), cases, run_case))
    code = kExitUnreachable;
  return code;
}

int run_checked(const RunCommand& given) {
  RunCommand cmd = given;  // its provider section becomes the provider's own
  const auto workers = workers_of(cmd);
  if (!workers) return refuse(cmd, kExitUsage, workers.error());
  std::optional<FleetDashboard> dashboard;
  if (auto e = serve_dashboard(cmd.dashboard, cmd.dashboard_token,
                               "loadgen run: " + redact_url(cmd.request.url.text), true, dashboard))
    return refuse(cmd, kExitUsage, *e);
  std::optional<ProbedTarget> probed;
  SourcePlan sources;
  std::optional<ProviderAdmin> admin;
  if (auto code = preflight(cmd, *workers, probed, sources, admin)) return *code;
  if (admin) {
    if (auto code = adopt_enforced_provider(cmd, *admin)) return *code;
  }
  if (*workers > 1) return supervise_fleet(cmd, *workers, admin);
  std::optional<std::int64_t> start_at = cmd.start_at_epoch_ns;
  if (start_at) {
    if (auto e = reset_provider(cmd, admin, start_at)) return harness_failure(cmd, *e);
  }
  const SignalDescriptor signals;
  LiveEngine engine(cmd.scenario, cmd.request, engine_options(cmd, *probed, sources));
  if (auto error = start(engine, cmd, signals, admin, start_at))
    return harness_failure(cmd, *error);
  // The page's events and save from here on, until the run's results are written.
  RunDashboard live(dashboard ? &*dashboard : nullptr, cmd, engine, admin ? &*admin : nullptr,
                    [&cmd](Recording rec, double wall_s, const auto& provider) {
                      return results_so_far(cmd, std::move(rec), wall_s, provider);
                    });
  LiveRun run = drive(engine, signals, cmd, live);
  return finish(cmd, run, admin, start_at);
}

}  // namespace

int run_run_command(const RunCommand& cmd) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int code = kExitUnreachable;
  try {
    code = run_checked(cmd);
  } catch (const std::exception& e) {
    code = harness_failure(cmd, std::string("harness failure: ") + e.what());
  }
  curl_global_cleanup();
  return code;
}

}  // namespace stampede
