#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "live/client.hpp"
#include "live/engine.hpp"
#include "live/http/transport.hpp"
#include "live/recording_mailbox.hpp"
#include "live/timer_heap.hpp"
#include "policy/open_arrivals.hpp"

namespace stampede {

// Progress counters: written by the loop's thread only, read by the progress line.
struct alignas(64) LoopCounters {
  std::atomic<std::int64_t> sent{0}, ok{0}, rate_limited{0}, server_errors{0}, errors{0},
      in_backoff{0}, delivered{0}, dead_lettered{0};
};

// One event loop: its share of the fleet's clients, the timer heap of their next sends, and
// the transport that carries their attempts (libcurl, or the native HTTP/1.1 client).
// The scenario time from an attempt's write to its answer, latency compensated: the wire's
// wall time as it is (the time scale compresses the scenario, not the network), and a
// stream's part from its head (head_wall_ns, 0: no stream) to its last byte, which is the
// provider's pacing run at the time scale, stretched back by 1 / time_scale: so a retry after
// a broken stream waits its backoff from the break, as the simulation's does.
std::int64_t compensated_answer_ns(std::int64_t sent_wall_ns, std::int64_t answered_wall_ns,
                                   std::int64_t head_wall_ns, double time_scale);

class LiveLoop final : public AttemptSink {
 public:
  LiveLoop(LiveShared& shared, unsigned index, unsigned loops);
  ~LiveLoop() override;
  LiveLoop(const LiveLoop&) = delete;
  LiveLoop& operator=(const LiveLoop&) = delete;

  // The connections opened before t=0, by client id: each client takes its own.
  void adopt_connections(const std::vector<int>& fds_by_client);
  void run();   // the thread's body
  void wake();  // from any thread
  const LoopCounters& counters() const { return counters_; }
  const char* transport_name() const { return transport_->name(); }

  Recording recording;            // lateness_ns: the wake lateness
  LogHistogram send_lateness_ns;  // sent - intended
  std::vector<DeadLetter> dead_letters;
  std::vector<AttemptRecord> attempts;
  std::int64_t first_sends = 0;
  std::int64_t first_send_connect_errors = 0;  // of those, how many could not connect at all
  // How long the loop's thread waited, runnable, for a CPU while it ran; none where the
  // kernel keeps no such figure.
  std::optional<std::int64_t> cpu_wait_ns;
  RecordingMailbox mailbox;  // copies of `recording` while the loop runs

  // AttemptSink
  void answered(LiveClient& c, const AttemptAnswer& a) override;
  // Starts every send that is due; whether there was one. Called between shards and between
  // socket events too, so a burst being worked through delays a timer by one shard's work.
  bool start_due_sends() override;

 private:
  void setup_client(LiveClient& c);
  void take_next_item(LiveClient& c, std::int64_t now_ns);
  void take_sender(LiveClient& c, const TraceRecord* record);
  void start_item(LiveClient& c, const WorkItem& item, std::int64_t now_ns);
  // The open model: every arrival due takes a free client of the loop's, or is dropped.
  void start_due_arrivals(std::int64_t now_wall_ns);
  bool arrivals_pending() const { return arrivals_ && arrivals_->peek(); }
  // A send is due at_ns; from_schedule: the lateness counts from then even if it is past
  // (an arrival's first send), where a compensated retry is due from now at the earliest.
  void schedule(LiveClient& c, std::int64_t at_ns, bool from_schedule = false);
  void start_attempt(LiveClient& c, std::int64_t due_wall_ns, std::int64_t woke_wall_ns);
  // The scenario time of an answer that arrived at answered_wall_ns. Compensated: the send's
  // intended time plus the wall time since it was written, unscaled (see
  // LiveOptions::compensate_latency), a stream's paced length stretched back; from the send
  // as it went when the answer's Retry-After is followed (provider_clock).
  std::int64_t answer_time(const LiveClient& c, const AttemptAnswer& a, bool provider_clock) const;
  // When the attempt went: as the transport was about to write the request, so a burst
  // queued inside it shows in the send lateness, as it is.
  void stamp_send(LiveClient& c);
  void count_outcome(Outcome outcome);
  // A streamed answer's tokens, time to its first, and how it ended (--stream).
  void record_stream(const LiveClient& c, const AttemptAnswer& a);
  void record_tokens(const LiveClient& c, const AttemptAnswer& a, std::int64_t now_ns);
  void reject_locally(LiveClient& c, const Step& step);
  void finish_item(LiveClient& c, const Step& step, std::int64_t now_ns);
  void begin_stop(std::int64_t now_wall_ns);
  void abort_in_flight();
  void park(LiveClient& c);
  void leave_unfinished(LiveClient& c, std::int64_t now_ns);
  void arm_timer(std::int64_t at_wall_ns);
  static void bump(std::atomic<std::int64_t>& counter, std::int64_t n = 1) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  LiveShared& shared_;
  std::vector<LiveClient> clients_;  // sized once: the transport points into it
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  int wake_fd_ = -1;
  std::unique_ptr<LiveTransport> transport_;
  TimerHeap heap_;
  std::optional<OpenArrivals> arrivals_;  // the open model: this loop's share of them
  ClientPool pool_;                       // its free clients, by index into clients_
  std::int64_t armed_ns_ = -1;
  std::int64_t in_flight_ = 0;
  bool stopping_ = false;
  std::int64_t abort_at_ns_ = 0;
  std::int64_t max_deadline_ns_ = 0;
  std::int64_t horizon_ns_ = 0;  // scenario time at max_deadline_ns_: a retry due later is parked
  std::int64_t parked_ = 0;      // items waiting for a retry due after it
  LoopCounters counters_;
};

}  // namespace stampede
