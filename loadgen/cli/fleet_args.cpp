#include "cli/fleet_args.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

#include "duration.hpp"
#include "html_report.hpp"
#include "output_path.hpp"

namespace stampede {

void take_stream_flags(const StreamArgs& a, Scenario& scenario) {
  if (a.stream) {
    scenario.fleet.stream = true;
    scenario.given.emplace("fleet.stream");
  }
  if (a.max_tokens == 0) return;
  scenario.fleet.max_tokens = a.max_tokens;
  scenario.given.emplace("fleet.max_tokens");
}

Parsed<std::int64_t> positive_duration(const std::string& flag, const std::string& text) {
  auto d = parse_duration_ns(text);
  if (!d) return Parsed<std::int64_t>::fail(flag + ": " + d.error());
  if (*d <= 0) return Parsed<std::int64_t>::fail(flag + ": must be longer than zero");
  return d;
}

// A request in flight has ended by its timeout (timeout_wall_ns), so a longer grace could only
// stretch the run past --max-duration: the default is 2s or the timeout if shorter, and a
// longer one is refused.
Parsed<std::int64_t> grace_ns(const std::string& text, std::int64_t timeout_wall_ns) {
  constexpr std::int64_t kDefaultGraceNs = 2 * kNsPerSec;
  if (text.empty()) return Parsed<std::int64_t>::ok(std::min(kDefaultGraceNs, timeout_wall_ns));
  auto d = parse_duration_ns(text);
  if (!d) return Parsed<std::int64_t>::fail("--grace: " + d.error());
  if (*d > timeout_wall_ns) {
    return Parsed<std::int64_t>::fail(
        "--grace: '" + text + "' is longer than a request can be in flight (--timeout, " +
        format_duration(timeout_wall_ns) + " on the wall); give at most that");
  }
  return d;
}

Parsed<Shard> shard_from(const ShardArgs& a, const EnvLookup& env) {
  return resolve_shard(a.shard, env("JOB_COMPLETION_INDEX"), env("STAMPEDE_SHARDS"));
}

std::string report_path_for(const std::string& report, const std::string& out, bool no_report) {
  if (no_report) return "";
  if (!report.empty()) return report;
  // Beside stdout there is nowhere: a report then needs its own --report. Beside /dev/null it
  // would be /dev/null.html, beside a folder FOLDER.html: only beside a file.
  if (out.empty() || out == kStdoutPath) return "";
  const auto target = check_output_path(out);
  return target && target->kind != OutputKind::kInPlace ? default_report_path(out) : "";
}

std::string report_flag(const std::string& report) {
  return report.empty() ? "--report (beside --out)" : "--report";
}

Parsed<std::string> read_text_file(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Parsed<std::string>::fail(flag + ": cannot read '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return Parsed<std::string>::ok(text.str());
}

}  // namespace stampede
