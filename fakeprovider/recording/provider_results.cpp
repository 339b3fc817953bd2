#include "recording/provider_results.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "model/retry_hint.hpp"
#include "saturating.hpp"

namespace stampede {

using json = nlohmann::json;

std::optional<std::int64_t> retry_after_sent_ns(const Decision& d, bool retry_after_ms) {
  if (d.reset_connection || !d.retry_after_ns) return std::nullopt;
  if (retry_after_ms) return saturating_mul(retry_after_ms_up(*d.retry_after_ns), kNsPerMs);
  return saturating_mul(retry_after_seconds(*d.retry_after_ns), kNsPerSec);
}

Lockstep lockstep_of(const BinnedCounts& retries, std::int64_t first_rejection_ns) {
  Lockstep l;
  if (first_rejection_ns < 0) return l;
  const auto first_bin = static_cast<std::size_t>(first_rejection_ns / retries.bin_ns());
  l.from_ns = static_cast<std::int64_t>(first_bin) * retries.bin_ns();
  std::size_t end_bin = retries.bins();
  while (end_bin > first_bin && retries.bin_total(end_bin - 1) == 0) --end_bin;
  if (end_bin <= first_bin) return l;
  l.to_ns = static_cast<std::int64_t>(end_bin) * retries.bin_ns();
  std::vector<std::int64_t> counts;
  counts.reserve(end_bin - first_bin);
  for (std::size_t b = first_bin; b < end_bin; ++b) counts.push_back(retries.bin_total(b));
  l.bins = counts.size();
  l.busiest_bins = (l.bins + 9) / 10;
  const auto busiest_end = counts.begin() + static_cast<std::ptrdiff_t>(l.busiest_bins);
  std::partial_sort(counts.begin(), busiest_end, counts.end(), std::greater<>());
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    l.retries += *it;
    if (it < busiest_end) l.in_busiest += *it;
  }
  l.share = static_cast<double>(l.in_busiest) / static_cast<double>(l.retries);
  return l;
}

double HintWaits::at_hint_share() const {
  const std::int64_t hinted = retries - without_hint;
  return hinted > 0 ? static_cast<double>(at_hint) / static_cast<double>(hinted) : 0.0;
}

RetryRecord::RetryRecord(std::size_t max_items, bool retry_after_ms, std::int64_t tolerance_ns)
    : table_(max_items), retry_after_ms_(retry_after_ms) {
  waits_.tolerance_ns = tolerance_ns;
}

void RetryRecord::record(std::int64_t t_ns, std::uint64_t item, const SendAttribution& send,
                         const Decision& d) {
  ++arrivals_;
  const Outcome outcome = d.outcome();
  // Binned from the first rejection on: a retry before any (a declared number) provoked none
  // of the provider's answers.
  if (send.attributed() && send.send >= 2 && first_rejection_ns_ >= 0) retry_bins_.add(t_ns, 0);
  if (first_rejection_ns_ < 0 && is_retryable(outcome)) first_rejection_ns_ = t_ns;
  if (item == 0) {
    ++without_item_;
    return;
  }
  bool is_new = false;
  ItemState* state = table_.find_or_insert(item, is_new);
  if (!state) {
    ++past_limit_;
    return;
  }
  follow(*state, is_new, t_ns, d);
}

void RetryRecord::follow(ItemState& item, bool is_new, std::int64_t t_ns, const Decision& d) {
  if (is_new) {
    item.first_ns = t_ns;
  } else if (is_retryable(item.last)) {
    compare_wait(item, t_ns);
  }
  ++item.sends;
  item.last = d.outcome();
  item.last_ns = t_ns;
  item.answered_ns = saturating_add(t_ns, d.service_ns);
  item.hint_ns = retry_after_sent_ns(d, retry_after_ms_);
}

void RetryRecord::compare_wait(const ItemState& item, std::int64_t t_ns) {
  ++waits_.retries;
  if (!item.hint_ns) {
    ++waits_.without_hint;
    return;
  }
  const std::int64_t wait_ns = std::max<std::int64_t>(0, t_ns - item.answered_ns);
  const std::int64_t off_ns = wait_ns - *item.hint_ns;
  if (off_ns < -waits_.tolerance_ns) {
    ++waits_.early;
  } else if (off_ns > waits_.tolerance_ns) {
    ++waits_.late;
  } else {
    ++waits_.at_hint;
  }
  waits_.wait_ns.record(wait_ns);
  waits_.off_hint_ns.record(off_ns < 0 ? -off_ns : off_ns);
}

