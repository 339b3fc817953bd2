#include "cli/live_process.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/attempt_log.hpp"
#include "cli/harness_connections.hpp"
#include "cli/live_comparison.hpp"
#include "cli/process_usage.hpp"
#include "cli/progress_line.hpp"
#include "cli/run_stream.hpp"
#include "cli/run_summary.hpp"
#include "cli/worker_progress.hpp"
#include "gate.hpp"
#include "live/http/connections.hpp"
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

// A command that starts on its own starts this far ahead, the provider reset to it: its loops
// start and put every client's first send on their timers before t=0 (0.26 us a client here),
// not after it, when the first clients' sends would be due while the last are still scheduled.
constexpr std::int64_t kStartAheadNs = 50'000'000;

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

// The same scenario simulated over the same span, for the comparison.
nlohmann::json simulated_comparison(const RunCommand& cmd, const LiveRun& run, const Results& r) {
  SimOptions sim_options;
  sim_options.shard = cmd.shard;
  if (run.stopped != StopReason::kNone)
    sim_options.horizon_ns = std::max<std::int64_t>(run.end_ns, 1);
  const Results simulated = simulate_scenario(cmd.scenario, sim_options);
  return compare_with_simulation(r, simulated);
}

// What stopped the run early, if anything: "a signal", "--max-duration 1h"; empty: nothing.
std::string stopped_by(const RunCommand& cmd, const LiveRun& run) {
  const auto cause = run.stopped == StopReason::kNone     ? FleetStopCause::kNone
                     : run.stopped == StopReason::kSignal ? FleetStopCause::kSignal
                                                          : FleetStopCause::kBound;
  return stopped_by(cause, "--max-duration " + format_duration(cmd.options.max_duration_ns));
}

// The engine's own files: no path, no file.
std::vector<OutputFile> files_of(const RunCommand& cmd, const LiveRun& run) {
  std::vector<OutputFile> files;
  if (!cmd.dead_letter_path.empty())
    files.push_back(
        {"the dead letters", cmd.dead_letter_path, format_dead_letters(run.dead_letters)});
  if (!cmd.attempts_path.empty())
    files.push_back({"the attempts", cmd.attempts_path, format_attempts(run.attempts)});
  return files;
}

}  // namespace

LiveProcess::LiveProcess(const RunCommand& cmd) : cmd_(cmd) {}

LiveProcess::~LiveProcess() = default;

// Before any load: a fakeprovider whose clock runs at another scale keeps windows the fleet
// misreads, and every number after would be wrong.
std::optional<int> LiveProcess::check_provider_scale() {
  const auto answer = admin_->check_stats();
  // The flag names the wrong server: a usage error, found before any load, as a wrong scale is.
  if (answer.foreign) return refuse(cmd_, kExitUsage, not_a_fakeprovider(*admin_, answer));
  if (!answer.stats) return refuse(cmd_, kExitUnreachable, admin_unreachable(answer.error));
  const auto& stats = answer.stats;
  if (stats->time_scale == cmd_.options.time_scale) return std::nullopt;
  return refuse(cmd_, kExitUsage,
                "--time-scale " + format_general(cmd_.options.time_scale) +
                    ": the fakeprovider at " + redact_url(admin_->url().text) +
                    " runs at --time-scale " + format_general(stats->time_scale) +
                    "; give both the same");
}

// With --provider-admin the run describes the provider the fleet meets, its tenant header the
// clients'.
std::optional<int> LiveProcess::adopt_provider() {
  const bool provider_view = !cmd_.shard.sharded();
  if (auto code = adopt_enforced_provider(
          cmd_, *admin_, cmd_.request.url, [provider_view](const ProviderConfig& provider) {
            auto context = metric_context("run", provider, provider_view);
            context.sim_comparison = true;  // after the run
            return context;
          }))
    return code;
  cmd_.request.tenant_header = cmd_.scenario.provider.tenant_header;
  return std::nullopt;
}

