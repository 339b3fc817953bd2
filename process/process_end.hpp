#pragma once

#include <string>

namespace stampede {

// How a process ended, as waitpid said, and whether a stop (a bound, a signal, a failed
// sibling) found it still running.
struct ProcessEnd {
  bool exited = false;  // exit_code holds its status; otherwise term_signal killed it
  int exit_code = 0;
  int term_signal = 0;
  bool running_at_stop = false;
};

// From waitpid's status.
ProcessEnd process_end(int wait_status);

// "0", "1", ... or "SIGKILL".
std::string end_label(const ProcessEnd& end);

}  // namespace stampede
