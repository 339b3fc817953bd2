#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

// The real loadgen binary run to its exit, with its output files read back.
namespace support {

struct Run {
  int code = -1;  // as Process::wait: -1 when it had to be killed
  std::string out, err;
  nlohmann::json results;  // --out, parsed; null if none
  std::vector<nlohmann::json> dead_letters;
  std::vector<nlohmann::json> attempts;  // --attempts-out (run_loadgen only)
};

// loadgen run with args plus --out, --dead-letter, --attempts-out and --quiet, to its exit.
Run run_loadgen(const std::vector<std::string>& args, const EnvChanges& env = {});

// no_proxy and NO_PROXY for 127.0.0.1 and localhost: a proxy in the environment must not take
// a fleet's loopback requests.
extern const EnvChanges kNoProxyForLoopback;

// loadgen exec ARGS -- COMMAND with --out and --dead-letter in dir, --no-report and --quiet,
// to its exit, with kNoProxyForLoopback.
Run run_exec(const TempDir& dir, std::vector<std::string> args,
             const std::vector<std::string>& command);

// The --dashboard URL a running loadgen says on stderr before any load ("" if it exits or
// says none within a safety bound, not a threshold).
std::string dashboard_url(Process& loadgen);
// Its port.
int dashboard_port(const std::string& url);

}  // namespace support
