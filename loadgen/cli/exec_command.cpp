#include "cli/exec_command.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/exec_fleet.hpp"
#include "cli/fleet_dashboard.hpp"
#include "cli/fleet_live_event.hpp"
#include "cli/fleet_outputs.hpp"
#include "cli/harness_connections.hpp"
#include "cli/run_summary.hpp"
#include "cli/signal_descriptor.hpp"
#include "exec_section.hpp"
#include "gate.hpp"
#include "live/engine.hpp"
#include "live/probe.hpp"
#include "live/provider_admin.hpp"
#include "live_fields.hpp"
#include "one_line.hpp"
#include "policy/open_arrivals.hpp"
#include "report_format.hpp"
#include "scenario_clock.hpp"
#include "terminal_summary.hpp"
#include "url_redaction.hpp"

extern char** environ;

namespace stampede {
namespace {

constexpr std::int64_t kWatchPollNs = 10 * kNsPerMs;

void say(const std::string& message) {
  std::cerr << "loadgen: " << one_line(message) << "\n";
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// CMD as execve will run it: a path as given, a name looked up in PATH as a shell would.
Parsed<std::string> resolve_program(const std::string& command) {
  if (command.find('/') != std::string::npos) {
    if (is_executable_file(command)) return Parsed<std::string>::ok(command);
    struct stat st {};
    const std::string why = stat(command.c_str(), &st) != 0 ? std::strerror(errno)
                            : S_ISDIR(st.st_mode)           ? "a folder, not a program"
                                                            : "not executable";
    return Parsed<std::string>::fail("exec CMD '" + command + "': " + why);
  }
  const char* path_env = std::getenv("PATH");
  std::stringstream dirs(path_env ? path_env : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + command;
    if (is_executable_file(candidate)) return Parsed<std::string>::ok(candidate);
  }
  return Parsed<std::string>::fail("exec CMD '" + command + "': no such command in PATH");
}

std::int64_t read_number(const std::string& path) {
  std::ifstream in(path);
  std::int64_t n = 0;
  in >> n;
  return n;
}

// This user's tasks: what RLIMIT_NPROC counts against it.
std::int64_t user_tasks() {
  const uid_t uid = getuid();
  std::int64_t tasks = 0;
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream status(std::string("/proc/") + e->d_name + "/status");
    bool mine = false;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("Uid:", 0) == 0) mine = std::strtoul(line.c_str() + 4, nullptr, 10) == uid;
      if (line.rfind("Threads:", 0) == 0 && mine)
        tasks += std::strtoll(line.c_str() + 8, nullptr, 10);
    }
  }
  closedir(proc);
  return tasks;
}

