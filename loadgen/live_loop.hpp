#pragma once

#include <curl/curl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "live_engine.hpp"
#include "live_occ.hpp"
#include "retry_policy.hpp"
#include "scenario_clock.hpp"
#include "timer_heap.hpp"
#include "workload.hpp"

namespace stampede {

// What every loop reads, and the little they share: the workload's queue (one lock per item
// taken, never per request) and the stop request.
struct LiveShared {
  LiveShared(const Scenario& s, const LiveRequest& r, const LiveOptions& o);

  std::optional<WorkItem> next_item(std::int64_t client, std::int64_t previous);
  // The first stop wins; loops read it when woken.
  void request_stop(StopReason reason, std::int64_t abort_at_wall_ns);

  const Scenario scenario;
  const LiveRequest request;
  const LiveOptions options;
  const RetryPolicy policy;
  ScenarioClock clock;
  std::int64_t timeout_ms = 0;              // per request, on the wall
  std::vector<std::string> fixed_headers;   // the user's, "Expect:" for a body
  std::vector<std::string> tenant_headers;  // "X-Api-Key: KEY", one per key
  curl_slist* resolve = nullptr;

  std::atomic<bool> stop_requested{false};
  std::atomic<int> stop_reason{static_cast<int>(StopReason::kNone)};
  std::atomic<std::int64_t> abort_at_ns{0};
  std::atomic<unsigned> loops_running{0};

 private:
  std::mutex workload_mutex_;
  Workload workload_;
};

// One client: a libcurl handle (and through it a kept-alive connection), its random stream,
// its guards and the item it is working on.
struct LiveClient {
  enum class State : std::uint8_t { kIdle, kWaiting, kInFlight };

  std::uint32_t id = 0;
  Rng rng{0};
  ClientGuards guards;
  CURL* easy = nullptr;
  State state = State::kIdle;
  int own_fd = -1;     // the connection opened for it before t=0, until libcurl asks for one
  int handed_fd = -1;  // that connection, handed over, until libcurl has set it up

  std::int64_t item_id = -1;
  std::int64_t item_intended_ns = 0;
  ItemState item;
  std::int32_t sends = 0;
  std::optional<Outcome> last_outcome;
  int last_status = 0;

  // The attempt in progress.
  std::int64_t send_at_ns = 0;      // scenario time the schedule asked for
  std::int64_t due_wall_ns = 0;     // send_at_ns on the wall, or when it was scheduled if later
  std::int64_t handed_wall_ns = 0;  // handed to libcurl
  std::int64_t sent_wall_ns = 0;    // the request about to be written; 0: not yet
  std::int64_t sent_ns = 0;         // scenario time it went (or was handed over, if it never went)
  std::int64_t wake_lateness_ns = 0;
  std::int64_t send_lateness_ns = 0;
  std::string retry_after;     // the answer's Retry-After header, as sent
  bool should_retry = true;    // false: the answer said x-should-retry: false
  std::optional<LiveOcc> occ;  // occ mode only

  // The request headers: curl_slist nodes owned here, pointing at shared lines and at the
  // per-attempt lines below, rewritten before each send without allocating.
  std::vector<curl_slist> header_nodes;
  std::string client_id_line;
  std::array<char, 40> attempt_line{};
  std::array<char, 48> request_id_line{};
};

class LiveLoop;

// One libcurl multi handle and the few clients on it. libcurl looks for a reusable connection
// by walking every connection its multi handle holds to the host, so a burst of N clients on
// one multi handle costs O(N^2): 1.4 s for 2,000 clients, measured here. Small shards keep a
// burst linear; the loop's epoll set and timer serve all of its shards.
struct CurlShard {
  CURLM* multi = nullptr;
  LiveLoop* loop = nullptr;
  std::uint32_t index = 0;
  std::int64_t deadline_ns = -1;  // wall, from libcurl's timer callback; -1: none
  bool active = false;            // driven since its messages were last read
};

// Progress counters: written by the loop's thread only, read by the progress line.
struct alignas(64) LoopCounters {
  std::atomic<std::int64_t> sent{0}, ok{0}, rate_limited{0}, server_errors{0}, errors{0},
      in_backoff{0}, delivered{0}, dead_lettered{0};
};

class LiveLoop {
 public:
  LiveLoop(LiveShared& shared, unsigned index, unsigned loops);
  ~LiveLoop();
  LiveLoop(const LiveLoop&) = delete;
  LiveLoop& operator=(const LiveLoop&) = delete;

