#include "policy/trace_playback.hpp"

#include <cmath>

#include "saturating.hpp"

namespace stampede {
namespace {

// An arrival made in the optional it is returned in: its record moved once on its way out,
// not through a TraceArrival and then an optional of one.
std::optional<TraceArrival> arrival_now(std::int64_t at_ns, TraceRecord& record) {
  std::optional<TraceArrival> arrival(std::in_place);
  arrival->at_ns = at_ns;
  arrival->record = std::move(record);
  return arrival;
}

}  // namespace

TracePlayer::TracePlayer(TraceReader& reader, const TracePlayback& playback, std::uint64_t seed)
    : reader_(reader),
      playback_(playback),
      rng_(make_stream(seed, kTraceStream)),
      whole_copies_(static_cast<std::int64_t>(std::floor(playback.scale))),
      part_copy_(playback.scale - std::floor(playback.scale)) {}

std::optional<TraceArrival> TracePlayer::next() {
  while (true) {
    if (!pending_.empty() && (done_ || pending_.earliest_ns() <= settled_ns_))
      return pending_.pop();
    if (done_) return std::nullopt;
    auto record = reader_.next();
    if (!record || (playback_.to_ns && record->time_ns >= *playback_.to_ns)) {
      done_ = true;  // the window's end: the rest of the trace is not read
      if (!reader_.error().empty()) return std::nullopt;
      continue;
    }
    if (record->time_ns < playback_.from_ns) continue;
    if (const auto now_ns = play(*record)) return arrival_now(*now_ns, *record);
  }
}

// The draws are made record by record in the trace's order: the same trace and seed, the
// same arrivals. An arrival that would be queued alone and taken at once (played once, not
// spread: most of a trace with fractional times) is not queued: its time is returned, and
// the record left to the caller. Otherwise the record is moved into its last copy.
std::optional<std::int64_t> TracePlayer::play(TraceRecord& record) {
  const std::int64_t trace_ns = record.time_ns - playback_.from_ns;
  // Spreads and copies only move an arrival later: nothing read after this is earlier.
  settled_ns_ = played_ns(trace_ns);
  std::int64_t at = trace_ns;
  if (record.second_resolution && playback_.spread == TraceSpread::kUniform)
    at += rng_.uniform(0, kNsPerSec);
  std::int64_t copies = whole_copies_;
  if (part_copy_ > 0) copies += rng_.unit() < part_copy_;
  for (std::int64_t k = 0; k < copies; ++k) {
    const std::int64_t copy_ns =
        k == 0 ? at : saturating_add(at, rng_.uniform(0, playback_.scale_spread_ns));
    // The last copy takes the record itself: one line played once is never copied.
    if (k + 1 < copies) {
      TraceRecord copy = record;
      push(copy_ns, std::move(copy));
    } else if (const std::int64_t at_ns = played_ns(copy_ns);
               copies == 1 && pending_.empty() && at_ns <= settled_ns_) {
      return at_ns;
    } else {
      push(copy_ns, std::move(record));
    }
  }
  return std::nullopt;
}

void TracePlayer::push(std::int64_t trace_ns, TraceRecord&& record) {
  const std::int64_t at_ns = played_ns(trace_ns);
  pending_.push(at_ns, TraceArrival{at_ns, std::move(record)});
}

std::int64_t TracePlayer::played_ns(std::int64_t trace_ns) const {
  if (playback_.speed == 1) return trace_ns;  // exact, whatever a double holds
  return saturating_ns(std::round(static_cast<double>(trace_ns) / playback_.speed));
}

}  // namespace stampede
