// Rates as a scenario file or a flag spells them: any text either parses to a positive count
// per known window whose spelling parses back the same, or fails with a message.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = stampede::parse_rate(text);
  if (!r) {
    if (r.error().empty()) std::abort();
    return 0;
  }
  if (r->count <= 0 || r->window_ns <= 0 || !std::isfinite(r->per_second())) std::abort();
  const auto again = stampede::parse_rate(stampede::format_rate(*r));
  if (!again || !(*again == *r)) std::abort();
  return 0;
}
