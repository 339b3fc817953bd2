#include "cli/exec_fleet.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>

#include "duration.hpp"
#include "enum_table.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// Where a process finds what it is given: stdin (/dev/null), stdout and stderr (its pipe),
// then the release pipe, the ready pipe (with wait_ready) and where a failed execve reports.
constexpr int kReleaseFd = 3;
constexpr int kReadyFd = 4;
constexpr int kExecErrorFd = 5;
constexpr int kScratchFd = 10;  // above the fixed ones, so moving them clobbers nothing

// epoll tags: the kind in the high half, the process in the low.
enum class Tag : std::uint64_t { kSignal = 1, kReady, kExecError, kOutput };
std::uint64_t tag(Tag kind, std::size_t index = 0) {
  return (static_cast<std::uint64_t>(kind) << 32) | index;
}

constexpr std::int64_t kTickNs = kNsPerSec;
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr int kReadsPerWake = 4;  // per pipe, so one loud process cannot starve the loop

// What a child whose execve failed writes to the exec-error pipe: one small, atomic write.
struct ExecError {
  std::int32_t index;
  std::int32_t error;
};

// Over the progress line, when there is one.
const char* clear_line() {
  return isatty(STDERR_FILENO) ? "\r\033[K" : "";
}

std::string errno_text(const char* what) {
  return std::string(what) + ": " + strerror(errno);
}

void set_nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// argv or envp for execve: pointers into strings that outlive the fork.
std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// What the child needs from its parent; everything here was made before the fork, because
// after it the child may only make async-signal-safe calls.
struct ChildSetup {
  std::int32_t index = 0;
  std::array<int, 6> fds{};  // source for fd 0..5; -1: none
  bool wait_ready = false;
  const sigset_t* mask = nullptr;
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
};

// In the forked child, which has joined the group (ProcessGroup::fork_member).
[[noreturn]] void run_child(const ChildSetup& c) {
  // Move what it needs to 0..5 through scratch copies (a source may sit on a target), then
  // close everything else: a held child must not keep the other processes' pipes.
  std::array<int, 6> scratch{};
  for (std::size_t i = 0; i < c.fds.size(); ++i)
    scratch[i] = c.fds[i] < 0 ? -1 : fcntl(c.fds[i], F_DUPFD, kScratchFd);
  for (std::size_t i = 0; i < c.fds.size(); ++i) {
    if (scratch[i] >= 0) dup2(scratch[i], static_cast<int>(i));
  }
  close_range(kExecErrorFd + 1, ~0U, 0);
  fcntl(kExecErrorFd, F_SETFD, FD_CLOEXEC);
  fcntl(kReleaseFd, F_SETFD, c.wait_ready ? 0 : FD_CLOEXEC);
  sigprocmask(SIG_SETMASK, c.mask, nullptr);
  signal(SIGPIPE, SIG_DFL);
  if (!c.wait_ready) {
    // Held: the release is the end of this pipe, when the parent closes its write end.
    char byte;
    while (read(kReleaseFd, &byte, 1) < 0 && errno == EINTR) {
    }
  }
  execve(c.program, c.argv, c.envp);
  const ExecError e{c.index, errno};
  [[maybe_unused]] const auto w = write(kExecErrorFd, &e, sizeof e);
  _exit(127);
}

}  // namespace

std::string_view to_string(FleetStop s) {
  constexpr EnumTable<FleetStop, 4> kNames{{{FleetStop::kNone, ""},
                                            {FleetStop::kSignal, "signal"},
                                            {FleetStop::kMaxDuration, "max_duration"},
                                            {FleetStop::kTimeout, "timeout"}}};
  return enum_name(kNames, s);
}

ExecFleet::ExecFleet(FleetSpec spec, const SignalDescriptor& signals)
    : spec_(std::move(spec)), signals_(signals) {}

ExecFleet::~ExecFleet() {
  for (auto& fd : out_fds_) close_fd(fd);
  for (auto& fd : log_fds_) close_fd(fd);
  for (int* fd : {&epoll_fd_, &devnull_fd_, &release_fds_[0], &release_fds_[1], &ready_fds_[0],
                  &ready_fds_[1], &exec_error_fds_[0], &exec_error_fds_[1]})
    close_fd(*fd);
}

std::optional<std::string> ExecFleet::open_channels() {
  devnull_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (devnull_fd_ < 0 || epoll_fd_ < 0 || pipe2(release_fds_, O_CLOEXEC) != 0 ||
      pipe2(exec_error_fds_, O_CLOEXEC) != 0 ||
      (spec_.wait_ready && pipe2(ready_fds_, O_CLOEXEC) != 0))
    return errno_text("cannot set up the fleet");
  auto watch = [&](int fd, std::uint64_t t) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = t;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  };
  watch(signals_.fd(), tag(Tag::kSignal));
  set_nonblocking(exec_error_fds_[0]);
  watch(exec_error_fds_[0], tag(Tag::kExecError));
  if (spec_.wait_ready) {
    set_nonblocking(ready_fds_[0]);
    watch(ready_fds_[0], tag(Tag::kReady));
  }
  return std::nullopt;
}

