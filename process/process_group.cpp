#include "process/process_group.hpp"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

namespace stampede {
namespace {

// The holder: it runs nothing and ignores every signal but SIGKILL, so the group's number
// stays ours until the end.
[[noreturn]] void hold_group(pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, nullptr);
  close_range(0, ~0U, 0);
  for (;;) pause();
}

pid_t wait_retrying(pid_t pid, int& status, int flags) {
  pid_t got;
  while ((got = waitpid(pid, &status, flags)) < 0 && errno == EINTR) {
  }
  return got;
}

}  // namespace

ProcessGroup::ProcessGroup(Options options) : options_(options) {}

ProcessGroup::ProcessGroup(ProcessGroup&& other) noexcept
    : options_(other.options_),
      members_(std::exchange(other.members_, {})),
      index_of_(std::exchange(other.index_of_, {})),
      running_(std::exchange(other.running_, 0)),
      holder_(std::exchange(other.holder_, -1)),
      gate_open_(other.gate_open_),
      stopping_(other.stopping_),
      killed_(other.killed_),
      signals_seen_(other.signals_seen_),
      kill_at_ns_(other.kill_at_ns_) {}

ProcessGroup::~ProcessGroup() {
  if (running() > 0) {
    kill();
    wait_all();
  }
  close_group();
}

pid_t ProcessGroup::fork_member(pid_t group, int death_signal) {
  const pid_t owner = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    if (group > 0) setpgid(0, group);
    prctl(PR_SET_PDEATHSIG, death_signal);
    if (getppid() != owner) _exit(1);  // the owner died before the line above
  } else if (pid > 0 && group > 0) {
    setpgid(pid, group);  // as the child does: whichever runs first
  }
  return pid;
}

std::optional<std::string> ProcessGroup::start_holder() {
  const pid_t parent = getpid();
  holder_ = fork();
  if (holder_ < 0) return std::string("fork: ") + strerror(errno);
  if (holder_ == 0) hold_group(parent);
  setpgid(holder_, holder_);
  return std::nullopt;
}

std::optional<std::string> ProcessGroup::start(std::size_t count, const Launch& launch) {
  if (options_.hold_group) {
    if (auto e = start_holder()) {
      holder_ = -1;
      return "cannot start the process group's holder: " + *e;
    }
  }
  members_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (auto e = add(launch)) {
      kill_started();
      return e;
    }
  }
  return std::nullopt;
}

std::optional<std::string> ProcessGroup::add(const Launch& launch) {
  const Launched launched = launch(members_.size(), options_.hold_group ? holder_ : 0);
  if (launched.pid <= 0) return launched.error;
  index_of_[launched.pid] = members_.size();
  members_.push_back({launched.pid, false, {}});
  ++running_;
  return std::nullopt;
}

void ProcessGroup::kill_started() {
  kill();
  wait_all();
  close_group();
}

void ProcessGroup::signal_running(int sig) {
  for (const auto& m : members_) {
    if (!m.ended) ::kill(m.pid, sig);
  }
  // What they started, too. The holder blocks every signal but SIGKILL, which ends it with
  // the rest.
  if (holder_ > 0) ::kill(-holder_, sig);
  if (sig == SIGKILL) killed_ = true;
}

void ProcessGroup::kill() {
  signal_running(SIGKILL);
}

SignalMove ProcessGroup::take_signal() {
  return signal_move(signals_seen_++, stopping_);
}

void ProcessGroup::stop(int sig, std::optional<std::int64_t> kill_at_ns) {
  if (stopping_) return;
  stopping_ = true;
  for (auto& m : members_) {
    if (!m.ended) m.end.running_at_stop = true;
  }
  signal_running(sig);
  kill_at_ns_ = kill_at_ns;
}

void ProcessGroup::kill_if_due(std::int64_t now_ns) {
  if (kill_due(kill_at_ns_, killed_, now_ns)) kill();
}

std::optional<std::int64_t> ProcessGroup::pending_kill_ns() const {
  if (killed_) return std::nullopt;
  return kill_at_ns_;
}

std::optional<ProcessGroup::Reaped> ProcessGroup::record(pid_t pid, int status) {
  if (pid == holder_) {
    holder_ = -1;
    return std::nullopt;
  }
  const auto found = index_of_.find(pid);
  if (found == index_of_.end() || members_[found->second].ended) return std::nullopt;
  Member& m = members_[found->second];
  m.ended = true;
  --running_;
  const bool at_stop = m.end.running_at_stop;
  m.end = process_end(status);
  m.end.running_at_stop = at_stop;
  const auto verdict = judge_end(m.end, options_.ends, {gate_open_, stopping_, running_});
  if (verdict.stop_rest) stop(SIGTERM, std::nullopt);
  return Reaped{found->second, verdict};
}

std::vector<ProcessGroup::Reaped> ProcessGroup::reap_ended() {
  std::vector<Reaped> reaped;
  int status = 0;
  for (pid_t pid; (pid = wait_retrying(-1, status, WNOHANG)) > 0;) {
    if (auto r = record(pid, status)) reaped.push_back(*r);
  }
  return reaped;
}

ProcessGroup::Reaped ProcessGroup::wait_for(std::size_t index) {
  int status = 0;
  const pid_t pid = members_[index].pid;
  if (members_[index].ended || wait_retrying(pid, status, 0) != pid) return {index, {}};
  return record(pid, status).value_or(Reaped{index, {}});
}

void ProcessGroup::wait_all() {
  for (std::size_t i = 0; i < members_.size(); ++i) wait_for(i);
}

void ProcessGroup::close_group() {
  if (holder_ <= 0) return;
  ::kill(-holder_, SIGKILL);
  int status = 0;
  wait_retrying(holder_, status, 0);
  holder_ = -1;
}

}  // namespace stampede