  // The connections opened before t=0, by client id: each client takes its own.
  void adopt_connections(const std::vector<int>& fds_by_client);
  void run();   // the thread's body
  void wake();  // from any thread
  const LoopCounters& counters() const { return counters_; }

  Recording recording;            // lateness_ns: the wake lateness
  LogHistogram send_lateness_ns;  // sent - intended
  std::vector<DeadLetter> dead_letters;
  std::vector<AttemptRecord> attempts;
  std::int64_t first_sends = 0;
  std::int64_t first_send_connect_errors = 0;

 private:
  static int on_socket(CURL* easy, curl_socket_t s, int what, void* shard, void* socket_data);
  static int on_timer(CURLM* multi, long timeout_ms, void* shard);
  static curl_socket_t on_open_socket(void* client, curlsocktype purpose, curl_sockaddr* address);
  static int on_socket_options(void* client, curl_socket_t fd, curlsocktype purpose);
  static int on_request_ready(void* client, char* ip, char* local_ip, int port, int local_port);

  void setup_client(LiveClient& c);
  void take_next_item(LiveClient& c, std::int64_t now_ns);
  void schedule(LiveClient& c, std::int64_t at_ns);
  // Starts every send that is due; whether there was one. Called between shards and between
  // socket events too, so a burst being worked through delays a timer by one shard's work.
  bool start_due_sends();
  void start_attempt(LiveClient& c, std::int64_t due_wall_ns);
  CurlShard& shard_of(const LiveClient& c) {
    return shards_[(&c - clients_.data()) / kClientsPerShard];
  }
  // Runs libcurl's due timeouts; returns the earliest one still ahead (wall), or -1.
  std::int64_t run_curl_timers();
  void read_completions();
  void complete(LiveClient& c, CURLcode result);
  // The scenario time of an answer that arrived at answered_wall_ns. Compensated: the send's
  // intended time plus the wall time since it was written, unscaled (see
  // LiveOptions::compensate_latency); from the send as it went when the answer's Retry-After
  // is followed (provider_clock).
  std::int64_t answer_time(const LiveClient& c, std::int64_t answered_wall_ns,
                           bool provider_clock) const;
  // When the attempt went: as libcurl was about to write the request, so a burst queued
  // inside libcurl shows in the send lateness, as it is.
  void stamp_send(LiveClient& c);
  void reject_locally(LiveClient& c);
  void finish_item(LiveClient& c, const Step& step, std::int64_t now_ns);
  void begin_stop(std::int64_t now_wall_ns);
  void abort_in_flight();
  void leave_unfinished(LiveClient& c, std::int64_t now_ns);
  void arm_timer(std::int64_t at_wall_ns);
  void socket_action(CurlShard& shard, curl_socket_t s, int mask);
  // Notes when the bytes waiting on a readable socket reached it (the kernel's receive
  // stamp, peeked without reading them), before libcurl reads them: the answer's arrival at
  // the client, not when this loop, shared with a thousand other clients, got to it.
  void note_arrival(int fd);
  // The wall time the answer of c's attempt reached its socket: as noted, or from the
  // kernel's last receive on the connection (to the tick, never early), or now_wall_ns.
  std::int64_t arrival_of(const LiveClient& c, std::int64_t now_wall_ns);
  static void bump(std::atomic<std::int64_t>& counter, std::int64_t n = 1) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  static constexpr std::size_t kClientsPerShard = 32;

  LiveShared& shared_;
  std::vector<LiveClient> clients_;
  std::vector<CurlShard> shards_;
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  int wake_fd_ = -1;
  TimerHeap heap_;
  std::int64_t armed_ns_ = -1;
  std::int64_t in_flight_ = 0;
  bool stopping_ = false;
  std::int64_t abort_at_ns_ = 0;
  std::int64_t max_deadline_ns_ = 0;
  // By descriptor: the steady time the unread bytes on it arrived (note_arrival); 0: none.
  std::vector<std::int64_t> arrived_wall_ns_;
  // The steady clock minus the realtime clock, which the kernel's stamps are on; taken after
  // each epoll_wait, so a clock step is forgotten within one loop turn.
  std::int64_t steady_minus_real_ns_ = 0;
  LoopCounters counters_;
};

}  // namespace stampede