ProcessLimits current_process_limits() {
  ProcessLimits l;
  rlimit lim{};
  if (getrlimit(RLIMIT_NPROC, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    l.user_limit = static_cast<std::int64_t>(lim.rlim_cur);
    l.user_tasks = user_tasks();
  }
  l.system_limit = std::min(read_number("/proc/sys/kernel/pid_max"),
                            read_number("/proc/sys/kernel/threads-max"));
  // The fourth field of /proc/loadavg is running/total scheduling entities.
  std::ifstream loadavg("/proc/loadavg");
  std::string skip, entities;
  loadavg >> skip >> skip >> skip >> entities;
  const auto slash = entities.find('/');
  l.system_tasks = slash == std::string::npos ? 0 : std::atoll(entities.c_str() + slash + 1);
  if (l.system_limit <= 0) l.system_limit = l.system_tasks + (std::int64_t{1} << 30);
  return l;
}

// The logs folder, made if missing (its parent must exist); the error names --logs.
std::optional<std::string> prepare_logs_dir(const std::string& dir) {
  if (dir.empty()) return std::nullopt;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return "--logs: cannot make the folder '" + dir + "': " + std::strerror(errno);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "--logs: '" + dir + "' is not a folder";
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    return "--logs: '" + dir + "': this process may not write in it";
  return std::nullopt;
}

// The spread of the fleet's first sends, seen from the provider: its stats polled from the
// release until it has numbered as many first sends as there are clients. Until the provider
// numbers real clients' sends, every arrival counts as a first send, so "all" is then the
// time it had seen as many arrivals as clients.
class FirstArrivalWatch {
 public:
  FirstArrivalWatch(const ProviderAdmin& admin, std::int64_t clients)
      : admin_(admin), clients_(clients) {}
  ~FirstArrivalWatch() { stop(); }
  void start() {
    thread_ = std::thread([this] { loop(); });
  }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  FirstArrivals record() const {
    const auto ms = [](std::optional<std::int64_t> ns) -> std::optional<double> {
      if (!ns) return std::nullopt;
      return static_cast<double>(*ns) / kNsPerMs;
    };
    return {kWatchPollNs / kNsPerMs,
            polls_,
            seen_,
            ms(first_ns_),
            ms(all_ns_),
            error_.empty() ? std::nullopt : std::optional<std::string>(error_)};
  }
  std::string describe() const {
    if (!error_.empty()) return "first arrivals not watched: " + error_;
    if (!first_ns_) return "the provider saw no first send";
    char buf[200];
    if (all_ns_) {
      std::snprintf(buf, sizeof buf, "the first by t=%.3f s, all %lld by t=%.3f s",
                    static_cast<double>(*first_ns_) / 1e9, static_cast<long long>(clients_),
                    static_cast<double>(*all_ns_) / 1e9);
    } else {
      std::snprintf(buf, sizeof buf, "the first by t=%.3f s, %lld of %lld in all",
                    static_cast<double>(*first_ns_) / 1e9, static_cast<long long>(seen_),
                    static_cast<long long>(clients_));
    }
    return "first sends at the provider (polled every " + std::to_string(kWatchPollNs / kNsPerMs) +
           " ms): " + buf;
  }

 private:
  void loop() {
    while (!stop_ && !all_ns_) {
      const auto stats = admin_.stats();
      if (!stats) {
        error_ = stats.error();
        return;
      }
      ++polls_;
      seen_ = 0;
      for (std::size_t b = 0; b < stats->by_send.bins(); ++b) seen_ += stats->by_send.at(b, 0);
      if (seen_ > 0 && !first_ns_) first_ns_ = stats->clock_ns;
      if (seen_ >= clients_) all_ns_ = stats->clock_ns;
      std::this_thread::sleep_for(std::chrono::nanoseconds(kWatchPollNs));
    }
  }

  const ProviderAdmin& admin_;
  std::int64_t clients_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::int64_t polls_ = 0, seen_ = 0;
  std::optional<std::int64_t> first_ns_, all_ns_;
  std::string error_;
};

// Before anything starts: the provider answers, runs at scale 1 and bins by the second.
std::optional<std::pair<int, std::string>> check_provider(const ProviderAdmin& admin) {
  const auto answer = admin.check_stats();
  if (answer.foreign) return std::pair{kExitUsage, not_a_fakeprovider(admin, answer)};
  if (!answer.stats) return std::pair{kExitUnreachable, admin_unreachable(answer.error)};
  const auto& stats = answer.stats;
  if (stats->time_scale != 1) {
    return std::pair{kExitUsage,
                     "--provider-admin: the provider runs at --time-scale " +
                         format_general(stats->time_scale) +
                         "; real clients sleep wall time (a Retry-After: 2 is two wall seconds), "
                         "so exec needs a provider at --time-scale 1"};
  }
  if (stats->bin_ns != kNsPerSec)
    return std::pair{kExitUsage, "--provider-admin: the provider bins arrivals by " +
                                     format_duration(stats->bin_ns) +
                                     "; the summary is per second: start it with --bin 1s"};
  return std::nullopt;
}

bool plays_trace(const ExecCommand& cmd) {
  return cmd.scenario.fleet.workload == WorkloadKind::kTrace;
}

// The trace's arrivals, streamed from its file as they fall due (never read whole): each
// line's item with its tenant, tokens, method and path. A file that can no longer be read
// (it was read through before the run) has no more arrivals: its items stay unfinished.
ExecArrivals trace_arrivals(const FleetConfig& fleet) {
  struct Playback {
    std::unique_ptr<std::istream> file;
    std::unique_ptr<TraceArrivalStream> stream;
  };
  auto play = std::make_shared<Playback>();
  play->file = open_trace(fleet);
  const auto read = trace_read_options(fleet.trace);
  if (play->file && read)
    play->stream = std::make_unique<TraceArrivalStream>(*play->file, *read, fleet.trace, fleet.seed,
                                                        fleet.item_count(), 0, 1, true);
  return [play]() -> std::optional<ExecArrival> {
    const auto next = play->stream ? play->stream->peek() : std::nullopt;
    if (!next) return std::nullopt;
    const TraceRecord& r = play->stream->peek_record();
    ExecArrival a{
        next->intended_ns,
        {next->id, 0, r.tenant, r.tokens, std::string(r.method()), std::string(r.path())}};
    play->stream->pop();
    return a;
  };
}

FleetSpec fleet_spec(const ExecCommand& cmd, std::string program) {
  FleetSpec spec;
  spec.program = std::move(program);
  spec.command = cmd.command;
  spec.args = cmd.args;
  spec.url = cmd.url.text;
  spec.clients = cmd.clients;
  spec.per_process = cmd.per_process;
  for (char** e = environ; e && *e; ++e) spec.environment.emplace_back(*e);
  spec.wait_ready = cmd.wait_ready;
  spec.logs_dir = cmd.logs_dir;
  spec.log_limit_bytes = cmd.log_limit_bytes;
  if (plays_trace(cmd)) spec.arrivals = trace_arrivals(cmd.scenario.fleet);
  return spec;
}

// The processes' ends as the results' counts: each process's outcome for each of its clients,
// its life from the release as their latency when delivered.
// Where the provider's last 200 lies: the end of its last second with one (0: none).
std::int64_t last_ok_second_end_ns(const BinnedCounts& by_outcome) {
  for (std::size_t b = by_outcome.bins(); b-- > 0;) {
    if (by_outcome.at(b, static_cast<std::size_t>(Outcome::kOk)) > 0)
      return static_cast<std::int64_t>(b + 1) * by_outcome.bin_ns();
  }
  return 0;
}

// A trace's items are its arrivals (trace_items): the dropped, and those a stop left unplayed,
// are counted beside the processes'; each item's latency counts from its arrival's time.
void record_outcomes(const FleetRun& run, std::optional<std::int64_t> trace_items, Recording& rec) {
  for (const auto& p : run.processes) {
    rec.items += p.slot.clients;
    const std::int64_t since_release_ns =
        std::max<std::int64_t>(p.end_steady_ns - run.release_steady_ns, 0);
    const std::int64_t life_ns = std::max<std::int64_t>(since_release_ns - p.due_ns, 0);
    switch (outcome_of(p.end)) {
      case ExecOutcome::kDelivered:
        rec.delivered += p.slot.clients;
        rec.item_latency_ns.record(life_ns, p.slot.clients);
        rec.drain_ns = std::max(rec.drain_ns, since_release_ns);
        break;
      case ExecOutcome::kDeadLettered:
        rec.dead_lettered += p.slot.clients;
        break;
      case ExecOutcome::kUnfinished:
        rec.unfinished += p.slot.clients;
        break;
    }
  }
  if (!trace_items) return;
  rec.items = *trace_items;
  rec.dropped = run.dropped;
  rec.unfinished = rec.items - rec.delivered - rec.dead_lettered - rec.dropped;
  rec.trace = run.trace;
}

std::string_view dead_letter_reason(const FleetProcess& p) {
  if (p.end.running_at_stop) return "unfinished";
  if (p.exec_errno != 0) return "exec_failed";
  return p.end.exited ? "exit_status" : "signal";
}

// One JSON line per client not delivered: the dead-lettered first, then the unfinished.
std::string format_exec_dead_letters(const FleetRun& run) {
  std::string out;
  for (const auto wanted : {ExecOutcome::kDeadLettered, ExecOutcome::kUnfinished}) {
    for (const auto& p : run.processes) {
      if (outcome_of(p.end) != wanted) continue;
      const double t_s =
          static_cast<double>(std::max<std::int64_t>(p.end_steady_ns - run.release_steady_ns, 0)) /
          1e9;
      for (std::int64_t c = 0; c < p.slot.clients; ++c) {
        nlohmann::json line{{"client", p.slot.first_client + c},
                            {"process", p.slot.index},
                            {"reason", dead_letter_reason(p)},
                            {"end", end_label(p.end)},
                            {"t_s", t_s}};
        if (p.item) line["item"] = *p.item;
        out += line.dump() + "\n";
      }
    }
  }
  return out;
}

ExecSection exec_section(const ExecCommand& cmd, const FleetRun& run,
                         const FirstArrivalWatch* watch, std::int64_t start_ns) {
  const auto s = [](std::int64_t ns) { return static_cast<double>(ns) / 1e9; };
  ExecSection e;
  e.command = {cmd.command};
  e.command.insert(e.command.end(), cmd.args.begin(), cmd.args.end());
  e.url = redact_url(cmd.url.text);
  e.clients = cmd.clients;
  e.per_process = cmd.per_process;
  e.processes = static_cast<std::int64_t>(run.processes.size());
  e.wait_ready = cmd.wait_ready;
  e.max_duration_s = s(cmd.max_duration_ns);
  if (cmd.timeout_ns) e.timeout_s = s(*cmd.timeout_ns);
  e.grace_s = s(cmd.grace_ns);
  if (!cmd.logs_dir.empty()) e.logs = cmd.logs_dir;
  e.log_limit_bytes = cmd.log_limit_bytes;
  e.stopped = to_string(run.stopped);
  e.released = run.released;
  e.spawn_s = s(run.spawned_steady_ns - start_ns);
  if (run.released) {
    e.ready_wait_s = s(run.release_steady_ns - run.spawned_steady_ns);
    e.wall_s = s(run.end_steady_ns - run.release_steady_ns);
  }
  for (const auto& p : run.processes) {
    ++e.process_ends[end_label(p.end)];
    e.output_bytes += p.output_bytes;
    e.logs_truncated += p.log_dropped > 0;
    e.exec_failures += p.exec_errno != 0;
  }
  if (watch) e.first_arrivals = watch->record();
  return e;
}

std::string describe_fleet(const ExecCommand& cmd, const FleetRun& run) {
  std::map<std::string, std::int64_t> ends;
  for (const auto& p : run.processes) ++ends[end_label(p.end)];
  const std::string how = plays_trace(cmd) ? "one at each arrival of the trace, at most " +
                                                 std::to_string(cmd.clients) + " at once, " +
                                                 std::to_string(run.dropped) + " arrivals dropped"
                          : cmd.wait_ready ? "released once every one said ready"
                                           : "held before exec, released together";
  std::string text = "fleet: " + std::to_string(run.processes.size()) + " processes of " +
                     cmd.command + " (" + std::to_string(cmd.per_process) +
                     (cmd.per_process == 1 ? " client" : " clients") + " each), " + how +
                     "; exits:";
  for (const auto& [label, n] : ends) text += " " + label + " x" + std::to_string(n);
  return text + "\n";
}

// Processes that ended other than with exit 0 said why on their stderr, which loadgen drops
// unless --logs keeps it: the fix is to read it, so the line says where it is or how to keep it.
std::string where_failures_are(const ExecCommand& cmd, const FleetRun& run) {
  std::int64_t failed = 0;
  for (const auto& p : run.processes)
    failed += p.exec_errno == 0 && outcome_of(p.end) == ExecOutcome::kDeadLettered;
  if (failed == 0) return "";
  const std::string which = std::to_string(failed) + " of " + std::to_string(run.processes.size()) +
                            " processes failed (a non-zero exit or a signal)";
  if (!cmd.logs_dir.empty())
    return which + "; each one's stdout and stderr are in " + cmd.logs_dir + "/client-ID.log";
  return which +
         "; to read what they said, run again with --logs DIR (each process's stdout "
         "and stderr to DIR/client-ID.log)";
}

// Problems the results show that are not the fleet's verdict: said on stderr; a program that
// could not be run at all is a harness failure.
int say_problems(const ExecCommand& cmd, const FleetRun& run, const Results& r) {
  int code = kExitOk;
  std::int64_t failed = 0;
  int error = 0;
  for (const auto& p : run.processes) {
    if (p.exec_errno == 0) continue;
    ++failed;
    error = p.exec_errno;
  }
  if (failed > 0) {
    say("exec CMD '" + cmd.command + "': could not be run in " + std::to_string(failed) + " of " +
        std::to_string(run.processes.size()) + " processes: " + std::strerror(error));
    code = kExitUnreachable;
  }
  if (run.start_failures > 0) {
    say(std::to_string(run.start_failures) +
        " arrivals' processes could not be started (the first: " + run.start_error +
        "); their items are unfinished");
    code = kExitUnreachable;
  }
  for (const auto& w : run.warnings) say("warning: " + w);
  if (run.released && r.provider_side && r.recording.requests == 0)
    say("warning: the provider saw no request from the fleet; does CMD send to {url} (" +
        redact_url(cmd.url.text) + ")?");
  if (const auto why = where_failures_are(cmd, run); !why.empty()) say(why);
  return code;
}

ExecProgress exec_progress(const FleetRun& run, std::int64_t now_ns) {
  ExecProgress p;
  p.released = run.released;
  if (run.released) p.elapsed_ns = now_ns - run.release_steady_ns;
  for (const auto& process : run.processes) {
    if (!process.ended) {
      ++p.running;
      continue;
    }
    ++p.ended;
    (outcome_of(process.end) == ExecOutcome::kDelivered ? p.delivered : p.dead_lettered) +=
        process.slot.clients;
  }
  return p;
}

// The provider's per-item figures (each item's fate and sends, its waits against the
// Retry-After, the lockstep figure) as the provider's own results document has them: one
// builder, the provider's. Into the provider section and the results; false, saying why, when
// unavailable.
bool take_provider_results(const ProviderAdmin& admin, ProviderSection& section, Results& r) {
  const auto doc = admin.results_json();
  const auto results = doc ? results_from_json(*doc) : Parsed<Results>::fail(doc.error());
  if (!results || !doc->contains("provider_results")) {
    const std::string why = results ? "no provider_results section" : results.error();
    say("provider results unavailable (" + why +
        "); hint_share, lockstep and attempts_p99 are not known");
    section.results_error = why;
    return false;
  }
  r.recording.sends_per_item = results->recording.sends_per_item;
  r.summary.attempts_p99 = results->summary.attempts_p99;
  r.summary.hint_share = results->summary.hint_share;
  r.summary.lockstep = results->summary.lockstep;
  section.results = doc->at("provider_results");
  return true;
}

// The provider's own results document, read as a run's results.
Parsed<Results> provider_results(const ProviderAdmin& admin) {
  const auto doc = admin.results_json();
  return doc ? results_from_json(*doc) : Parsed<Results>::fail(doc.error());
}

// Found before any process starts: CMD, the machine's limits, the provider, the target, the
// logs folder. The exit code then; the program's path otherwise.
std::optional<int> check_before_start(const ExecCommand& cmd, const ProviderAdmin& admin,
                                      std::string& program) {
  const auto resolved = resolve_program(cmd.command);
  if (!resolved) return refuse(cmd, kExitUsage, resolved.error());
  program = *resolved;
  const auto processes = process_count(cmd.clients, cmd.per_process);
  if (auto e = process_limit_error(cmd.clients, processes, current_process_limits()))
    return refuse(cmd, kExitUsage, *e);
  if (auto e = raise_descriptor_limit(processes, 2, "processes",
                                      "two each: the output pipe and the log"))
    return refuse(cmd, kExitUnreachable, *e);
  if (auto e = check_provider(admin)) return refuse(cmd, e->first, e->second);
  if (const auto probed = probe_target(cmd.url, TlsSettings{}, kProbeTimeoutMs); !probed)
    return refuse(cmd, kExitUnreachable, probed.error());  // it names what failed
  if (auto e = prepare_logs_dir(cmd.logs_dir)) return refuse(cmd, kExitUsage, *e);
  return std::nullopt;
}

// --dashboard's event: the provider's stats (the admin API's, read once a second as the first
// arrivals' watch reads them) and the processes' ends. Nothing before the release, or when
// the provider does not answer: the page keeps its picture.
void publish_exec_event(FleetDashboard& dashboard, const ExecCommand& cmd,
                        const ProviderAdmin& admin, const ExecProgress& progress,
                        std::uint64_t seq) {
  if (!progress.released) return;
  const auto stats = admin.stats();
  if (!stats) return;
  const auto& provider = cmd.scenario.provider;
  dashboard.publish(live_sse_message(
      exec_live_event(*stats, progress, seq, provider.allowance, provider.outages), seq));
}

// Releases the spawned fleet (the provider reset at the release) and waits for its end, the
// progress line on stderr meanwhile. The error, if the fleet could not be released.
std::optional<std::string> release(ExecFleet& fleet, const ExecCommand& cmd,
                                   const ProviderAdmin& admin, FirstArrivalWatch& watch,
                                   std::int64_t start_ns, FleetDashboard* dashboard) {
  ProgressPrinter progress(!cmd.quiet, isatty(STDERR_FILENO) != 0, cmd.progress_every_ns,
                           ScenarioClock::steady_ns());
  std::uint64_t seq = 0;
  fleet.on_tick([&](const FleetRun& run) {
    const auto now = ScenarioClock::steady_ns();
    if (progress.due(now)) progress.print(format_exec_progress(exec_progress(run, now)), now);
    if (dashboard) publish_exec_event(*dashboard, cmd, admin, exec_progress(run, now), ++seq);
  });
  FleetBounds bounds{start_ns + cmd.max_duration_ns, cmd.timeout_ns, cmd.grace_ns};
  const auto reset = [&]() -> std::optional<std::string> {
    if (auto e = admin.reset()) return admin_unreachable(*e);
    return std::nullopt;
  };
  auto error = fleet.run(bounds, reset, [&] { watch.start(); });
  watch.stop();
  progress.clear();
  if (dashboard) {
    const auto& run = fleet.result();
    publish_exec_event(*dashboard, cmd, admin, exec_progress(run, run.end_steady_ns), ++seq);
  }
  return error;
}

// The provider's counts into the results and its section; kExitUnreachable
// when a released fleet's provider could not be read.
int take_provider_stats(const ExecCommand& cmd, const FleetRun& run, const ProviderAdmin& admin,
                        Results& r, ProviderSection& provider) {
  provider.admin = redact_url(cmd.provider_admin.text);
  if (!run.released) {
    // Never reset, so its counts are not this fleet's.
    provider.error = "the fleet was stopped before its release; the provider was not read";
    return kExitOk;
  }
  const auto stats = admin.stats();
  if (!stats) {
    say("provider stats unavailable (" + stats.error() +
        "); the results have the processes' outcomes only");
    provider.error = stats.error();
    return kExitUnreachable;
  }
  provider = provider_section(cmd.provider_admin, *stats);
  r.recording.requests = stats->requests;
  r.recording.provider_by_outcome = stats->by_outcome;
  r.recording.provider_by_send = stats->by_send;
  r.provider_side = true;
  // The programs keep no record loadgen can read: which sends were retries, and what each was
  // answered, are the provider's numbering (send attribution) and its outcomes.
  provider_stands_in_for_clients(r.recording);
  // Both bound the last delivery from above: the last delivered process's exit, and the
  // end of the provider's last second with a 200. The tighter one is the drain.
  if (const auto ok_end = last_ok_second_end_ns(stats->by_outcome); ok_end > 0)
    r.recording.drain_ns = std::min(r.recording.drain_ns, ok_end);
  return kExitOk;
}

std::string stopped_by(const FleetRun& run) {
  const auto cause = run.stopped == FleetStop::kNone     ? FleetStopCause::kNone
                     : run.stopped == FleetStop::kSignal ? FleetStopCause::kSignal
                                                         : FleetStopCause::kBound;
  return stopped_by(cause, run.stopped == FleetStop::kTimeout ? "--timeout" : "--max-duration");
}

// t = 0 is the release; real clients sleep wall time, so the scale is 1.
void set_context(const ExecCommand& cmd, const FleetRun& run, Results& r) {
  if (!run.released) return;
  const std::int64_t since_release_ns = ScenarioClock::steady_ns() - run.release_steady_ns;
  r.context = RunContext{
      redact_url(cmd.url.text), format_utc(ScenarioClock::unix_ns() - since_release_ns),
      static_cast<double>(run.end_steady_ns - run.release_steady_ns) / 1e9, 1, stopped_by(run)};
}

// The engine's own file: one JSON line per client not delivered.
std::vector<OutputFile> files_of(const ExecCommand& cmd, const FleetRun& run) {
  if (cmd.dead_letter_path.empty()) return {};
  return {{"the dead letters", cmd.dead_letter_path, format_exec_dead_letters(run)}};
}

// The results, the summary and the verdicts of a finished fleet.
FleetEnd exec_results(const ExecCommand& cmd, const FleetRun& run, const ProviderAdmin& admin,
                      const FirstArrivalWatch& watch, std::int64_t start_ns) {
  FleetEnd end;
  Results& r = end.results;
  r.engine = "exec";
  r.scenario = cmd.scenario;
  record_outcomes(run,
                  plays_trace(cmd) ? std::optional(cmd.scenario.fleet.item_count()) : std::nullopt,
                  r.recording);
  ProviderSection provider;
  int code = take_provider_stats(cmd, run, admin, r, provider);
  provider.settings = cmd.provider_settings;
  r.summary = summarize(r.recording, r.scenario.provider, r.provider_side);
  const bool per_item = r.provider_side && take_provider_results(admin, provider, r);
  r.verdicts = evaluate_gate(cmd.assertions, r, metric_context(r, per_item));
  if (!cmd.quiet) {
    summary_stream(cmd.out_path) << format_terminal_summary(r)
                                 << format_who_answered(to_json(provider))
                                 << format_by_model(to_json(provider)) << "\n"
                                 << describe_fleet(cmd, run)
                                 << (run.released ? watch.describe() + "\n" : "") << std::flush;
  }
  end.wall_s = static_cast<double>(run.end_steady_ns - start_ns) / 1e9;
  const std::string stopped = stopped_by(run);
  code = std::max(code, verdict_code(r, stopped, end.wall_s));
  code = std::max(code, say_problems(cmd, run, r));
  std::optional<FleetError> error;
  if (const auto failure = connection_failure(exec_connection_evidence(r, provider))) {
    say(failure->why);
    if (failure->harness) error = FleetError{kExitUnreachable, failure->why};
  }
  set_context(cmd, run, r);
  end.doc = to_json(r);
  end.doc["exec"] = to_json(exec_section(cmd, run, run.released ? &watch : nullptr, start_ns));
  end.doc["provider"] = to_json(provider);
  end.files = files_of(cmd, run);
  end.judgment =
      judge_fleet(code, stop_failure(stopped, end.wall_s, r.recording.unfinished), error);
  return end;
}

// `loadgen exec`: the user's program in processes spawned held, released together, and
// judged by the provider's view and their exits.
class ExecVariant : public FleetVariant {
 public:
  explicit ExecVariant(const ExecCommand& cmd)
      : cmd_(cmd),
        start_ns_(ScenarioClock::steady_ns()),
        admin_(cmd.provider_admin, cmd.provider_admin_token) {}

  std::optional<int> preflight() override {
    if (auto e = serve_dashboard(cmd_.dashboard, cmd_.dashboard_token,
                                 "loadgen exec: " + cmd_.command, false, dashboard_))
      return refuse(cmd_, kExitUsage, *e);
    // The page's save: the processes' outcomes are known only at their ends, the provider's
    // counts of them all along (it is reset at the release), so the report so far is of the
    // provider's own results document, as its own dashboard saves it.
    if (dashboard_) dashboard_->set_results_source([this] { return provider_results(admin_); });
    if (auto code = check_before_start(cmd_, admin_, program_)) return code;
    return adopt_enforced_provider(cmd_, admin_, cmd_.url, [](const ProviderConfig& provider) {
      return metric_context("exec", provider, true, true);
    });
  }

  std::optional<int> start() override {
    signals_.emplace({SIGINT, SIGTERM, SIGCHLD});
    fleet_.emplace(fleet_spec(cmd_, program_), *signals_);
    if (auto e = fleet_->spawn()) return refuse(cmd_, kExitUnreachable, *e + "; none was released");
    return std::nullopt;
  }

  std::optional<int> drive() override {
    // A trace's first sends are its items', not one per client.
    watch_.emplace(admin_, plays_trace(cmd_) ? cmd_.scenario.fleet.item_count() : cmd_.clients);
    if (auto e =
            release(*fleet_, cmd_, admin_, *watch_, start_ns_, dashboard_ ? &*dashboard_ : nullptr))
      return refuse(cmd_, kExitUnreachable, *e + "; none was released");
    return std::nullopt;
  }

  FleetEnd results() override {
    return exec_results(cmd_, fleet_->result(), admin_, *watch_, start_ns_);
  }

 private:
  ExecCommand cmd_;  // its provider section becomes the provider's own
  const std::int64_t start_ns_;
  const ProviderAdmin admin_;
  std::optional<FleetDashboard> dashboard_;
  std::string program_;
  std::optional<SignalDescriptor> signals_;
  std::optional<ExecFleet> fleet_;
  std::optional<FirstArrivalWatch> watch_;
};

}  // namespace

int run_exec_command(const ExecCommand& cmd) {
  return run_fleet_command(cmd, [&cmd] { return std::make_unique<ExecVariant>(cmd); });
}

}  // namespace stampede
