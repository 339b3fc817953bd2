#include "cli/fleet_supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/exec_plan.hpp"
#include "cli/fleet_outputs.hpp"
#include "cli/fleet_workers.hpp"
#include "cli/harness_connections.hpp"
#include "cli/junit_writer.hpp"
#include "cli/merge_command.hpp"
#include "cli/process_usage.hpp"
#include "cli/progress_line.hpp"
#include "cli/run_summary.hpp"
#include "cli/signal_descriptor.hpp"
#include "cli/worker_progress.hpp"
#include "exit_codes.hpp"
#include "gate.hpp"
#include "one_line.hpp"
#include "process/process_group.hpp"
#include "scenario_clock.hpp"

extern char** environ;

namespace stampede {
namespace {

using nlohmann::json;

// A worker's channels and what it said; its process is the group's member of its index.
struct FleetWorker {
  std::int64_t index = 0;
  WorkerFiles files;
  int progress_fd = -1;  // the pipe's read end; -1 once the worker ended
  int start_fd = -1;     // the supervisor's end of the worker's start socket; -1 once used
  bool ready = false;    // its connections are open
  LineBuffer lines;
  LiveProgress latest;
};

// Its end, once reaped.
std::optional<ProcessEnd> end_of(const ProcessGroup& group, std::size_t index) {
  if (index >= group.members().size() || !group.members()[index].ended) return std::nullopt;
  return group.members()[index].end;
}

std::string failed_call(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

Parsed<std::string> make_worker_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/loadgen-fleet-XXXXXX";
  if (mkdtemp(path.data()) == nullptr)
    return Parsed<std::string>::fail(
        failed_call("cannot make a directory for the workers: " + path));
  return Parsed<std::string>::ok(path);
}

// Above the standard descriptors and the worker's own: a dup2 onto one of those then always
// makes a new one, without close-on-exec.
int above_worker_fds(int fd) {
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, std::max(kWorkerProgressFd, kWorkerStartFd) + 1);
  close(fd);
  return moved;
}

// A pipe for the worker's progress and a socket for its start: a socket, as a send to a worker
// that just died then fails with EPIPE instead of ending the supervisor with SIGPIPE. Each
// pair is {supervisor's end, worker's end}, close-on-exec (no other worker inherits them).
std::optional<std::string> worker_channels(int (&progress)[2], int (&start)[2]) {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return failed_call("pipe");
  progress[0] = above_worker_fds(ends[0]);
  progress[1] = above_worker_fds(ends[1]);
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    close(progress[0]);
    close(progress[1]);
    return failed_call("socketpair");
  }
  start[0] = above_worker_fds(ends[0]);
  start[1] = above_worker_fds(ends[1]);
  return std::nullopt;
}

// Starts worker w as this program with args, stdout and stderr into its errors file, its
// progress on kWorkerProgressFd, its start on kWorkerStartFd, in a process group of its own
// (a terminal's ^C reaches the supervisor, which passes it on once) and with the supervisor's
// signal mask: SIGINT and SIGTERM blocked from its first instruction, so one passed on before
// the worker watches its own signal descriptor waits there, instead of ending it without
// results.
ProcessGroup::Launched spawn_worker(FleetWorker& w, const std::vector<std::string>& args) {
  int progress[2] = {-1, -1};
  int start[2] = {-1, -1};
  if (auto e = worker_channels(progress, start)) return {-1, *e};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, w.files.errors.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, progress[1], kWorkerProgressFd);
  posix_spawn_file_actions_adddup2(&actions, start[1], kWorkerStartFd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> argv{const_cast<char*>("loadgen")};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  close(progress[1]);
  close(start[1]);
  if (rc != 0) {
    close(progress[0]);
    close(start[0]);
    return {-1, "cannot start worker " + std::to_string(w.index) + ": " + std::strerror(rc)};
  }
  fcntl(progress[0], F_SETFL, O_NONBLOCK);
  w.progress_fd = progress[0];
  w.start_fd = start[0];
  return {pid, {}};
}

void close_start(FleetWorker& w) {
  if (w.start_fd >= 0) close(w.start_fd);
  w.start_fd = -1;
}

