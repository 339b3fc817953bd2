#include "server/live_feed.hpp"

#include <chrono>

#include "live_fields.hpp"
#include "live_page.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

std::chrono::steady_clock::time_point steady_at(std::int64_t ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

// The snapshot's charts, as the page shows them: drawn once per event, for every stream.
nlohmann::json panels_of(const LiveSnapshot& s) {
  return live_panels({s.counts.by_outcome(), s.counts.by_send(), s.clock_ns}, declared_limits(s));
}

}  // namespace

LiveFeed::LiveFeed(Read read, std::int64_t period_ns)
    : read_(std::move(read)), period_ns_(period_ns) {}

LiveFeed::~LiveFeed() {
  stop();
}

void LiveFeed::start() {
  thread_ = std::thread([this] { run(); });
}

void LiveFeed::stop() {
  {
    const std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// On a fixed schedule, so the events stay a period apart however long a snapshot takes; a
// tick missed (the machine busy) is skipped, not made up in a burst.
void LiveFeed::run() {
  std::unique_lock lock(mu_);
  std::int64_t due_ns = ScenarioClock::steady_ns() + period_ns_;
  while (!stopping_) {
    cv_.wait_until(lock, steady_at(due_ns), [this] { return stopping_; });
    if (stopping_) break;
    if (streams_ > 0) publish_locked();
    const std::int64_t now_ns = ScenarioClock::steady_ns();
    due_ns += period_ns_;
    if (due_ns <= now_ns) due_ns = now_ns + period_ns_;
  }
}

void LiveFeed::publish_locked() {
  LiveSnapshot now = read_();
  now.streams = streams_;
  const std::size_t from = last_ ? first_changed_bin(last_->counts, now.counts) : 0;
  ++seq_;
  last_panels_ = panels_of(now);
  kept_.push_back(std::make_shared<const std::string>(event_locked(now, from)));
  kept_bytes_ += kept_.back()->size();
  if (kept_.size() > kKept) {
    kept_bytes_ -= kept_.front()->size();
    kept_.pop_front();
    ++kept_seq_;
  }
  last_ = std::move(now);
  cv_.notify_all();
}

std::string LiveFeed::event_locked(const LiveSnapshot& s, std::size_t from_bin) const {
  auto event = live_event(s, from_bin, seq_);
  event["panels"] = last_panels_;
  add_live_figures(event, false);
  return live_sse_message(event, seq_);
}

std::string LiveFeed::full_event_locked() const {
  LiveSnapshot s = *last_;
  s.streams = streams_;
  return event_locked(s, 0);
}

std::optional<LiveFeed::Subscription> LiveFeed::subscribe() {
  const std::lock_guard lock(mu_);
  if (stopping_ || streams_ >= kMaxStreams) return std::nullopt;
  ++streams_;
  // Idle until now: the last snapshot is stale, and no stream waits for the events kept.
  if (streams_ == 1 || !last_) {
    last_ = read_();
    last_panels_ = panels_of(*last_);
    ++seq_;
    kept_.clear();
    kept_bytes_ = 0;
    kept_seq_ = seq_ + 1;
  }
  return Subscription{full_event_locked(), seq_ + 1};
}

LiveFeed::Usage LiveFeed::usage() const {
  const std::lock_guard lock(mu_);
  return {streams_, kept_.size(), kept_bytes_};
}

void LiveFeed::unsubscribe() {
  const std::lock_guard lock(mu_);
  if (streams_ > 0) --streams_;
}

LiveFeed::Next LiveFeed::next(std::uint64_t seq, std::shared_ptr<const std::string>& event,
                              std::int64_t wait_ns) {
  std::unique_lock lock(mu_);
  const auto made = [&] { return stopping_ || seq < kept_seq_ + kept_.size(); };
  if (!cv_.wait_until(lock, steady_at(ScenarioClock::steady_after(wait_ns)), made)) {
    return Next::kNothingYet;
  }
  if (stopping_) return Next::kStopped;
  if (seq < kept_seq_) return Next::kBehind;
  event = kept_[seq - kept_seq_];
  return Next::kEvent;
}

}  // namespace stampede
