#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "process/group_rules.hpp"
#include "process/process_end.hpp"

namespace stampede {

// Child processes run as one group: started in order (none left behind when one cannot be),
// signalled, stopped (SIGKILL after a grace, or never), reaped, the rest stopped when one
// fails (group_rules), and killed and reaped when the group goes. How a member is started,
// what it is given and how it is told to start (its channels) are the owner's: a Launch.
class ProcessGroup {
 public:
  struct Options {
    EndRules ends;
    // Every member in one process group, led by a holder that runs nothing and blocks every
    // signal but SIGKILL: while it lives the group's number stays ours, so what the members
    // started can be signalled with them (kill(-group)), even after they ended.
    bool hold_group = false;
  };
  struct Member {
    pid_t pid = -1;
    bool ended = false;
    ProcessEnd end;
  };
  // Starts member index, joining group when it is not 0: its pid, or why it could not start.
  struct Launched {
    pid_t pid = -1;
    std::string error;
  };
  using Launch = std::function<Launched(std::size_t index, pid_t group)>;

  explicit ProcessGroup(Options options);
  ~ProcessGroup();  // SIGKILL to what still runs, every child reaped
  ProcessGroup(ProcessGroup&& other) noexcept;
  ProcessGroup& operator=(ProcessGroup&&) = delete;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  // The holder (hold_group), then count members in order. When one cannot start, those
  // started are killed and reaped (none of them had anything to finish) and its error returned.
  std::optional<std::string> start(std::size_t count, const Launch& launch);
  // One more member after the start, as index members().size(): a fleet that starts its
  // members as they fall due. When it cannot start, the rest run on and its error is returned.
  std::optional<std::string> add(const Launch& launch);

  // fork() for a Launch: in the child, which joins group (when not 0) and gets death_signal
  // when its owner dies (PR_SET_PDEATHSIG; it exits at once if the owner died before), 0; in
  // the owner, the child's pid, or -1 with errno set.
  static pid_t fork_member(pid_t group, int death_signal);

  const std::vector<Member>& members() const { return members_; }
  std::size_t running() const { return running_; }
  bool stopping() const { return stopping_; }

  // The members' start has been given (the gate of EndRules::gated).
  void open_gate() { gate_open_ = true; }
  bool gate_open() const { return gate_open_; }

  // To each running member and, with hold_group, to the whole group.
  void signal_running(int sig);
  // A SIGINT or SIGTERM the owner received, counted: what it asks for (signal_move).
  SignalMove take_signal();
  int signals_seen() const { return signals_seen_; }
  // Once: sig to every running member (each marked running_at_stop), SIGKILL at kill_at_ns
  // (steady clock; none: never).
  void stop(int sig, std::optional<std::int64_t> kill_at_ns);
  // SIGKILL to each running member and the held group.
  void kill();
  // The stop's SIGKILL, if it is due at now_ns.
  void kill_if_due(std::int64_t now_ns);
  // When the stop's SIGKILL is to go; none when there is none to send.
  std::optional<std::int64_t> pending_kill_ns() const;

  // A member that ended, and what its end means to the group (the rest are stopped already
  // when the verdict says so).
  struct Reaped {
    std::size_t index = 0;
    EndVerdict verdict;
  };
  // Every child of this process that ended, without waiting (after a SIGCHLD).
  std::vector<Reaped> reap_ended();
  // Waits for member index (its output's end said it exited).
  Reaped wait_for(std::size_t index);
  // Waits for every member.
  void wait_all();
  // Every member ended: SIGKILL to what they left behind in the held group; the holder reaped.
  void close_group();

 private:
  std::optional<Reaped> record(pid_t pid, int status);
  std::optional<std::string> start_holder();
  void kill_started();

  Options options_;
  std::vector<Member> members_;
  // Both kept as members start and end: a fleet may be thousands of processes, and its loop
  // asks at every wake.
  std::unordered_map<pid_t, std::size_t> index_of_;
  std::size_t running_ = 0;
  pid_t holder_ = -1;
  bool gate_open_ = false;
  bool stopping_ = false;
  bool killed_ = false;  // SIGKILL sent to every running member
  int signals_seen_ = 0;
  std::optional<std::int64_t> kill_at_ns_;
};

}  // namespace stampede