std::optional<std::string> ExecFleet::spawn() {
  if (auto e = open_channels()) return e;
  // With arrivals, the processes start as they fall due: only the group's holder now.
  const auto n = spec_.arrivals
                     ? std::size_t{0}
                     : static_cast<std::size_t>(process_count(spec_.clients, spec_.per_process));
  run_.processes.reserve(n);
  if (auto e = group_.start(n, [&](std::size_t i, pid_t group) { return spawn_one(i, group); }))
    return e;
  // Only the children write these now: their ends are the ends that count.
  close_fd(ready_fds_[1]);
  if (spec_.arrivals) {
    for (std::int64_t c = 0; c < spec_.clients; ++c) pool_.release(static_cast<std::uint32_t>(c));
    run_.trace.emplace();
    next_ = spec_.arrivals();
  } else {
    close_fd(exec_error_fds_[1]);
  }
  run_.spawned_steady_ns = ScenarioClock::steady_ns();
  return std::nullopt;
}

ProcessGroup::Launched ExecFleet::spawn_one(std::size_t index, pid_t group) {
  FleetProcess p;
  p.slot = process_at(static_cast<std::int64_t>(index), spec_.clients, spec_.per_process);
  std::vector<std::string> argv{spec_.command};
  for (auto& a : expand_arguments(spec_.args, spec_.url, p.slot.first_client))
    argv.push_back(std::move(a));
  auto variables = process_variables(p.slot, spec_.clients, spec_.url);
  if (spec_.wait_ready) {
    variables.emplace_back("STAMPEDE_READY_FD", std::to_string(kReadyFd));
    variables.emplace_back("STAMPEDE_RELEASE_FD", std::to_string(kReleaseFd));
  }
  auto env = process_environment(spec_.environment, variables);
  const std::int64_t n = process_count(spec_.clients, spec_.per_process);
  auto launched = fork_child(index, group, p, std::move(argv), std::move(env),
                             "client-" + std::to_string(p.slot.first_client) + ".log");
  if (launched.pid < 0)
    launched.error = "cannot start process " + std::to_string(index + 1) + " of " +
                     std::to_string(n) + ": " + launched.error;
  return launched;
}

ProcessGroup::Launched ExecFleet::spawn_item(std::size_t index, pid_t group,
                                             const ExecArrival& arrival) {
  const ExecItem& item = arrival.item;
  FleetProcess p;
  p.slot = {static_cast<std::int64_t>(index), item.client, 1};
  p.item = item.item;
  p.due_ns = arrival.due_ns;
  std::vector<std::string> argv{spec_.command};
  for (auto& a : item_arguments(spec_.args, spec_.url, item)) argv.push_back(std::move(a));
  auto env = process_environment(spec_.environment, item_variables(item, spec_.clients, spec_.url));
  // A client runs many items in turn: each process's log is its item's.
  auto launched = fork_child(index, group, p, std::move(argv), std::move(env),
                             "item-" + std::to_string(item.item) + ".log");
  if (launched.pid < 0)
    launched.error =
        "cannot start item " + std::to_string(item.item) + "'s process: " + launched.error;
  return launched;
}

ProcessGroup::Launched ExecFleet::fork_child(std::size_t index, pid_t group, FleetProcess p,
                                             std::vector<std::string> argv,
                                             std::vector<std::string> env,
                                             const std::string& log_name) {
  const auto failed = [](const std::string& e) { return ProcessGroup::Launched{-1, e}; };
  const auto argv_p = pointers(argv);
  const auto env_p = pointers(env);

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return failed(errno_text("pipe"));
  int log_fd = -1;
  if (!spec_.logs_dir.empty()) {
    const std::string path = spec_.logs_dir + "/" + log_name;
    log_fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      const auto e = errno_text(("--logs: " + path).c_str());
      close(out[0]);
      close(out[1]);
      return failed(e);
    }
  }
  ChildSetup c;
  c.index = static_cast<std::int32_t>(index);
  c.fds = {
      devnull_fd_,       out[1], out[1], release_fds_[0], spec_.wait_ready ? ready_fds_[1] : -1,
      exec_error_fds_[1]};
  c.wait_ready = spec_.wait_ready;
  c.mask = &signals_.previous_mask();
  c.program = spec_.program.c_str();
  c.argv = argv_p.data();
  c.envp = env_p.data();
  const pid_t pid = ProcessGroup::fork_member(group, SIGKILL);
  if (pid < 0) {
    const auto e = errno_text("fork");
    close(out[0]);
    close(out[1]);
    if (log_fd >= 0) close(log_fd);
    return failed(e);
  }
  if (pid == 0) run_child(c);
  close(out[1]);
  set_nonblocking(out[0]);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag(Tag::kOutput, index);
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, out[0], &ev);
  p.pid = pid;
  run_.processes.push_back(p);
  out_fds_.push_back(out[0]);
  log_fds_.push_back(log_fd);
  logs_.emplace_back(spec_.log_limit_bytes);
  return {pid, {}};
}

