#include "cli/attempt_log.hpp"

#include <nlohmann/json.hpp>

namespace stampede {

std::string format_attempts(const std::vector<AttemptRecord>& attempts) {
  using ojson = nlohmann::ordered_json;
  std::string out;
  for (const auto& a : attempts) {
    ojson j{{"client", a.client},
            {"item", a.item},
            {"send", a.send},
            {"intended_s", ns_to_s(a.intended_ns)},
            {"sent_s", ns_to_s(a.sent_ns)}};
    j["answered_s"] = a.answered_ns >= 0 ? ojson(ns_to_s(a.answered_ns)) : ojson(nullptr);
    j["wake_lateness_ms"] = static_cast<double>(a.wake_lateness_ns) / kNsPerMs;
    j["send_lateness_ms"] = static_cast<double>(a.send_lateness_ns) / kNsPerMs;
    j["status"] = a.status;
    j["outcome"] = outcome_name(a.outcome);
    j["error"] = a.transport_error != TransportError::kNone
                     ? ojson(transport_error_name(a.transport_error))
                     : ojson(nullptr);
    j["retry_after_s"] = a.retry_after_ns >= 0 ? ojson(ns_to_s(a.retry_after_ns)) : ojson(nullptr);
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace stampede
