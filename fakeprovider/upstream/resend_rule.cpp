#include "upstream/resend_rule.hpp"

#include <algorithm>
#include <array>

namespace stampede {

bool idempotent_method(std::string_view method) {
  constexpr std::array<std::string_view, 6> kIdempotent = {"GET",   "HEAD", "OPTIONS",
                                                           "TRACE", "PUT",  "DELETE"};
  return std::find(kIdempotent.begin(), kIdempotent.end(), method) != kIdempotent.end();
}

bool may_resend(std::string_view method, std::size_t bytes_sent, int attempt) {
  return attempt == 1 && bytes_sent == 0 && idempotent_method(method);
}

}  // namespace stampede