// "worker 1 of 3 (pid 4242)"
std::string worker_name(const ProcessGroup& group, std::size_t index) {
  return "worker " + std::to_string(index) + " of " + std::to_string(group.members().size()) +
         " (pid " + std::to_string(group.members()[index].pid) + ")";
}

// What the worker said on stderr, each line naming it.
void relay_errors(const FleetWorker& w, std::size_t count) {
  std::ifstream in(w.files.errors);
  const std::string prefix = "loadgen: ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
    std::cerr << "loadgen: worker " << w.index << " of " << count << ": " << line << "\n";
  }
}

// The workers, from their start to their last exit: their group's channels read and written.
class WorkerFleet {
 public:
  WorkerFleet(const RunCommand& cmd, std::vector<FleetWorker>& workers, ProcessGroup& group)
      : cmd_(cmd),
        workers_(workers),
        group_(group),
        progress_(!cmd.quiet, isatty(STDERR_FILENO) != 0, cmd.progress_every_ns,
                  ScenarioClock::steady_ns()) {}

  // Until every worker ended: signals passed on, the start given, progress drawn, a failure
  // stopping the rest.
  void watch(const SignalDescriptor& signals) {
    while (running() > 0) {
      std::vector<pollfd> fds{{signals.fd(), POLLIN, 0}};
      for (const auto& w : workers_)
        if (w.progress_fd >= 0) fds.push_back({w.progress_fd, POLLIN, 0});
      const auto wait_ms = progress_.until_due_ns(ScenarioClock::steady_ns()) / kNsPerMs + 1;
      if (poll(fds.data(), fds.size(), static_cast<int>(std::min<std::int64_t>(wait_ms, 1000))) <
              0 &&
          errno != EINTR)
        break;
      if (fds[0].revents & POLLIN) pass_on(signals.take());
      for (auto& w : workers_) {
        if (w.progress_fd >= 0) read_progress(w);
      }
      give_start();
      draw();
    }
    clear_progress();
    for (auto& w : workers_) close_start(w);
  }

 private:
  void clear_progress() { progress_.clear(); }

  // The supervisor picks the start unless the user gave --start-at.
  bool picks_start() const { return !cmd_.start_at_epoch_ns; }

  std::int64_t ready() const {
    std::int64_t n = 0;
    for (const auto& w : workers_) n += w.ready ? 1 : 0;
    return n;
  }

  // Once every worker's connections are open (not after a failure or a signal, which stop
  // them unstarted): the shared t=0, a margin ahead, to each.
  void give_start() {
    if (!picks_start() || group_.gate_open() || group_.stopping() || group_.signals_seen() > 0)
      return;
    if (ready() < static_cast<std::int64_t>(workers_.size())) return;
    group_.open_gate();
    const std::string line = format_start_line(ScenarioClock::unix_ns() + kFleetStartMarginNs);
    for (auto& w : workers_) {
      // A worker that died meanwhile is reaped, and named, from its progress pipe.
      [[maybe_unused]] const auto n = send(w.start_fd, line.data(), line.size(), MSG_NOSIGNAL);
      close_start(w);
    }
  }

  std::int64_t running() const {
    std::int64_t n = 0;
    for (const auto& w : workers_) n += w.progress_fd >= 0 ? 1 : 0;
    return n;
  }

  // Each worker stops on the signal as one process does, on a second one aborting: the same
  // signal to each is all it takes.
  void pass_on(int sig) {
    if (sig == 0) return;
    clear_progress();
    std::fprintf(stderr,
                 "loadgen: %s: passed on to the %lld running workers, which start no more "
                 "attempts; %s\n",
                 strsignal(sig), static_cast<long long>(running()),
                 group_.take_signal() == SignalMove::kStop
                     ? "in-flight requests have a short grace (again to abort them)"
                     : "aborting in-flight requests");
    group_.signal_running(sig);
  }

