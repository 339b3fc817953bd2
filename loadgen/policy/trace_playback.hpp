#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "policy/time_heap.hpp"
#include "policy/trace_reader.hpp"
#include "rng.hpp"
#include "trace_settings.hpp"

namespace stampede {

// The trace's own stream of draws, apart from every client's and the provider's.
inline constexpr std::uint64_t kTraceStream = 0xFFFF'FFFF'FFFF'FFFDULL;

// One arrival of a played trace: when its first send is due, in scenario ns from the window's
// start, and the record it came from.
struct TraceArrival {
  std::int64_t at_ns = 0;
  TraceRecord record;
};

// A trace's records played as arrivals, in time order: cut to the window, spread within their
// second, thinned or multiplied, sped up. Pure and seeded: the same trace and seed give the
// same arrivals. Memory: the arrivals of one spread (a second, or --scale-spread) at a time.
class TracePlayer {
 public:
  TracePlayer(TraceReader& reader, const TracePlayback& playback, std::uint64_t seed);

  // The next arrival; none at the end or on the trace's error (error()).
  std::optional<TraceArrival> next();
  const std::string& error() const { return reader_.error(); }

 private:
  std::optional<std::int64_t> play(TraceRecord& record);
  void push(std::int64_t trace_ns, TraceRecord&& record);
  std::int64_t played_ns(std::int64_t trace_ns) const;

  TraceReader& reader_;
  TracePlayback playback_;
  Rng rng_;
  std::int64_t whole_copies_;  // --scale's whole copies of every line
  double part_copy_;           // and the chance of one more
  bool done_ = false;
  std::int64_t settled_ns_ = 0;  // no arrival still to come is earlier than this
  TimeHeap<TraceArrival> pending_;
};

}  // namespace stampede
