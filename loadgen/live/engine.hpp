#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "live/dead_letter_writer.hpp"
#include "live/http/transport_error.hpp"
#include "live/request.hpp"
#include "parsed.hpp"
#include "policy/shard.hpp"
#include "policy/source_addresses.hpp"
#include "results.hpp"
#include "scenario.hpp"

namespace stampede {

// Which HTTP client carries the attempts: the native one for plain http to a numeric address
// (auto), or libcurl (https, and on request).
enum class HttpClient { kAuto, kNative, kCurl };

struct LiveOptions {
  double time_scale = 1.0;
  HttpClient http_client = HttpClient::kAuto;
  std::int64_t max_duration_ns = 3600LL * 1'000'000'000;  // wall; the run stops by itself
  std::int64_t grace_ns = 2'000'000'000;                  // wall, for in-flight requests at a stop
  unsigned loops = 0;                                     // 0: one per core
  std::string resolve_entry;  // "host:port:address" (CURLOPT_RESOLVE): resolve once, not per client
  std::string connect_address;  // numeric; non-empty: open every client's connection before t=0
  int connect_port = 0;
  bool keep_attempts = false;  // keep every attempt for --attempts-out
  // The fleet's schedule is the intended one (as wrk2 measures): an answer counts as arriving
  // at its send's intended time plus the wall time from the write to the answer's arrival at
  // the client's socket (the kernel's receive time), and that wall time is not stretched by
  // 1/time-scale (the scale compresses the scenario's durations, not the network). The
  // harness's own delays, before the write and before it reads an answer that is in, are
  // not the client's: the first is reported as lateness, neither shifts later retries. Off:
  // the answer's time is the clock's when the loop reads it.
  bool compensate_latency = true;
  // Sharded: only the shard's clients run, with their global ids (and so their streams).
  Shard shard;
  // Non-zero: t=0 is this steady_clock reading (--start-at), shared by every shard; start
  // waits for it, and a shard past it starts at once, its first sends that late.
  std::int64_t start_steady_ns = 0;
  // Beyond one source address's local ports: each client's connections (the first, and any
  // reconnect) bind the address the plan gives it.
  SourcePlan sources;
};

// One attempt, as the client saw it. Times in scenario ns except the lateness.
struct AttemptRecord {
  std::int64_t client = 0;
  std::int64_t item = 0;
  std::int32_t send = 0;              // 1 = the item's first send
  std::int64_t intended_ns = 0;       // what the schedule asked
  std::int64_t sent_ns = 0;           // when the HTTP client was about to write it
  std::int64_t answered_ns = -1;      // in the fleet's schedule (compensate_latency); -1: aborted
  std::int64_t wake_lateness_ns = 0;  // wall: the loop woke to send it - intended
  std::int64_t send_lateness_ns = 0;  // wall: sent - intended
  int status = 0;                     // 0: no HTTP answer
  Outcome outcome = Outcome::kOk;
  TransportError transport_error = TransportError::kNone;  // kNone for an HTTP answer
  std::int64_t retry_after_ns = -1;                        // scenario ns; -1: none
};

enum class StopReason { kNone, kSignal, kMaxDuration };
std::string_view to_string(StopReason r);

// Counts of the run so far, for the progress line.
struct LiveProgress {
  std::int64_t elapsed_ns = 0;  // wall
  std::int64_t sent = 0;
  std::int64_t ok = 0;
  std::int64_t rate_limited = 0;   // 429
  std::int64_t server_errors = 0;  // 5xx, 529 included
  std::int64_t errors = 0;         // other 4xx, connect errors, timeouts
  std::int64_t in_backoff = 0;     // items sleeping before a retry
  std::int64_t delivered = 0;
  std::int64_t dead_lettered = 0;
};

struct LiveRun {
  Recording recording;  // the clients' side; provider_by_* empty; lateness_ns: wake lateness
  LogHistogram send_lateness_ns;         // sent - intended: the wake plus the queue to write it
  std::vector<DeadLetter> dead_letters;  // dead-lettered items, then unfinished ones
  std::vector<AttemptRecord> attempts;   // with keep_attempts only
  std::int64_t first_sends = 0;
  std::int64_t first_send_connect_errors = 0;  // of those, how many could not connect at all
  StopReason stopped = StopReason::kNone;
  std::int64_t end_ns = 0;  // scenario time the run ended
  // Wall: how late the engine woke for a start ahead (start_steady_ns or at_start's); the
  // loops, made before it, wake for their first sends on their own timers.
  std::int64_t start_late_ns = 0;
  double wall_s = 0;      // from t=0
  double cpu_user_s = 0;  // the whole process from t=0: loops, progress line, answers
  double cpu_sys_s = 0;
  // The loops' time runnable but waiting for a CPU, added: a machine too busy for the fleet;
  // none where the kernel keeps no such figure.
  std::optional<double> cpu_wait_s;
  unsigned loops = 0;
  std::string http_client;  // "native" or "libcurl"
  // Spread over source addresses: the connections opened before t=0 from each, as the kernel
  // bound them; empty otherwise.
  std::map<std::string, std::int64_t> source_addresses;
};

class LiveLoop;
struct LiveShared;

// The live fleet: clients sharded over one event loop per core (client c on loop c % loops),
// each loop a thread driving its transport (the native HTTP/1.1 client or libcurl's
// multi-socket API) with epoll and a timer heap. The same
// Workload, RetryPolicy and random streams as the simulator.
class LiveEngine {
 public:
  LiveEngine(const Scenario& scenario, const LiveRequest& request, const LiveOptions& options);
  ~LiveEngine();
  LiveEngine(const LiveEngine&) = delete;
  LiveEngine& operator=(const LiveEngine&) = delete;

