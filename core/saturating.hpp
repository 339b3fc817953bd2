#pragma once

#include <cstdint>
#include <limits>

namespace stampede {

// Times are int64 nanoseconds, which end in 2262. An instant plus a duration past either end
// is that end, never a wrap: a wait a hostile Retry-After stretches past the range still
// means "not in this run", where a wrapped sum would mean "long ago", so "at once".
inline constexpr std::int64_t kMaxNs = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kMinNs = std::numeric_limits<std::int64_t>::min();

constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? kMaxNs : kMinNs;
  return sum;
}

constexpr std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  std::int64_t difference = 0;
  if (__builtin_sub_overflow(a, b, &difference)) return b < 0 ? kMaxNs : kMinNs;
  return difference;
}

constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return (a < 0) != (b < 0) ? kMinNs : kMaxNs;
  return product;
}

// A nanosecond count computed in floating point (a duration times a time scale) as int64:
// converting a double out of range is undefined, and on x86 gives the most negative value.
// NaN is 0.
constexpr std::int64_t saturating_ns(double ns) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (!(ns == ns)) return 0;
  if (ns >= kTwoTo63) return kMaxNs;
  if (ns <= -kTwoTo63) return kMinNs;
  return static_cast<std::int64_t>(ns);
}

}  // namespace stampede
