#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "live/engine.hpp"
#include "live/occ.hpp"
#include "policy/arrival_schedule.hpp"
#include "policy/item_life.hpp"
#include "policy/workload.hpp"
#include "scenario_clock.hpp"
#include "token_recording.hpp"

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
  const ItemLife life;             // every client's items go through it
  const ArrivalSchedule schedule;  // the open model's arrivals
  ScenarioClock clock;
  std::int64_t timeout_ms = 0;              // per request, on the wall
  std::vector<std::string> fixed_headers;   // the user's, and the declared tokens
  std::vector<std::string> tenant_headers;  // "X-Api-Key: KEY", one per key
  // The trace workload: each item is sent as its line's tenant and with its tokens (when it
  // has them), so those two headers are the attempt's, not the client's fixed ones.
  bool per_item_sender = false;

  std::atomic<bool> stop_requested{false};
  std::atomic<int> stop_reason{static_cast<int>(StopReason::kNone)};
  std::atomic<std::int64_t> abort_at_ns{0};
  std::atomic<unsigned> loops_running{0};

 private:
  std::mutex workload_mutex_;
  Workload workload_;
};

// One client: its connection (through the transport), its random stream, its guards and the
// item it is working on.
struct LiveClient {
  enum class State : std::uint8_t { kIdle, kWaiting, kInFlight };

  std::uint32_t id = 0;
  Rng rng{0};
  ClientGuards guards;
  State state = State::kIdle;
  int own_fd = -1;  // the connection opened for it before t=0, until the transport takes it

  std::int64_t item_id = -1;
  std::int64_t item_intended_ns = 0;
  // The trace workload: the tenant and tokens of the item's line; none, the client's own.
  std::optional<std::string> item_tenant;
  std::optional<std::int64_t> item_tokens;
  ItemState item;
  std::int32_t sends = 0;
  std::optional<Outcome> last_outcome;
  int last_status = 0;

  // The attempt in progress.
  std::int64_t send_at_ns = 0;      // scenario time the schedule asked for
  std::int64_t due_wall_ns = 0;     // send_at_ns on the wall, or when it was scheduled if later
  std::int64_t handed_wall_ns = 0;  // handed to the transport
  std::int64_t sent_wall_ns = 0;    // the request about to be written; 0: not yet
  std::int64_t sent_ns = 0;         // scenario time it went (or was handed over, if it never went)
  std::int64_t wake_lateness_ns = 0;
  std::int64_t send_lateness_ns = 0;
  std::string retry_after;           // the answer's Retry-After header, as sent
  std::optional<bool> should_retry;  // the answer's x-should-retry, if true or false
  ExhaustedLimits exhausted = 0;     // the limits its rate-limit headers say are used up
  std::optional<LiveOcc> occ;        // occ mode only

  OccCycle* occ_cycle() { return occ ? &occ->cycle : nullptr; }
};

}  // namespace stampede
