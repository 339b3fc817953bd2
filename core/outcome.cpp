#include "outcome.hpp"

namespace stampede {

std::optional<Outcome> parse_outcome_name(std::string_view name) {
  return find_enum(kOutcomes, name);
}

Outcome classify_status(int status) {
  // No final answer has another status: libcurl hands over a 999 as if it were one.
  if (status < 200 || status > 599) return Outcome::kBadResponse;
  if (status >= 200 && status < 300) return Outcome::kOk;
  if (status == 429) return Outcome::kRateLimited;
  if (status == 503) return Outcome::kUnavailable;
  if (status == 529) return Outcome::kOverloaded;
  if (status >= 500) return Outcome::kServerError;
  return Outcome::kClientError;
}

}  // namespace stampede