// Each arrival due by now: a free client runs it as one process, or it is dropped. An item
// whose process cannot be started is counted, and stays unfinished.
void ExecFleet::start_due_arrivals(std::int64_t now_ns) {
  while (arrivals_pending() && run_.release_steady_ns + next_->due_ns <= now_ns) {
    ExecArrival arrival = std::move(*next_);
    next_ = spec_.arrivals();
    run_.trace->record_arrival(arrival.due_ns);
    const auto client = pool_.take();
    if (!client) {
      ++run_.dropped;
      continue;
    }
    arrival.item.client = *client;
    if (auto e =
            group_.add([&](std::size_t i, pid_t group) { return spawn_item(i, group, arrival); })) {
      if (run_.start_failures++ == 0) run_.start_error = *e;
      pool_.release(*client);
      continue;
    }
    const std::int64_t started_ns = ScenarioClock::steady_ns() - run_.release_steady_ns;
    run_.trace->record_first_send(started_ns);
    run_.trace->record_lag(arrival.due_ns, started_ns);
  }
  // No more processes to start: the exec-error pipe's end is the last child's.
  if (!next_) close_fd(exec_error_fds_[1]);
}

void ExecFleet::release() {
  group_.open_gate();
  close_fd(release_fds_[1]);
  run_.released = true;
  run_.release_steady_ns = ScenarioClock::steady_ns();
}

void ExecFleet::stop(FleetStop why, std::int64_t now_ns, const FleetBounds& bounds) {
  if (run_.stopped != FleetStop::kNone) return;
  run_.stopped = why;
  group_.stop(bounds.grace_ns > 0 ? SIGTERM : SIGKILL, now_ns + bounds.grace_ns);
}

void ExecFleet::reap(std::int64_t now_ns) {
  for (const auto& r : group_.reap_ended()) {
    auto& p = run_.processes[r.index];
    p.ended = true;
    p.end = group_.members()[r.index].end;  // running_at_stop kept from the stop
    p.end_steady_ns = now_ns;
    if (spec_.arrivals) pool_.release(static_cast<std::uint32_t>(p.slot.first_client));
  }
}

void ExecFleet::read_output(std::size_t i) {
  static char buffer[kReadChunk];
  for (int reads = 0; reads < kReadsPerWake && out_fds_[i] >= 0; ++reads) {
    const ssize_t n = read(out_fds_[i], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, out_fds_[i], nullptr);
      close_fd(out_fds_[i]);
      close_log(i);
      return;
    }
    run_.processes[i].output_bytes += n;
    const auto kept = logs_[i].keep(n);
    if (kept > 0 && log_fds_[i] >= 0 &&
        !write_all(log_fds_[i], buffer, static_cast<std::size_t>(kept))) {
      run_.warnings.push_back(errno_text(
          ("--logs: writing client-" + std::to_string(run_.processes[i].slot.first_client) + ".log")
              .c_str()));
      close_fd(log_fds_[i]);
    }
  }
}

// The output's end, or the fleet's: a trace's fleet starts a process an arrival, so each
// log is closed as its output ends rather than all held to the end.
void ExecFleet::close_log(std::size_t i) {
  run_.processes[i].log_dropped = logs_[i].dropped();
  const auto note = logs_[i].truncation_note();
  if (log_fds_[i] >= 0 && !note.empty()) write_all(log_fds_[i], note.data(), note.size());
  close_fd(log_fds_[i]);
}

void ExecFleet::read_exec_errors() {
  ExecError e{};
  ssize_t n = 0;
  while (exec_error_fds_[0] >= 0 && (n = read(exec_error_fds_[0], &e, sizeof e)) == sizeof e) {
    if (e.index >= 0 && static_cast<std::size_t>(e.index) < run_.processes.size())
      run_.processes[static_cast<std::size_t>(e.index)].exec_errno = e.error;
  }
  // Every child has run its program or ended: no writer is left, and a pipe without one
  // would wake the loop for ever.
  if (n == 0 && exec_error_fds_[0] >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, exec_error_fds_[0], nullptr);
    close_fd(exec_error_fds_[0]);
  }
}

