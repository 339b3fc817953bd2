#pragma once

#include <doctest/doctest.h>

#include <string>

// The system tools some tests need (nginx, openssl, redis-server, python3 packages, chromium,
// debootstrap). The rule for a missing one: a developer's machine without the package skips
// the test; CI (.ci/run sets CI) installs them all, so there a missing tool is a broken
// pipeline and the test fails.
namespace support {

bool in_ci();

// The program's path when it is on PATH, else empty.
std::string find_program(const std::string& name);
// Whether path is an executable file.
bool have_executable(const std::string& path);
// Whether this python interpreter (a path; empty: none) imports these modules, e.g. "yaml"
// or "requests, tenacity".
bool python_imports(const std::string& python, const std::string& modules);
// Whether python3 imports yaml. Ask it inside a case (require_tool), not in a doctest::skip
// decorator: every case runs in a process of its own, and the decorators of all a binary's
// cases run at each process's start, so a decorator would start python3 once a case.
bool have_python_yaml();

// For a doctest::skip decorator: skip when the tool is missing, outside CI only.
inline bool skip_unless_ci(bool missing) {
  return missing && !in_ci();
}

// Inside a case: true when the tool is there. Otherwise false, after skipping the rest of the
// case (outside CI) or failing it (in CI); what names the tool, hint how to get it.
inline bool require_tool(bool present, const std::string& what, const std::string& hint = "") {
  if (present) return true;
  const std::string how = hint.empty() ? "" : " (" + hint + ")";
  if (in_ci()) {
    FAIL_CHECK(what << " is not installed, and CI must have it" << how);
  } else {
    MESSAGE("skipped: " << what << " is not installed" << how);
  }
  return false;
}

}  // namespace support