  // Creates every client's handle (and opens its connection), calls at_start, waits for the
  // start, and starts the loops. Returns at_start's error. at_start resets the provider so both
  // clocks start together, and may decide the start only now that the connections are open
  // (a supervisor's workers: however long opening took, none starts late): a steady_clock
  // reading, or 0 for start_steady_ns's (none: at once).
  using AtStart = std::function<Parsed<std::int64_t>()>;
  std::optional<std::string> start(const AtStart& at_start);

  // Readable once every loop has finished.
  int done_fd() const { return done_fd_; }
  // From any thread: start no more attempts; give in-flight ones grace_ns, then abort them.
  // Before the loops start (from at_start), they start stopped: nothing is sent.
  void stop(std::int64_t grace_ns);
  // A stop was asked for (stop, or --max-duration): in-flight requests are in their grace.
  bool stopping() const;
  LiveProgress progress() const;
  // From any thread, while the loops run or after: what they recorded so far, each loop's
  // copied on its own thread when it next wakes (woken for it), merged; the items and the
  // unfinished ones counted as finish() counts them. None before start, or when a loop did
  // not answer within wait_ns.
  std::optional<Recording> recording_so_far(std::int64_t wait_ns) const;
  // Waits for the loops and merges what they recorded.
  LiveRun finish();

 private:
  // The items of the run, and those neither delivered, dead-lettered nor dropped.
  void count_items(Recording& rec) const;
  // A thread for each loop, on the clock as restarted.
  void start_loops();

  std::unique_ptr<LiveShared> shared_;
  std::vector<std::unique_ptr<LiveLoop>> loops_;
  std::vector<std::thread> threads_;
  std::atomic<bool> started_{false};  // loops_ is complete and their threads run
  int done_fd_ = -1;
  std::int64_t start_wall_ns_ = 0;
  std::int64_t start_late_ns_ = 0;
  std::map<std::string, std::int64_t> source_addresses_;
  double start_cpu_user_s_ = 0;
  double start_cpu_sys_s_ = 0;
};

// Each client holds a connection: raises the soft RLIMIT_NOFILE to what `clients` need.
// The error says how many descriptors were needed and what the hard limit is. Other holders
// (loadgen exec's processes: a pipe and a log each) name themselves and what each holds.
// How many holders of per_each descriptors one process may hold connections for under its
// hard RLIMIT_NOFILE, after the spare ones raise_descriptor_limit keeps.
std::int64_t descriptor_room(std::int64_t per_each = 1);

std::optional<std::string> raise_descriptor_limit(std::int64_t clients, std::int64_t per_each = 1,
                                                  std::string_view what = "clients",
                                                  std::string_view holds = "one connection each");

}  // namespace stampede
