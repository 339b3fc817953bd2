#include "live/dead_letter_writer.hpp"

#include <nlohmann/json.hpp>

#include "duration.hpp"

namespace stampede {

std::string format_dead_letters(const std::vector<DeadLetter>& letters) {
  std::string out;
  for (const auto& d : letters) {
    nlohmann::ordered_json j{{"item", d.item}, {"client", d.client}, {"sends", d.sends}};
    j["last_outcome"] = d.last_outcome ? nlohmann::ordered_json(outcome_name(*d.last_outcome))
                                       : nlohmann::ordered_json(nullptr);
    j["last_status"] = d.last_status;
    j["reason"] = d.reason;
    j["t_s"] = ns_to_s(d.t_ns);
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace stampede