void RetryRecord::clear() {
  *this = RetryRecord(table_.max_keys(), retry_after_ms_, waits_.tolerance_ns);
}

RetryRecord::Items RetryRecord::items() const {
  Items out;
  table_.for_each([&out](const ItemState& s) {
    ++out.items;
    ++out.by_final_outcome[static_cast<std::size_t>(s.last)];
    out.sends_per_item.record(s.sends);
    if (s.last == Outcome::kOk) {
      ++out.delivered;
      out.latency_ns.record(s.last_ns - s.first_ns);
      out.drain_ns = std::max(out.drain_ns, s.last_ns);
    } else if (is_retryable(s.last)) {
      ++out.gave_up;
    }
  });
  return out;
}

namespace {

json outcome_counts(const std::array<std::int64_t, kOutcomeCount>& counts) {
  json j = json::object();
  for (std::size_t i = 0; i < kOutcomeCount; ++i) j[std::string(kOutcomeNames[i])] = counts[i];
  return j;
}

json items_json(const RetryRecord& record, const RetryRecord::Items& items) {
  return {{"followed", items.items},
          {"max_items", record.max_items()},
          {"arrivals_without_item", record.arrivals_without_item()},
          {"arrivals_past_max_items", record.arrivals_past_limit()},
          {"delivered", items.delivered},
          {"gave_up", items.gave_up},
          {"by_final_outcome", outcome_counts(items.by_final_outcome)}};
}

json hint_waits_json(const HintWaits& w) {
  return {{"tolerance_ms", w.tolerance_ns / kNsPerMs},
          {"retries", w.retries},
          {"without_hint", w.without_hint},
          {"early", w.early},
          {"at_hint", w.at_hint},
          {"late", w.late},
          {"at_hint_share", w.at_hint_share()},
          {"wait_ns", w.wait_ns.to_json()},
          {"off_hint_ns", w.off_hint_ns.to_json()}};
}

}  // namespace

json lockstep_json(const Lockstep& l) {
  return {{"bin_ms", kLockstepBinNs / kNsPerMs},
          {"from_ns", l.from_ns},
          {"to_ns", l.to_ns},
          {"bins", l.bins},
          {"busiest_bins", l.busiest_bins},
          {"retries", l.retries},
          {"in_busiest", l.in_busiest},
          {"share", l.share}};
}

Results provider_results(const ArrivalStats& stats, const RetryRecord& record,
                         const ProviderConfig& config) {
  Results r;
  r.engine = "fakeprovider";
  r.scenario.name = "fakeprovider";
  r.scenario.provider = config;
  r.provider_side = true;
  const auto items = record.items();
  auto& rec = r.recording;
  rec.items = items.items;
  rec.delivered = items.delivered;
  rec.dead_lettered = items.items - items.delivered;
  rec.requests = stats.totals().requests;
  rec.drain_ns = items.drain_ns;
  rec.provider_by_outcome = stats.by_outcome();
  rec.provider_by_send = stats.by_send();
  provider_stands_in_for_clients(rec);
  rec.sends_per_item = items.sends_per_item;
  rec.item_latency_ns = items.latency_ns;
  r.summary = summarize(rec, config, true);
  r.summary.hint_share = record.hint_waits().at_hint_share();
  r.summary.lockstep = record.lockstep().share;
  return r;
}

json provider_results_json(const ArrivalStats& stats, const RetryRecord& record,
                           const ProviderConfig& config, std::int64_t clock_ns, double time_scale) {
  const Results r = provider_results(stats, record, config);
  json doc = to_json(r);
  doc["provider_results"] = {{"clock_ns", clock_ns},
                             {"time_scale", time_scale},
                             {"bin_ns", stats.bin_ns()},
                             {"items", items_json(record, record.items())},
                             {"hint_waits", hint_waits_json(record.hint_waits())},
                             {"lockstep", lockstep_json(record.lockstep())}};
  // Proxy mode: what the upstream made of what was forwarded, apart from the provider's own.
  if (!config.upstream.empty()) doc["provider_results"]["upstream"] = stats.upstream_json();
  // The LLM dialects: their streams broken mid-way (--stream-errors), served all the same.
  if (config.dialect == Dialect::kAnthropic || config.dialect == Dialect::kOpenAi)
    doc["provider_results"]["streams_broken"] = stats.streams_broken();
  // provider.models: the arrivals by model (its listed ones and "other").
  if (!config.models.empty()) doc["provider_results"]["models"] = stats.models_json();
  return doc;
}

}  // namespace stampede