  void read_progress(FleetWorker& w) {
    char buf[4096];
    while (true) {
      const ssize_t n = read(w.progress_fd, buf, sizeof buf);
      if (n > 0) {
        w.lines.feed(std::string_view(buf, static_cast<std::size_t>(n)), [&](std::string_view l) {
          if (l == kWorkerReadyLine) {
            w.ready = true;
          } else if (auto p = parse_progress_report(l)) {
            w.latest = *p;
          }
        });
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
      reap(w);  // the pipe's end: the worker has exited
      return;
    }
  }

  void reap(FleetWorker& w) {
    close(w.progress_fd);
    w.progress_fd = -1;
    close_start(w);
    const auto i = static_cast<std::size_t>(w.index);
    if (!group_.wait_for(i).verdict.stop_rest) return;  // the group sent the others SIGTERM
    clear_progress();
    std::cerr << "loadgen: " << worker_name(group_, i) << " failed ("
              << end_label(group_.members()[i].end) << "): stopping the other workers\n";
  }

  // The workers' counts added up from their first reports; before them, what the fleet waits
  // for.
  void draw() {
    const auto now = ScenarioClock::steady_ns();
    if (!progress_.due(now)) return;
    LiveProgress sum;
    for (const auto& w : workers_) sum = add_progress(sum, w.latest);
    if (sum.elapsed_ns == 0) {
      progress_.print(format_fleet_waiting(ready(), static_cast<std::int64_t>(workers_.size())),
                      now);
      return;
    }
    progress_.print(format_run_progress(sum, before_, cmd_.options.time_scale), now);
    before_ = sum;
  }

  const RunCommand& cmd_;
  std::vector<FleetWorker>& workers_;
  ProcessGroup& group_;  // its gate open: the start given
  ProgressPrinter progress_;
  LiveProgress before_;
};

std::string whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The workers' results documents that were written, by worker.
std::vector<std::pair<std::string, json>> worker_documents(
    const std::vector<FleetWorker>& workers) {
  std::vector<std::pair<std::string, json>> docs;
  for (const auto& w : workers) {
    json doc = json::parse(whole_file(w.files.results), nullptr, false);
    if (!doc.is_discarded() && doc.is_object())
      docs.emplace_back("worker " + std::to_string(w.index) + "'s results", std::move(doc));
  }
  return docs;
}

// Each worker fetched the provider's stats when it ended, some while others still sent: the
// supervisor's fetch after the last one ended is the whole fleet's, and merge takes the
// fullest fetch of an admin URL.
void fetch_provider_view(std::optional<ProviderAdmin>& admin,
                         std::vector<std::pair<std::string, json>>& docs) {
  if (!admin || docs.empty()) return;
  const auto stats = admin->stats();
  if (!stats || stats->bin_ns != kNsPerSec) return;  // the workers' own fetches then
  docs.front().second["provider"] = to_json(shard_provider_section(admin->url(), *stats));
}

// A per-process file of the workers' (dead letters, attempts) as one: each worker's in turn.
std::string concatenated(const std::vector<FleetWorker>& workers, std::string WorkerFiles::*file) {
  std::string text;
  for (const auto& w : workers) text += whole_file(w.files.*file);
  return text;
}

FleetOutputs supervisor_outputs(const RunCommand& cmd, const std::vector<FleetWorker>& workers) {
  FleetOutputs outputs{cmd.out_path, cmd.junit_path, cmd.report_path, {}, cmd.quiet};
  if (!cmd.dead_letter_path.empty())
    outputs.files.push_back({"the dead letters", cmd.dead_letter_path,
                             concatenated(workers, &WorkerFiles::dead_letters)});
  if (!cmd.attempts_path.empty())
    outputs.files.push_back(
        {"the attempts", cmd.attempts_path, concatenated(workers, &WorkerFiles::attempts)});
  return outputs;
}

// Every failed worker named on stderr; the exit code they make (worker_exit_code).
int worker_failures(const std::vector<FleetWorker>& workers, const ProcessGroup& group,
                    std::string& first) {
  int code = kExitOk;
  for (const auto& w : workers) {
    const auto i = static_cast<std::size_t>(w.index);
    const bool wrote = std::filesystem::exists(w.files.results);
    const auto end = end_of(group, i);
    const int own = worker_exit_code(end, wrote);
    if (own == kExitOk) continue;
    const std::string why = worker_name(group, i) +
                            (end ? " ended with " + end_label(*end) : " never ended") +
                            (wrote ? "" : ", without results");
    std::cerr << "loadgen: " << why << "\n";
    if (first.empty()) first = why;
    code = std::max(code, own);
  }
  return code;
}

// The merged fleet's verdicts, summary and files; the exit code.
int finish_merged(const RunCommand& cmd, json merged, const std::vector<FleetWorker>& workers,
                  int failure_code, const std::string& failure) {
  auto live = live_section_from_json(merged.at("live"));
  if (!live) {
    std::cerr << "loadgen: the merged results do not load: " << live.error() << "\n";
    return kExitUnreachable;
  }
  live->processes.push_back(own_process_usage("supervisor"));
  merged["live"] = to_json(*live);
  const auto results = results_from_json(merged);
  if (!results) {
    std::cerr << "loadgen: the merged results do not load: " << results.error() << "\n";
    return kExitUnreachable;
  }
  const Results& r = *results;
  if (!cmd.quiet) print_run_summary(r, merged, cmd.out_path);
  const std::string stopped = r.context ? r.context->stopped_by : "";
  const double wall_s = r.context ? r.context->wall_s : 0;
  const int checks_code = verdict_code(r, stopped, wall_s);
  std::optional<FleetError> error;
  if (failure_code != kExitOk) {
    error = FleetError{failure_code, failure};
  } else if (const auto refused = connection_failure(run_connection_evidence(r, merged))) {
    std::cerr << "loadgen: " << refused->why << "\n";
    if (refused->harness) error = FleetError{kExitUnreachable, refused->why};
  }
  const auto [code, run_case] =
      judge_fleet(checks_code, stop_failure(stopped, wall_s, r.recording.unfinished), error);
  if (!write_fleet_outputs(r, merged, wall_s, supervisor_outputs(cmd, workers),
                           junit_cases(r.verdicts), run_case))
    return kExitUnreachable;
  return code;
}

// Starts the workers; the error when one cannot be (those started are then killed).
std::optional<std::string> start_workers(const RunCommand& cmd, const std::string& dir,
                                         std::vector<FleetWorker>& workers, ProcessGroup& group) {
  const auto count = static_cast<std::int64_t>(workers.size());
  return group.start(workers.size(), [&](std::size_t i, pid_t) {
    return spawn_worker(workers[i], worker_arguments(cmd.run_args, workers[i].index, count, dir));
  });
}

}  // namespace

