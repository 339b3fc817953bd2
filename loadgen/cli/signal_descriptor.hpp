#pragma once

#include <signal.h>

#include <initializer_list>

namespace stampede {

// Signals arrive on a descriptor the main thread polls, never as handlers: they are blocked
// from construction on, and every thread started after it inherits the mask, so no loop is
// ever interrupted. A child process must set previous_mask() back before it runs a program.
class SignalDescriptor {
 public:
  explicit SignalDescriptor(std::initializer_list<int> signals = {SIGINT, SIGTERM});
  ~SignalDescriptor();
  SignalDescriptor(const SignalDescriptor&) = delete;
  SignalDescriptor& operator=(const SignalDescriptor&) = delete;

  int fd() const { return fd_; }
  // The next pending signal's number; 0 when none is pending.
  int take() const;
  const sigset_t& previous_mask() const { return old_; }

 private:
  sigset_t set_{}, old_{};
  int fd_ = -1;
};

}  // namespace stampede
