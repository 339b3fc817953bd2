#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/provider_policy.hpp"
#include "model/send_attribution.hpp"
#include "model/versioned_row.hpp"
#include "recording/arrival_log.hpp"
#include "recording/arrival_stats.hpp"
#include "recording/live_event.hpp"
#include "recording/provider_results.hpp"
#include "recording/stats_document.hpp"
#include "rng.hpp"
#include "scenario_clock.hpp"
#include "server/adaptive_mutex.hpp"
#include "server/admitter.hpp"
#include "server/store_line.hpp"
#include "store/shared_store.hpp"

namespace stampede {

// The one place the server's threads meet: the scenario clock and the pure policy behind a
// single lock, held only to make the arrival's time monotonic and decide it (about a hundred
// nanoseconds), so the limiters see time in order whichever thread saw the request first.
// Recording happens after, in one recorder per server thread (its lock only ever contended by
// a reader of the stats), and the readers add the recorders up.
//
// With a shared store the quota layers are decided by one round trip to it, which is not made
// under the lock: the lock is let go for it, so the other threads decide the arrivals the
// store is not asked about (an outage, an injected error), and the admin API reads, meanwhile.
// The round trips are made one at a time under a lock of the store's, which is held until the
// arrivals are settled under the provider's lock again (their rows, their send numbers, the
// retry record): arrivals are settled in the store's order, the one every replica's are
// decided in. admit_all asks the store about many arrivals in one round trip.
class LockedProvider : public Admitter {
 public:
  using Admission = stampede::Admission;
  using Ticket = AdmissionTicket;
  using Arrival = ProviderArrival;
  struct Options {
    ProviderConfig config;
    double time_scale = 1.0;
    std::int64_t bin_ns = 1'000'000'000;
    bool keep_log = false;    // the raw arrival log, for --arrivals-out
    std::size_t threads = 1;  // the server threads that call admit, numbered from 0
    // Capacity and allowances shared with other replicas (not owned), joined already: the
    // clock starts at its epoch, and a reset resets it for every replica.
    SharedStore* store = nullptr;
    SendRules send_rules;  // which headers number a send; max_items bounds the counting
    // The data plane's tally of connections turned away (RefusalTally, not owned): the stats
    // say how many since the last reset. None: they do not say.
    const std::atomic<std::int64_t>* turned_away = nullptr;
  };
  explicit LockedProvider(const Options& options);

  // thread: the calling server thread's number. seen_steady_ns: when the request's bytes came
  // in (a steady_clock reading). send: what its headers say of its send number (claim_send),
  // numbered here in the order of decisions; client_id: its client header's key, may be
  // empty. row: occ mode's row request, answered by the row once the layers let it through.
  // tokens: what the request declares it uses.
  Admission admit(std::size_t thread, std::int64_t seen_steady_ns, std::string_view tenant,
                  const SendClaim& send, std::string_view client_id, const RowRequest& row = {},
                  const DeclaredTokens& tokens = {}) {
    return admit({thread, seen_steady_ns, tenant, send, client_id, row, tokens, std::nullopt});
  }

  // The arrivals admitted as admit would admit them one after another, in their order; those
  // the shared store is asked about are asked in one round trip (SharedStore::decide_all).
  // One admission per arrival. What the data plane calls with a store: while one batch is out,
  // the next gathers.
  std::vector<Admission> admit_all(std::span<const Arrival> arrivals) override;
  Admission admit(const Arrival& a) override;  // what the data plane calls
  // With a store: the loop's own line to it (a StoreLine deciding by admit_all), so a loop
  // serves its other connections while its batch's round trip is made.
  AdmissionLine* line(std::size_t loop) override;

  // Proxy mode: what the upstream answered an admitted arrival (its status, or
  // kUpstreamFailed / kUpstreamTimedOut), counted apart from the provider's own outcomes and
  // written beside its row of the log. Nothing, for an arrival from before the last reset.
  void note_upstream(const Ticket& ticket, int upstream) override;
  // Settled at the answer's end, in time order with the admissions; nothing for an admission
  // from before the last reset (its limiters are gone).
  void settle_answer(const Ticket& ticket, std::string_view tenant, const Reservation& r,
                     std::int64_t output_tokens) override;

  // One network hop of provider.hop_delay, in scenario time, from the provider's own stream of
  // hops. Only with a hop delay configured.
  std::int64_t draw_hop_ns() override;

  // Zero the counters and the log, fresh limiters, the row back at version 0, drop outages
  // started by the admin API, and restart the scenario clock: t = 0 is now (or at at_wall_ns,
  // a system_clock reading: the shards' agreed start), so the scenario's outages replay.
  void reset(std::optional<std::int64_t> at_wall_ns = std::nullopt);
  // An outage from now on, for duration_ns of scenario time.
  OutageWindow start_outage(std::int64_t duration_ns, OutageAction action);

