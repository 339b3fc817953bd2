#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "recording/live_event.hpp"

namespace stampede {

// GET /admin/live's events, made once for all the streams: a thread of its own reads the
// provider's snapshot once a period while a stream is open (never while none is, and never
// on a data plane thread), draws the page's charts of it (live_panels) and keeps the last few
// events; each stream sends them in turn. A
// stream that falls further behind than those few is dropped, not queued for: the memory is
// the same for one stream or sixteen, stalled or not.
class LiveFeed {
 public:
  using Read = std::function<LiveSnapshot()>;
  // Streams open at once: half the admin server's threads, so a room full of dashboards
  // still leaves threads for the stats.
  static constexpr std::size_t kMaxStreams = 16;
  // The events kept for streams that are behind.
  static constexpr std::size_t kKept = 16;

  explicit LiveFeed(Read read, std::int64_t period_ns = 1'000'000'000);
  ~LiveFeed();
  LiveFeed(const LiveFeed&) = delete;
  LiveFeed& operator=(const LiveFeed&) = delete;

  void start();
  // Ends every stream (next answers kStopped) and the thread.
  void stop();

  struct Subscription {
    std::string first;       // the first event: every bin so far
    std::uint64_t next_seq;  // the number of the event to send after it
  };
  // A new stream, or none when kMaxStreams are open. Each one is unsubscribed once.
  std::optional<Subscription> subscribe();
  void unsubscribe();

  // What the feed holds for its streams (GET /admin/live/stats): the events kept and their
  // bytes, which stay under kKept events however many streams stall.
  struct Usage {
    std::size_t streams = 0;
    std::size_t kept_events = 0;
    std::size_t kept_bytes = 0;
  };
  Usage usage() const;

  enum class Next { kEvent, kNothingYet, kBehind, kStopped };
  // Event number seq into event, waiting up to wait_ns for it to be made.
  Next next(std::uint64_t seq, std::shared_ptr<const std::string>& event, std::int64_t wait_ns);

 private:
  void run();
  // Reads a snapshot and makes the event of what changed since the last one.
  void publish_locked();
  // Event seq_ of the snapshot: its bins from from_bin on, and last_panels_.
  std::string event_locked(const LiveSnapshot& s, std::size_t from_bin) const;
  // The snapshot's full event: what a new stream starts with.
  std::string full_event_locked() const;

  Read read_;
  std::int64_t period_ns_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<const std::string>> kept_;  // events kept_seq_.. in order
  std::size_t kept_bytes_ = 0;                           // their sizes' sum
  std::uint64_t kept_seq_ = 1;                           // the number of kept_.front()
  std::optional<LiveSnapshot> last_;                     // what the last event was made from
  nlohmann::json last_panels_;                           // its charts (live_panels)
  std::uint64_t seq_ = 0;                                // the last event's number
  std::size_t streams_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace stampede
