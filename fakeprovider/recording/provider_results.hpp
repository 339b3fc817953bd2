#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "duration.hpp"
#include "log_histogram.hpp"
#include "model/bounded_key_table.hpp"
#include "model/provider_policy.hpp"
#include "model/send_attribution.hpp"
#include "outcome.hpp"
#include "recording/arrival_stats.hpp"
#include "results.hpp"

namespace stampede {

// The lockstep figure's bin.
inline constexpr std::int64_t kLockstepBinNs = 100 * kNsPerMs;

// The Retry-After an answer carries, as its client reads it, in scenario ns: retry-after-ms when
// the provider sends it (--retry-after-ms on; the Stainless SDKs read it first), else the
// header's whole seconds (retry_after_seconds); none when it carries none. The one place that
// says what was sent.
std::optional<std::int64_t> retry_after_sent_ns(const Decision& d, bool retry_after_ms);

// How concentrated the retries are in time (docs/RESULTS.md, "lockstep"): of the retries in
// the 100 ms bins from the one holding the first rejection to the one holding the last retry,
// the share in the busiest ceil(bins / 10) of them. About 0.1 when they are spread evenly, 1
// when they all come in a tenth of that time (or in one bin); 0 with no retry.
struct Lockstep {
  std::int64_t from_ns = -1;  // the start of the first rejection's bin; -1: no rejection
  std::int64_t to_ns = -1;    // the end of the last retry's bin; -1: no retry
  std::size_t bins = 0;
  std::size_t busiest_bins = 0;  // ceil(bins / 10)
  std::int64_t retries = 0;      // in those bins
  std::int64_t in_busiest = 0;
  double share = 0;
};
// retries: retry arrivals per kLockstepBinNs bin, one label, bins from t = 0.
Lockstep lockstep_of(const BinnedCounts& retries, std::int64_t first_rejection_ns);
// The provider_results section's "lockstep" (and GET /admin/live's).
nlohmann::json lockstep_json(const Lockstep& l);

// How the retries' waits compare with the Retry-After their item was given with its last
// rejection. wait = this arrival - when the rejection was answered (its arrival plus its
// service time).
struct HintWaits {
  std::int64_t tolerance_ns = 0;  // how near its hint a wait is "at" it (--hint-tolerance)
  std::int64_t retries = 0;       // a tracked item's arrivals after a retryable rejection
  std::int64_t without_hint = 0;  // of those, after a rejection that carried no Retry-After
  std::int64_t early = 0;         // wait < hint - tolerance
  std::int64_t at_hint = 0;       // |wait - hint| <= tolerance
  std::int64_t late = 0;          // wait > hint + tolerance
  LogHistogram wait_ns;           // the waits after a hint
  LogHistogram off_hint_ns;       // |wait - hint|
  // at_hint / (retries - without_hint); 0 when no retry followed a hint.
  double at_hint_share() const;
};

// What the provider keeps to say, per item, what became of it and how its retries waited, and
// when the fleet's retries came: fed every arrival in the order of decisions. Per item a fixed
// slot, at most max_items of them (--max-items); the arrivals of any further item, and those
// naming no item, are counted, not followed. The lockstep bins grow with the run's duration,
// never with its traffic (BinnedCounts' bound). Pure: the caller serialises calls.
class RetryRecord {
 public:
  // retry_after_ms: whether the answers carry retry-after-ms (retry_after_sent_ns);
  // tolerance_ns: HintWaits::tolerance_ns.
  RetryRecord(std::size_t max_items, bool retry_after_ms, std::int64_t tolerance_ns);

  // item: SendClaim::item (0: the arrival names none); send: its number, if known.
  void record(std::int64_t t_ns, std::uint64_t item, const SendAttribution& send,
              const Decision& d);
  void clear();

  // The items followed, by what became of them: the outcome of each one's last answer.
  struct Items {
    std::int64_t items = 0;
    std::int64_t delivered = 0;  // last answer 2xx
    std::int64_t gave_up = 0;    // last answer a retryable rejection, never followed by another
    std::array<std::int64_t, kOutcomeCount> by_final_outcome{};
    std::int64_t drain_ns = 0;    // the last delivered item's last arrival
    LogHistogram sends_per_item;  // every item followed
    LogHistogram latency_ns;      // delivered items: first arrival to last
  };
  Items items() const;

  std::size_t max_items() const { return table_.max_keys(); }
  std::int64_t arrivals() const { return arrivals_; }
  std::int64_t arrivals_without_item() const { return without_item_; }
  std::int64_t arrivals_past_limit() const { return past_limit_; }
  const HintWaits& hint_waits() const { return waits_; }
  Lockstep lockstep() const { return lockstep_of(retry_bins_, first_rejection_ns_); }
  // What lockstep() is made of, for a reader that copies them under its lock and sorts after.
  const BinnedCounts& retry_bins() const { return retry_bins_; }
  std::int64_t first_rejection_ns() const { return first_rejection_ns_; }

 private:
  struct ItemState {
    std::uint64_t key;  // 0: empty
    std::int64_t first_ns;
    std::int64_t last_ns;
    std::int64_t answered_ns;  // when the last answer left: its arrival plus its service time
    std::optional<std::int64_t> hint_ns;  // the Retry-After of the last answer
    std::int32_t sends;
    Outcome last;
  };
  void follow(ItemState& item, bool is_new, std::int64_t t_ns, const Decision& d);
  void compare_wait(const ItemState& item, std::int64_t t_ns);

  BoundedKeyTable<ItemState> table_;
  bool retry_after_ms_;
  std::int64_t arrivals_ = 0;
  std::int64_t without_item_ = 0;
  std::int64_t past_limit_ = 0;
  HintWaits waits_;
  std::int64_t first_rejection_ns_ = -1;
  BinnedCounts retry_bins_{kLockstepBinNs, 1};
};

// The provider's own results document (docs/RESULTS.md, "The provider's document"): the
// results schema of run's, from the arrivals' counters and the retry record alone, with the
// per-item figures in its "provider_results" section and the summary's hint_share and
// lockstep. GET /admin/results and --results-out send it; loadgen exec embeds it.
Results provider_results(const ArrivalStats& stats, const RetryRecord& record,
                         const ProviderConfig& config);
nlohmann::json provider_results_json(const ArrivalStats& stats, const RetryRecord& record,
                                     const ProviderConfig& config, std::int64_t clock_ns,
                                     double time_scale);

}  // namespace stampede