void ExecFleet::handle(std::uint64_t t, std::int64_t now_ns) {
  const auto kind = static_cast<Tag>(t >> 32);
  const auto index = static_cast<std::size_t>(t & 0xffffffffU);
  if (kind == Tag::kOutput) return read_output(index);
  if (kind == Tag::kExecError) return read_exec_errors();
  if (kind == Tag::kReady) {
    char bytes[256];
    const ssize_t n = read(ready_fds_[0], bytes, sizeof bytes);
    if (n > 0) ready_ += n;
    if (n == 0) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, ready_fds_[0], nullptr);
      close_fd(ready_fds_[0]);
    }
    return;
  }
  for (int sig; (sig = signals_.take()) != 0;) {
    if (sig == SIGCHLD) {
      reap(now_ns);
      continue;
    }
    if (group_.take_signal() == SignalMove::kStop) {
      std::fprintf(stderr,
                   "%sloadgen: %s: stopping the fleet (SIGTERM to every process, SIGKILL after "
                   "--grace; again to kill at once)\n",
                   clear_line(), strsignal(sig));
      signal_stop_ = true;
    } else {
      std::fprintf(stderr, "%sloadgen: %s: killing the fleet\n", clear_line(), strsignal(sig));
      group_.kill();
    }
  }
}

std::int64_t ExecFleet::next_wake_ns(const FleetBounds& bounds, std::int64_t now_ns) const {
  std::int64_t wake = now_ns + kTickNs;
  if (run_.stopped == FleetStop::kNone) {
    wake = std::min(wake, bounds.deadline_steady_ns);
    if (run_.released && bounds.timeout_ns)
      wake = std::min(wake, run_.release_steady_ns + *bounds.timeout_ns);
    if (run_.released && next_) wake = std::min(wake, run_.release_steady_ns + next_->due_ns);
  } else if (const auto kill_at = group_.pending_kill_ns()) {
    wake = std::min(wake, *kill_at);
  }
  return wake;
}

std::optional<std::string> ExecFleet::run(
    const FleetBounds& bounds, const std::function<std::optional<std::string>()>& before_release,
    const std::function<void()>& after_release) {
  const auto n = static_cast<std::int64_t>(run_.processes.size());
  std::int64_t next_tick_ns = ScenarioClock::steady_ns() + kTickNs;
  std::array<epoll_event, 64> events{};
  while (true) {
    const std::int64_t now = ScenarioClock::steady_ns();
    if (signal_stop_) {
      signal_stop_ = false;
      stop(FleetStop::kSignal, now, bounds);
    }
    const auto ended = n - static_cast<std::int64_t>(group_.running());
    const bool ready = !spec_.wait_ready || ready_ + ended >= n;
    if (!run_.released && run_.stopped == FleetStop::kNone && ready) {
      if (auto e = before_release()) {
        group_.kill();
        return e;
      }
      release();
      if (after_release) after_release();
    }
    if (run_.stopped == FleetStop::kNone) {
      if (now >= bounds.deadline_steady_ns) {
        stop(FleetStop::kMaxDuration, now, bounds);
      } else if (run_.released && bounds.timeout_ns &&
                 now >= run_.release_steady_ns + *bounds.timeout_ns) {
        stop(FleetStop::kTimeout, now, bounds);
      }
    } else {
      group_.kill_if_due(now);
    }
    if (run_.released) start_due_arrivals(now);
    if (group_.running() == 0 && !arrivals_pending()) break;
    if (tick_ && now >= next_tick_ns) {
      tick_(run_);
      next_tick_ns = now + kTickNs;
    }
    const std::int64_t wait_ns = std::max<std::int64_t>(next_wake_ns(bounds, now) - now, 0);
    const int ready_events = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                                        static_cast<int>((wait_ns + kNsPerMs - 1) / kNsPerMs));
    const std::int64_t woke = ScenarioClock::steady_ns();
    for (int i = 0; i < ready_events; ++i)
      handle(events[static_cast<std::size_t>(i)].data.u64, woke);
  }
  finish();
  return std::nullopt;
}

void ExecFleet::finish() {
  // Every process has ended; what is still in their pipes is read, not waited for (a
  // descendant may hold a pipe open: it is killed with the group below).
  for (std::size_t i = 0; i < out_fds_.size(); ++i) {
    while (out_fds_[i] >= 0) {
      const auto before = run_.processes[i].output_bytes;
      read_output(i);
      if (run_.processes[i].output_bytes == before) break;
    }
    close_fd(out_fds_[i]);
    close_log(i);
  }
  read_exec_errors();
  group_.close_group();
  run_.end_steady_ns = ScenarioClock::steady_ns();
}

}  // namespace stampede
