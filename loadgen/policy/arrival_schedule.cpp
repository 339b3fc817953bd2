#include "policy/arrival_schedule.hpp"

#include <algorithm>
#include <cmath>

#include "duration.hpp"
#include "saturating.hpp"

namespace stampede {

ArrivalSchedule::ArrivalSchedule(const FleetConfig& fleet) : total_(fleet.item_count()) {
  if (fleet.stages.empty()) {
    if (fleet.rate) {
      rate_count_ = fleet.rate->count;
      rate_window_ns_ = fleet.rate->window_ns;
    }
    return;
  }
  double from = per_second(fleet.stages.start);
  double before = 0;
  std::int64_t start_ns = 0;
  for (const auto& stage : fleet.stages.stages) {
    const double to = per_second(stage.target);
    const double duration_s = ns_to_s(stage.duration_ns);
    segments_.push_back({start_ns, from, to, duration_s, before});
    before += (from + to) / 2 * duration_s;
    from = to;
    start_ns = saturating_add(start_ns, stage.duration_ns);
  }
}

std::int64_t ArrivalSchedule::at_ns(std::int64_t k) const {
  if (!segments_.empty()) return ramp_at_ns(k);
  // A rate of one per centuries puts later items past the end of time, not before t = 0.
  const __int128 at = static_cast<__int128>(k) * rate_window_ns_ / rate_count_;
  return static_cast<std::int64_t>(std::min<__int128>(at, kMaxNs));
}

std::int64_t ArrivalSchedule::ramp_at_ns(std::int64_t k) const {
  const double n = static_cast<double>(k);
  // The last segment the area has reached by then; a pause (no area) is stepped over.
  const auto it = std::upper_bound(segments_.begin(), segments_.end(), n,
                                   [](double x, const Segment& s) { return x < s.before; });
  const Segment& s = *std::prev(it);
  // Within it the area grows as r0 t + (r1 - r0) t^2 / 2d: solve for the t where it reaches
  // a, in the form that loses no precision when the ramp is flat or steep.
  const double a = n - s.before;
  const double slope = (s.to_per_s - s.from_per_s) / s.duration_s;
  const double root = std::sqrt(std::max(0.0, s.from_per_s * s.from_per_s + 2 * slope * a));
  const double denominator = s.from_per_s + root;
  double t_s = a > 0 && denominator > 0 ? 2 * a / denominator : 0;
  t_s = std::min(t_s, s.duration_s);
  return saturating_add(s.start_ns, saturating_ns(std::round(t_s * 1e9)));
}

void ArrivalStream::pop() {
  if (const auto item = peek()) last_ns_ = item->intended_ns;
  next_ += stride_;
}

std::optional<WorkItem> ArrivalStream::peek() const {
  if (next_ >= schedule_->total()) return std::nullopt;
  return WorkItem{next_, std::max(last_ns_, schedule_->at_ns(next_))};
}

}  // namespace stampede
