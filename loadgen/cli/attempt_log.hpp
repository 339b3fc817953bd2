#pragma once

#include <string>
#include <vector>

#include "live/engine.hpp"

namespace stampede {

// --attempts-out: one JSON object per attempt, in send order; times in scenario seconds,
// lateness in wall milliseconds (wake: the loop woke to send it; send: about to be written).
// answered_s is on the fleet's schedule (see LiveOptions::compensate_latency): the next
// retry's intended_s is answered_s plus the backoff. error: the TransportError's name
// ("refused", "timeout", ...; docs/RESULTS.md), null for an HTTP answer.
// {"client":3,"item":3,"send":2,"intended_s":1.002,"sent_s":1.002,"answered_s":1.003,
//  "wake_lateness_ms":0.04,"send_lateness_ms":0.09,"status":503,"outcome":"503","error":null,
//  "retry_after_s":29}
std::string format_attempts(const std::vector<AttemptRecord>& attempts);

}  // namespace stampede
