#pragma once

// What a sanitizer build changes for the cases that run real fleets.
namespace support {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// Whether counts that follow from a fleet's timing can be asserted exactly. Under TSan every
// process runs five to fifteen times slower and CI runs four such cases at once on two cores:
// a burst of first sends spreads over more than the window the count depends on (CI saw 600
// requests where 800 were due, a full-jitter fleet's peak above an exponential one's, a
// supervised fleet 1,065 requests of 1,200). The Release and ASan trees assert those counts;
// under TSan, which is there for races, a case asserts what no timing changes.
#ifdef __SANITIZE_THREAD__
inline constexpr bool kTimingExact = false;
#else
inline constexpr bool kTimingExact = true;
#endif

// A bound on a child's run that a sanitizer's slowdown does not break: a million-client
// simulation that takes 10 s in Release took 68 s alone under TSan, and more beside three
// other cases (past CI's 120 s bound). Four times stays under ctest's own 600 s.
constexpr int slowed(int seconds) {
  return kSanitized ? seconds * 4 : seconds;
}

}  // namespace support