Shard LiveProcess::source_group() const {
  return cmd_.shard;
}

// The clients that connect from this command's processes share its source addresses.
Parsed<SourcePlan> LiveProcess::sources_of() const {
  const Shard group = source_group();
  const PortRange range = local_port_range();
  auto plan = plan_sources(first_senders_of(cmd_.scenario.fleet, group),
                           source_share(range, cmd_.connections_per_source), probed_->address,
                           group, range);
  if (!plan)
    return Parsed<SourcePlan>::fail("--clients " + std::to_string(cmd_.scenario.fleet.clients) +
                                    ": " + plan.error());
  return plan;
}

// More clients than this machine lets one process hold connections for is the command's
// mistake, a usage error that says how to raise the limit; an https target whose certificate
// or ours fails, more connections than source addresses can carry to it, a provider at another
// time scale are found here too.
std::optional<int> LiveProcess::preflight() {
  if (auto e =
          serve_dashboard(cmd_.dashboard, cmd_.dashboard_token,
                          "loadgen run: " + redact_url(cmd_.request.url.text), true, dashboard_))
    return refuse(cmd_, kExitUsage, *e);
  const auto clients = cmd_.shard.clients_below(cmd_.scenario.fleet.clients);
  if (auto error = workers_ > 1 ? std::nullopt : raise_descriptor_limit(clients))
    return refuse(cmd_, kExitUsage,
                  "--clients: " + *error +
                      " (ulimit -n N in the shell that starts loadgen; beyond the hard limit "
                      "as root, LimitNOFILE= in a systemd unit, or docker run --ulimit nofile=N; "
                      "or leave out --shard and --processes 1: loadgen run then spreads the "
                      "fleet over worker processes)");
  auto target = probe_target(cmd_.request.url, cmd_.request.tls, kProbeTimeoutMs);
  if (!target) return refuse(cmd_, kExitUnreachable, target.error());
  probed_ = *target;
  auto plan = sources_of();
  if (!plan) return refuse(cmd_, kExitUsage, plan.error());
  sources_ = *plan;
  if (cmd_.provider_admin) {
    admin_.emplace(*cmd_.provider_admin, cmd_.provider_admin_token);
    if (auto code = check_provider_scale()) return code;
    if (auto code = adopt_provider()) return code;
  }
  // The provider's dialect is known now: the streamed request is made in it.
  if (auto e = make_stream_request(cmd_)) return refuse(cmd_, kExitUsage, *e);
  return std::nullopt;
}

// Every shard resetting the provider would wipe the others' first sends: shard 0 alone
// resets it. The provider's t = 0 now, or at a shared start: the other shards send from then
// on, and a reset landing after it would forget their first sends (and replicas sharing a
// store would follow it only after admitting some), so it goes ahead of it.
std::optional<std::string> LiveProcess::reset_provider(std::optional<std::int64_t> start_unix_ns) {
  if (!admin_ || cmd_.shard.index != 0) return std::nullopt;
  if (auto e = admin_->reset(start_unix_ns)) return admin_unreachable(*e);
  return std::nullopt;
}

Parsed<std::int64_t> LiveProcess::pick_start() {
  if (cmd_.start_at_epoch_ns) return Parsed<std::int64_t>::ok(0);
  const std::int64_t start_ns = ScenarioClock::unix_ns() + kStartAheadNs;
  if (auto e = reset_provider(start_ns)) return Parsed<std::int64_t>::fail(*e);
  return Parsed<std::int64_t>::ok(ScenarioClock::steady_at_unix(start_ns));
}

// What the engine is given beyond the command's options: where the probe found the target,
// the shard, and when to start.
LiveOptions LiveProcess::engine_options() const {
  LiveOptions options = cmd_.options;
  // A name is resolved once, here; an address needs no resolving.
  if (probed_->address != cmd_.request.url.host)
    options.resolve_entry = probed_->resolve_entry(cmd_.request.url);
  options.connect_address = probed_->address;
  options.connect_port = probed_->port;
  options.keep_attempts = !cmd_.attempts_path.empty();
  options.shard = cmd_.shard;
  options.sources = sources_;
  if (cmd_.start_at_epoch_ns)
    options.start_steady_ns = ScenarioClock::steady_at_unix(*cmd_.start_at_epoch_ns);
  return options;
}