  nlohmann::json stats_json() const;
  // The same document (and the metrics page), to be sent or written a piece at a time: what
  // GET /admin/stats, GET /metrics and --stats-out send, at about the cost of the text however
  // many tenants there are.
  std::unique_ptr<StatsDocument> stats_document() const;
  std::string metrics_text() const;
  std::string arrivals_csv() const;
  // The provider's own results document (GET /admin/results, --results-out): from the merged
  // counters and the retry record, which holds each item's fate and waits.
  nlohmann::json results_json() const;
  // What GET /admin/live sends: the counts as the stats document has them, the busiest
  // tenants, the lockstep so far, the limits and the outages. The decision lock is held only
  // to copy the lockstep's bins (they grow with the run's duration, not its traffic; they are
  // sorted after) and the outages: cheap enough for once a second, not for every request. A
  // recorder's lock is held to copy its bins, then for each slice of at most kLiveTenantSlice
  // tenants (their names and two counts), so a data plane thread waits at most one slice
  // whatever the tenants; the busiest are found after, with no lock held. (The slices of one
  // snapshot taken across a reset may mix both sides of it; the next one is whole.)
  LiveSnapshot live_snapshot() const;

  const ScenarioClock& clock() const override { return clock_; }
  const ProviderConfig& config() const override { return options_.config; }
  const SendRules& send_rules() const override { return options_.send_rules; }

 private:
  struct Recorder {
    explicit Recorder(std::int64_t bin_ns) : stats(bin_ns) {}
    mutable AdaptiveMutex mu;
    std::uint64_t epoch = 0;  // arrivals decided before the last reset are not recorded
    ArrivalStats stats;
    ArrivalLog log;
  };
  // An arrival decided, under the lock, for its recorder.
  struct Decided {
    std::int64_t t_ns;        // the time it was decided at: the limiters', the stats'
    std::int64_t stamp_t_ns;  // when its bytes came in: the arrival log's
    Decision decision;
    std::optional<std::uint64_t> row_version;
    SendAttribution attribution;
    std::uint64_t seq;
    std::uint64_t epoch;
  };
  using Lock = std::unique_lock<AdaptiveMutex>;
  // The arrival's time: monotonic across the threads, under the lock.
  std::int64_t arrival_t_ns(std::int64_t seen_steady_ns);
  // When its bytes came in, on this epoch's clock (0 for bytes before its start), under the
  // lock: a thread kept off the CPU decides its arrivals late, at another's later time, and
  // the log still says when they came.
  std::int64_t stamp_t_ns(std::int64_t seen_steady_ns) const;
  // The store's answers to the arrivals at asking[i] (of arrivals, timed at t_ns[i]): lock is
  // let go for the round trip and held again on return.
  void decide_with_store(Lock& lock, std::span<const Arrival> arrivals,
                         const std::vector<std::size_t>& asking, std::vector<QuotaAsk>& asks,
                         std::vector<Decided>& out);
  // The steps after the quota layers, in the order of decisions: the row, the send's number,
  // the hint's jitter, the retry record.
  Decided settle(std::int64_t t_ns, Decision d, const Arrival& a);
  Ticket record(std::size_t thread, const Decided& out, const Arrival& a);
  Ticket record_locked(Recorder& r, std::size_t thread, const Decided& out, const Arrival& a);
  ArrivalStats merged_stats() const;
  // --retry-after-jitter: the decision's hint drawn for this client and send.
  void jitter_hint(Decision& d, std::string_view tenant, const SendClaim& send,
                   std::string_view client_id, const SendAttribution& attribution,
                   std::uint64_t seq) const;
  // The counting rules' table: how many items and clients it holds, of how many; and the
  // connections turned away since the reset.
  void add_item_counts(nlohmann::json& doc) const;
  void reset_locked();
  void follow_store_epoch(std::int64_t epoch_wall_ns);

  const Options options_;
  mutable AdaptiveMutex mu_;  // the clock's restart, the policy and the three below
  ScenarioClock clock_;
  ProviderPolicy policy_;
  VersionedRow row_;
  ItemCounts items_;     // the arrivals of each item (or client) numbered by counting
  RetryRecord retries_;  // each item's fate and waits, in the order of decisions
  Rng hop_rng_;
  std::int64_t last_t_ns_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t epoch_ = 0;
  std::int64_t store_epoch_wall_ns_ = 0;   // the store's epoch the clock started at
  std::int64_t turned_away_at_reset_ = 0;  // the tally then: the stats count from it
  // Taken before mu_, never after: the store's round trip and its arrival's settling. With a
  // store, the clock and store_epoch_wall_ns_ change only with both held.
  std::mutex store_mu_;
  std::vector<std::unique_ptr<Recorder>> recorders_;
  std::mutex lines_mu_;  // lines_ made as the loops ask for them
  // Last: their threads decide what was asked of them before the rest is gone.
  std::vector<std::unique_ptr<StoreLine>> lines_;
};

}  // namespace stampede
