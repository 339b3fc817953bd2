#include "process/group_rules.hpp"

#include <string.h>

namespace stampede {

bool end_failed(const ProcessEnd& end, int last_good_exit) {
  return !end.exited || end.exit_code > last_good_exit;
}

EndVerdict judge_end(const ProcessEnd& end, const EndRules& rules, const GroupMoment& group) {
  const bool unstarted = rules.gated && !group.gate_open;
  EndVerdict v;
  v.failed = end_failed(end, rules.last_good_exit) || unstarted;
  v.stop_rest = v.failed && rules.stop_rest_on_failure && !group.stopping && group.running > 0;
  return v;
}

SignalMove signal_move(int seen_before, bool stopping) {
  return seen_before == 0 && !stopping ? SignalMove::kStop : SignalMove::kAbort;
}

bool kill_due(std::optional<std::int64_t> kill_at_ns, bool killed, std::int64_t now_ns) {
  return kill_at_ns && !killed && now_ns >= *kill_at_ns;
}

std::optional<std::string> failures_named(const std::vector<ProcessEnd>& ends, int last_good_exit) {
  std::string named;
  for (std::size_t i = 0; i < ends.size(); ++i) {
    const ProcessEnd& e = ends[i];
    if (!end_failed(e, last_good_exit)) continue;
    named += (named.empty() ? "" : "; ") + std::string("worker ") + std::to_string(i) +
             (e.exited ? " exited " + std::to_string(e.exit_code)
                       : std::string(" was killed by ") + strsignal(e.term_signal));
  }
  if (named.empty()) return std::nullopt;
  return named;
}

}  // namespace stampede
