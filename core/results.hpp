#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "assertion.hpp"
#include "binned_counts.hpp"
#include "duration.hpp"
#include "generated/version.hpp"
#include "log_histogram.hpp"
#include "outcome.hpp"
#include "parsed.hpp"
#include "scenario.hpp"
#include "stream_recording.hpp"
#include "summary.hpp"
#include "token_recording.hpp"
#include "trace_recording.hpp"

namespace stampede {

// Sends are labelled by their number within an item: 1 is the first send, 2 the first retry;
// the last label collects everything beyond.
inline constexpr std::size_t kSendLabels = 16;
inline constexpr int kResultsFormat = 1;

// What an engine (or one of its threads) records. Bounded whatever the traffic; merged by
// adding, so each thread records alone and the run adds them up at the end.
struct Recording {
  BinnedCounts provider_by_outcome{kNsPerSec, kOutcomeCount};
  BinnedCounts provider_by_send{kNsPerSec, kSendLabels};
  BinnedCounts client_by_outcome{kNsPerSec, kOutcomeCount};
  BinnedCounts client_by_send{kNsPerSec, 2};  // the clients' sends: an item's first, or a retry
  BinnedCounts client_by_send_number{kNsPerSec, kSendLabels};  // the same, by send number
  BinnedCounts backoff{kNsPerSec, 2};  // items entering and leaving a backoff sleep
  LogHistogram item_latency_ns;        // delivered items, from the intended start
  LogHistogram sends_per_item;         // finished items
  LogHistogram lateness_ns;            // actual send - intended send
  std::int64_t items = 0;
  std::int64_t delivered = 0;
  std::int64_t dead_lettered = 0;
  std::int64_t unfinished = 0;
  std::int64_t dropped = 0;  // the open model: arrivals that found no free client
  std::int64_t requests = 0;
  std::int64_t drain_ns = 0;  // last delivery
  std::int64_t writes = 0;    // occ mode: conditional writes sent
  // HTTP statuses of the answers, as the clients read them (live runs; the simulator's
  // model answers outcomes, not statuses, and leaves this empty).
  std::map<int, std::int64_t> statuses;
  // Dead-lettered items by why (to_string(DeadLetterReason)); unfinished ones are not here.
  std::map<std::string, std::int64_t> dead_letter_reasons;
  // Live runs: wall ns from writing an attempt to its answer, per send label (empty in a
  // simulation, whose model answers after a configured service time).
  std::vector<LogHistogram> response_ns_by_send = std::vector<LogHistogram>(kSendLabels);
  StreamRecording streams;  // loadgen run --stream: the answers streamed (none otherwise)
  // LLM requests against the provider's token limits (none when the run met none).
  TokenRecording tokens;
  // The trace workload's playback (its engines set it up): none for every other workload.
  std::optional<TraceRecording> trace;

  void record_send(std::int64_t t_ns, int send_number, Outcome client_view);
  void record_response(int send_number, std::int64_t response_ns);
  void record_arrival(std::int64_t t_ns, int send_number, Outcome outcome);
  void merge(const Recording& other);
};

// One shard of a fleet run in several processes (loadgen --shard I/N). A merge lists the
// shards it misses, so a document may not claim more than this many.
inline constexpr std::int64_t kMaxShards = 100'000;
struct ShardInfo {
  std::int64_t index = 0;
  std::int64_t count = 1;
  double start_late_s = 0;  // how long after --start-at it began (0: on time, or no --start-at)
};

// Where and when a fleet ran on the wall (loadgen run, exec), for the report's header. A
// simulation has none: its time is virtual.
struct RunContext {
  std::string target;       // the URL the fleet sent to, credentials removed (redact_url)
  std::string started_utc;  // t = 0 on the wall: "2025-01-31T12:00:00.000Z"
  double wall_s = 0;        // from t = 0 to the end
  double time_scale = 1;    // scenario seconds per wall second
  std::string stopped_by;   // what stopped it early: "a signal", "--max-duration 1m"; "": none
};

struct Results {
  std::string engine;  // "simulate" or "run"
  Scenario scenario;
  Recording recording;
  bool provider_side = false;  // provider_by_* were recorded by (or for) the provider
  Summary summary;
  std::int64_t trials = 1;  // > 1: the summary is the mean of this many trials (simulate)
  std::vector<Verdict> verdicts;
  std::optional<ShardInfo> shard;           // absent when the fleet ran in one process
  std::string stampede_version = kVersion;  // of the binary that recorded the run
  std::optional<RunContext> context;        // fleets on the wall only
};

Summary summarize(const Recording& r, const ProviderConfig& provider, bool provider_side);

// The busiest bin of these arrivals after the last outage ends, and its ratio to the declared
// per-second allowance (the capacity without one; 0 with neither): the summary's
// peak_arrivals, peak_second and peak_ratio, which the live dashboards show as they grow.
struct ArrivalPeak {
  double count = 0;
  double start_s = 0;
  double ratio = 0;
};
ArrivalPeak arrival_peak(const BinnedCounts& arrivals, const ProviderConfig& provider);

// A record with no clients' view (an exec fleet, the provider's own document): the provider's
// arrivals stand in for the clients' sends, so that every metric of the summary reads the
// provider's record and none reads an empty one. Its retries are the arrivals it numbered
// past the first send; one it could not number is in neither column of client_by_send, so the
// gate knows the retries are not all known (core/gate.hpp).
void provider_stands_in_for_clients(Recording& rec);

nlohmann::json to_json(const Results& r);
Parsed<Results> results_from_json(const nlohmann::json& j);
Parsed<Results> load_results_file(const std::string& path);

std::vector<std::string> outcome_labels();
std::vector<std::string> send_labels();
// The send label of a send number: 0 for the first send, kSendLabels - 1 for that and beyond.
std::size_t send_label(int send_number);
// "2025-01-31T12:00:00.000Z" of a Unix time in ns.
std::string format_utc(std::int64_t unix_ns);
std::vector<std::string> first_or_retry_labels();

}  // namespace stampede
