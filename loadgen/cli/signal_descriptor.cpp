#include "cli/signal_descriptor.hpp"

#include <pthread.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace stampede {

SignalDescriptor::SignalDescriptor(std::initializer_list<int> signals) {
  sigemptyset(&set_);
  for (const int s : signals) sigaddset(&set_, s);
  pthread_sigmask(SIG_BLOCK, &set_, &old_);
  fd_ = signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
}

SignalDescriptor::~SignalDescriptor() {
  // A signal that came after the run stopped (during the final writes) is spent here: let
  // through by the old mask, it would end the process with no exit code of ours.
  while (take() != 0) {
  }
  if (fd_ >= 0) close(fd_);
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

int SignalDescriptor::take() const {
  signalfd_siginfo info{};
  return read(fd_, &info, sizeof info) == sizeof info ? static_cast<int>(info.ssi_signo) : 0;
}

}  // namespace stampede