// At the start pick_start gives, or at --start-at, whose reset goes first.
std::optional<int> LiveProcess::start() {
  start_at_epoch_ns_ = cmd_.start_at_epoch_ns;
  if (start_at_epoch_ns_) {
    if (auto e = reset_provider(start_at_epoch_ns_)) return refuse(cmd_, kExitUnreachable, *e);
  }
  signals_.emplace();
  engine_.emplace(cmd_.scenario, cmd_.request, engine_options());
  if (auto error = engine_->start([this] { return pick_start(); }))
    return refuse(cmd_, kExitUnreachable, *error);
  live_.emplace(dashboard_ ? &*dashboard_ : nullptr, cmd_, *engine_, admin_ ? &*admin_ : nullptr,
                [this](Recording rec, double wall_s, const auto& provider) {
                  return results_so_far(std::move(rec), wall_s, provider);
                });
  return std::nullopt;
}

const char* LiveProcess::planned_start() const {
  return "the start it planned";
}

int LiveProcess::report_fd() const {
  return -1;
}

void LiveProcess::say_stopping(int sig, std::int64_t grace_ns) const {
  std::fprintf(stderr, "loadgen: %s: starting no more attempts; %s\n", strsignal(sig),
               grace_ns ? "in-flight requests have a short grace (again to abort them)"
                        : "aborting in-flight requests");
}

std::optional<int> LiveProcess::drive() {
  ProgressPrinter progress(!cmd_.quiet, isatty(STDERR_FILENO) != 0, cmd_.progress_every_ns,
                           ScenarioClock::steady_ns());
  ProgressReporter reporter(report_fd(), ScenarioClock::steady_ns());
  LiveProgress before;
  int signals_seen = 0;
  while (true) {
    pollfd fds[2] = {{engine_->done_fd(), POLLIN, 0}, {signals_->fd(), POLLIN, 0}};
    const auto now_ns = ScenarioClock::steady_ns();
    const auto wait_ms = std::min({progress.until_due_ns(now_ns), live_->until_due_ns(now_ns),
                                   reporter.until_due_ns(now_ns)}) /
                         kNsPerMs;
    const int n = poll(fds, 2, static_cast<int>(wait_ms) + 1);
    if (n > 0 && (fds[0].revents & POLLIN)) break;
    if (n > 0 && (fds[1].revents & POLLIN)) {
      const int sig = signals_->take();
      // The first signal leaves in-flight requests their grace; a second ends it, and so does
      // one after --max-duration stopped the run (its grace is running already).
      const bool stopped = signals_seen++ > 0 || engine_->stopping();
      const std::int64_t grace = stopped ? 0 : cmd_.options.grace_ns;
      progress.clear();
      say_stopping(sig, grace);
      engine_->stop(grace);
    }
    const auto now = ScenarioClock::steady_ns();
    if (progress.due(now)) {
      const LiveProgress p = engine_->progress();
      progress.print(format_run_progress(p, before, cmd_.options.time_scale), now);
      before = p;
    }
    live_->tick(now);
    reporter.tick(*engine_, now);
  }
  progress.clear();
  live_->tick(ScenarioClock::steady_ns(), true);
  run_ = engine_->finish();
  return std::nullopt;
}

// The clients' results of a finished run, without the provider's view.
Results LiveProcess::clients_results(LiveRun& run, double start_late_s) const {
  Results r;
  r.engine = "run";
  r.scenario = cmd_.scenario;
  r.recording = std::move(run.recording);
  if (cmd_.shard.sharded()) r.shard = ShardInfo{cmd_.shard.index, cmd_.shard.count, start_late_s};
  r.context = RunContext{redact_url(cmd_.request.url.text),
                         format_utc(ScenarioClock::unix_ns() - saturating_ns(run.wall_s * 1e9)),
                         run.wall_s, cmd_.options.time_scale, stopped_by(cmd_, run)};
  return r;
}