int supervise_fleet(const RunCommand& cmd, std::int64_t count,
                    std::optional<ProviderAdmin>& admin) {
  const auto dir = make_worker_dir();
  if (!dir) return refuse(cmd, kExitUnreachable, dir.error());
  if (!cmd.quiet)
    std::cerr << "loadgen: " << cmd.scenario.fleet.clients << " clients in " << count
              << " worker processes (shard i/" << count << " each)\n";
  std::vector<FleetWorker> workers(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    workers[static_cast<std::size_t>(i)].index = i;
    workers[static_cast<std::size_t>(i)].files = worker_files(*dir, i);
  }
  const SignalDescriptor signals;
  // A worker's 1 is its verdict. With the supervisor's start, the others wait at it for
  // every worker: one that ends before it fails them all.
  ProcessGroup group({{kExitFailed, !cmd.start_at_epoch_ns, true}, false});
  if (auto e = start_workers(cmd, *dir, workers, group)) return refuse(cmd, kExitUnreachable, *e);
  WorkerFleet(cmd, workers, group).watch(signals);
  for (const auto& w : workers) relay_errors(w, workers.size());
  std::string failure;
  const int failure_code = worker_failures(workers, group, failure);
  auto docs = worker_documents(workers);
  fetch_provider_view(admin, docs);
  const bool missing = docs.size() < workers.size();
  auto merged =
      docs.empty() ? Parsed<json>::fail("no worker wrote results") : merge_results(docs, missing);
  int code = kExitUnreachable;
  if (merged) {
    code = finish_merged(cmd, *merged, workers, failure_code, failure);
  } else {
    const std::string why = "cannot merge the workers' results: " + merged.error();
    std::cerr << "loadgen: " << one_line(why) << "\n";
    write_junit_error(cmd.junit_path, cmd.scenario.name, failure.empty() ? why : failure,
                      cmd.quiet);
    code = std::max(failure_code, kExitUnreachable);
  }
  if (failure_code == kExitOk && merged) {
    std::error_code ignored;
    std::filesystem::remove_all(*dir, ignored);
  } else {
    std::cerr << "loadgen: the workers' files are kept in " << *dir << "\n";
  }
  return code;
}

}  // namespace stampede
