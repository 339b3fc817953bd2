#include "process/process_end.hpp"

#include <string.h>
#include <sys/wait.h>

namespace stampede {

ProcessEnd process_end(int wait_status) {
  ProcessEnd end;
  end.exited = WIFEXITED(wait_status);
  end.exit_code = end.exited ? WEXITSTATUS(wait_status) : 0;
  end.term_signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  return end;
}

std::string end_label(const ProcessEnd& end) {
  if (end.exited) return std::to_string(end.exit_code);
  const char* abbrev = sigabbrev_np(end.term_signal);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(end.term_signal);
}

}  // namespace stampede