// The dashboard's save: the results of the clients' recording so far, as results() makes them
// but for the verdicts, the comparison and the warnings; the provider's bins as last read
// where results() would take them.
Results LiveProcess::results_so_far(Recording recording, double wall_s,
                                    const std::optional<Parsed<ProviderStats>>& provider) const {
  LiveRun run;
  run.recording = std::move(recording);
  run.wall_s = wall_s;
  Results r = clients_results(run, 0);
  if (provider && *provider && (*provider)->bin_ns == kNsPerSec && !cmd_.shard.sharded())
    adopt_provider_bins(**provider, r);
  r.summary = summarize(r.recording, r.scenario.provider, r.provider_side);
  return r;
}

std::optional<std::string> LiveProcess::stop_failure_of(const Results& r) const {
  return stop_failure(stopped_by(cmd_, run_), run_.wall_s, r.recording.unfinished);
}

std::optional<std::string> LiveProcess::unreachable() const {
  if (run_.first_sends == 0 || run_.first_send_connect_errors != run_.first_sends)
    return std::nullopt;
  return "target unreachable: every first attempt (" + std::to_string(run_.first_sends) +
         ") was refused a connection";
}

FleetJudgment LiveProcess::judge(const Results& r, const nlohmann::json& doc,
                                 const std::vector<JunitCase>& cases) const {
  for (const auto& c : cases) {
    if (c.state != JunitCase::State::kPassed)
      std::cerr << "loadgen: " << one_line(c.message) << "\n";
  }
  const auto stop = stop_failure_of(r);
  if (stop) std::cerr << "loadgen: " << *stop << "\n";
  std::optional<FleetError> error;
  if (auto why = unreachable()) {
    std::cerr << "loadgen: " << *why << "\n";
    error = FleetError{kExitUnreachable, *why};
  } else if (const auto failure = connection_failure(run_connection_evidence(r, doc))) {
    std::cerr << "loadgen: " << failure->why << "\n";
    if (failure->harness) error = FleetError{kExitUnreachable, failure->why};
  }
  return judge_fleet(gate_exit_code(r.verdicts), stop, error);
}

FleetEnd LiveProcess::results() {
  const double start_late_s = static_cast<double>(run_.start_late_ns) / 1e9;
  if (start_late_s >= kLateWorthSaying && !cmd_.quiet)
    std::cerr << "loadgen: started " << start_late_s << " s after "
              << (cmd_.start_at_epoch_ns ? "--start-at" : planned_start()) << "\n";
  FleetEnd end;
  Results& r = end.results;
  r = clients_results(run_, start_late_s);
  ProviderSection provider;
  if (admin_) provider = take_provider_view(*admin_, cmd_.shard.sharded(), r);
  r.summary = summarize(r.recording, r.scenario.provider, r.provider_side);
  const nlohmann::json comparison = simulated_comparison(cmd_, run_, r);
  auto context = metric_context(r);
  context.sim_comparison = take_divergence(comparison, r.summary);
  r.verdicts = evaluate_gate(cmd_.assertions, r, context);
  nlohmann::json& j = end.doc;
  j = to_json(r);
  j["live"] = to_json(live_section(cmd_, run_, start_at_epoch_ns_));
  if (admin_) {
    provider.settings = cmd_.provider_settings;
    j["provider"] = to_json(provider);
  }
  j["comparison"] = comparison;
  if (!cmd_.quiet) print_run_summary(r, j, cmd_.out_path);
  end.judgment = judge(r, j, junit_cases(r.verdicts));
  end.wall_s = run_.wall_s;
  end.files = files_of(cmd_, run_);
  return end;
}

}  // namespace stampede
