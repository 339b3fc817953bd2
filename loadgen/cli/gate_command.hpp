#pragma once

#include <string>
#include <vector>

namespace stampede {

struct GateCommand {
  std::string input;                 // a results document: any engine's, or fakeprovider's own
  std::vector<std::string> asserts;  // --assert expressions
  bool expect_none = false;          // leave out the default expectation, delivered > 0
  std::string junit;                 // --junit: JUnit XML, a case per check; empty: none
  bool quiet = false;                // print nothing; the exit code only
};

// Checks a results document after the fact: its scenario's expectations, --assert and, unless
// expect_none, delivered > 0, each meaningful for what the document recorded (the provider's
// own document has the per-item record: hint_share, lockstep), judged as the run that wrote it
// is (core/gate.hpp). Prints one PASS, FAIL or REFUSED line a check. Returns 0 every check
// holds, 1 one fails, 2 the file cannot be read or is not a results document, or a check means
// nothing for it or was refused (one line naming it), 3 --junit could not be written.
int run_gate_command(const GateCommand& cmd);

}  // namespace stampede
