#include "utf8.hpp"

#include <cstddef>
#include <cstdint>

namespace stampede {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// How many bytes of a well-formed sequence start at text[at], or 0 when none does. The
// second byte's range depends on the first (Unicode Table 3-7); the rest are 80..BF.
std::size_t sequence_length(std::string_view text, std::size_t at, std::size_t& valid_prefix) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[at + i]); };
  const std::uint8_t b0 = byte(0);
  valid_prefix = 0;
  if (b0 < 0x80) return 1;
  std::size_t length = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong three-byte forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) lo = 0x90;  // no overlong four-byte forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  valid_prefix = 1;
  for (std::size_t i = 1; i < length; ++i, lo = 0x80, hi = 0xBF) {
    if (at + i >= text.size() || byte(i) < lo || byte(i) > hi) return 0;
    ++valid_prefix;
  }
  return length;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    std::size_t prefix = 0;
    if (const std::size_t n = sequence_length(text, at, prefix); n > 0) {
      out.append(text.substr(at, n));
      at += n;
    } else {
      out.append(kReplacement);
      at += prefix > 0 ? prefix : 1;  // a truncated sequence is one ill-formed subpart
    }
  }
  return out;
}

}  // namespace stampede
