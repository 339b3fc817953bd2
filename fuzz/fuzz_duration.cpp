// Durations as a scenario file or a flag spells them: any text either parses to a value whose
// spelling parses back to the same nanoseconds, or fails with a message that names the text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "duration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto d = stampede::parse_duration_ns(text);
  if (!d) {
    if (d.error().empty()) std::abort();
    return 0;
  }
  if (*d < 0) std::abort();
  const auto again = stampede::parse_duration_ns(stampede::format_duration(*d));
  if (!again || *again != *d) std::abort();
  return 0;
}
