#include "server/locked_provider.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <mutex>

#include "model/model_limits.hpp"
#include "model/retry_hint.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// Apart from the policy's stream: hops drawn or not leave its errors and latencies as they were.
constexpr std::uint64_t kHopStream = 0xFFFF'FFFF'FFFF'FFFEULL;

}  // namespace

LockedProvider::LockedProvider(const Options& options)
    : options_(options),
      clock_(options.time_scale),
      policy_(options.config, options.store),
      items_(options.send_rules.max_items),
      retries_(options.send_rules.max_items, options.config.retry_after_ms,
               options.send_rules.hint_tolerance_ns),
      hop_rng_(make_stream(options.config.seed, kHopStream)) {
  if (options_.store) follow_store_epoch(options_.store->epoch_wall_ns());
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options.threads); ++i) {
    recorders_.push_back(std::make_unique<Recorder>(options.bin_ns));
  }
}

LockedProvider::Admission LockedProvider::admit(const Arrival& a) {
  if (options_.store) return admit_all({&a, 1}).front();
  Lock lock(mu_);
  const std::int64_t t_ns = arrival_t_ns(a.seen_steady_ns);
  const Decided out = settle(t_ns, policy_.admit(t_ns, a.tenant, a.tokens, a.llm), a);
  lock.unlock();
  const Ticket ticket = record(a.thread, out, a);
  return {out.t_ns, out.decision, out.row_version, ticket};
}

AdmissionLine* LockedProvider::line(std::size_t loop) {
  if (!options_.store) return nullptr;
  const std::lock_guard lock(lines_mu_);
  if (lines_.size() <= loop) lines_.resize(loop + 1);
  if (!lines_[loop]) {
    lines_[loop] = std::make_unique<StoreLine>(
        [this](std::span<const Arrival> arrivals) { return admit_all(arrivals); });
  }
  return lines_[loop].get();
}

std::vector<LockedProvider::Admission> LockedProvider::admit_all(
    std::span<const Arrival> arrivals) {
  std::vector<Decided> out(arrivals.size());
  std::vector<std::size_t> asking;  // the arrivals the store is asked about
  std::vector<QuotaAsk> asks;
  Lock lock(mu_);
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    const Arrival& a = arrivals[i];
    const std::int64_t t_ns = arrival_t_ns(a.seen_steady_ns);
    if (!options_.store) {
      out[i] = settle(t_ns, policy_.admit(t_ns, a.tenant, a.tokens, a.llm), a);
    } else if (auto d = policy_.before_quotas(t_ns, a.tokens)) {
      out[i] = settle(t_ns, *d, a);
    } else {
      asking.push_back(i);
      asks.push_back({t_ns, a.tenant, policy_.cost_of(a.tokens)});
    }
  }
  if (!asks.empty()) decide_with_store(lock, arrivals, asking, asks, out);
  lock.unlock();
  std::vector<Admission> admitted;
  admitted.reserve(arrivals.size());
  // A run of arrivals read by one thread is recorded under one lock of its recorder.
  for (std::size_t i = 0; i < arrivals.size();) {
    Recorder& r = *recorders_[arrivals[i].thread % recorders_.size()];
    const std::lock_guard record_lock(r.mu);
    do {
      const Ticket ticket = record_locked(r, arrivals[i].thread, out[i], arrivals[i]);
      admitted.push_back({out[i].t_ns, out[i].decision, out[i].row_version, ticket});
    } while (++i < arrivals.size() && arrivals[i].thread == arrivals[i - 1].thread);
  }
  return admitted;
}

std::int64_t LockedProvider::arrival_t_ns(std::int64_t seen_steady_ns) {
  // Another thread may have decided a request it saw a moment later: the limiters need time
  // in order, and the stats count each arrival in the window that decided it.
  last_t_ns_ = std::max(clock_.to_scenario_ns(seen_steady_ns), last_t_ns_);
  return last_t_ns_;
}

std::int64_t LockedProvider::stamp_t_ns(std::int64_t seen_steady_ns) const {
  return std::max<std::int64_t>(0, clock_.to_scenario_ns(seen_steady_ns));
}

void LockedProvider::decide_with_store(Lock& lock, std::span<const Arrival> arrivals,
                                       const std::vector<std::size_t>& asking,
                                       std::vector<QuotaAsk>& asks, std::vector<Decided>& out) {
  const std::int64_t timed_in_epoch = store_epoch_wall_ns_;
  lock.unlock();
  // One round trip at a time (the store is one connection), its arrivals settled before the
  // next is made: the arrivals are settled in the order the store decided them.
  const std::lock_guard store_lock(store_mu_);
  // An arrival that asked first moved this replica to another replica's epoch after these
  // were timed: the store would take the old epoch's time as the new one's, seconds off, so
  // they are timed again on the new clock (which moves only with store_mu_ held).
  if (store_epoch_wall_ns_ != timed_in_epoch) {
    for (std::size_t j = 0; j < asks.size(); ++j)
      asks[j].now_ns = clock_.to_scenario_ns(arrivals[asking[j]].seen_steady_ns);
  }
  const std::vector<QuotaVerdicts> verdicts = options_.store->decide_all(asks);
  const std::int64_t epoch_wall_ns = options_.store->epoch_wall_ns();
  lock.lock();
  for (std::size_t j = 0; j < asks.size(); ++j) {
    const Decision d = policy_.after_quotas(verdicts[j]);
    // Another replica's reset moved the scenario's t = 0, as the first of these arrivals
    // found: this replica follows, as reset, from that arrival on.
    if (j == 0 && epoch_wall_ns != store_epoch_wall_ns_) {
      reset_locked();
      follow_store_epoch(epoch_wall_ns);
    }
    // The store decides every replica's arrivals in one order, on one clock.
    const std::int64_t store_t_ns = d.quota_t_ns.value_or(asks[j].now_ns);
    last_t_ns_ = std::max(last_t_ns_, store_t_ns);
    out[asking[j]] = settle(store_t_ns, d, arrivals[asking[j]]);
  }
}

LockedProvider::Decided LockedProvider::settle(std::int64_t t_ns, Decision d, const Arrival& a) {
  std::optional<std::uint64_t> row_version;
  // The row decides in arrival order too: a write that arrives first wins.
  if (a.row.op != RowOp::kNone && d.status == 200) {
    const RowAnswer answer = answer_row(row_, a.row);
    d.status = answer.status;
    row_version = answer.version;
  }
  // Counted in the order of decisions, after a store epoch's reset emptied the counts.
  const SendAttribution attribution = attribute_send(a.send, items_);
  const std::uint64_t seq = next_seq_++;
  // Before the record: the hint a client waits against is the one it was sent.
  if (options_.config.retry_after_jitter > 0 && d.retry_after_ns.value_or(0) > 0)
    jitter_hint(d, a.tenant, a.send, a.client_id, attribution, seq);
  retries_.record(t_ns, a.send.item, attribution, d);
  return {t_ns, stamp_t_ns(a.seen_steady_ns), d, row_version, attribution, seq, epoch_};
}

LockedProvider::Ticket LockedProvider::record(std::size_t thread, const Decided& out,
                                              const Arrival& a) {
  Recorder& r = *recorders_[thread % recorders_.size()];
  std::lock_guard lock(r.mu);
  return record_locked(r, thread, out, a);
}

LockedProvider::Ticket LockedProvider::record_locked(Recorder& r, std::size_t thread,
                                                     const Decided& out, const Arrival& a) {
  Ticket ticket{thread % recorders_.size(), out.epoch, std::nullopt};
  if (r.epoch != out.epoch) return ticket;
  const Decision& d = out.decision;
  const ProviderConfig& p = options_.config;
  // By model only with provider.models (an empty name counts none).
  const std::string_view model =
      model_row_name(p, route_model(p, a.llm ? std::string_view(a.llm->model) : "").row);
  r.stats.record(out.t_ns, a.tenant, d.outcome(), out.attribution, d.reason, model);
  if (options_.keep_log)
    ticket.log_row = r.log.record(out.seq, out.stamp_t_ns, out.t_ns, a.tenant, d.status,
                                  out.attribution, a.client_id);
  return ticket;
}

void LockedProvider::note_upstream(const Ticket& ticket, int upstream) {
  Recorder& r = *recorders_[ticket.thread % recorders_.size()];
  std::lock_guard lock(r.mu);
  if (r.epoch != ticket.epoch) return;
  r.stats.record_upstream(upstream);
  if (ticket.log_row) r.log.set_upstream(*ticket.log_row, upstream);
}

void LockedProvider::settle_answer(const Ticket& ticket, std::string_view tenant,
                                   const Reservation& r, std::int64_t output_tokens) {
  if (!r.held()) return;
  const Lock lock(mu_);
  if (ticket.epoch != epoch_) return;
  policy_.settle_answer(arrival_t_ns(ScenarioClock::steady_ns()), tenant, r, output_tokens);
}

// Keyed by who the request is and which send: a client's hints do not depend on the others'.
// An arrival without a send number is keyed by its place in the arrival order instead.
void LockedProvider::jitter_hint(Decision& d, std::string_view tenant, const SendClaim& send,
                                 std::string_view client_id, const SendAttribution& attribution,
                                 std::uint64_t seq) const {
  const std::uint64_t who =
      hint_identity(send.kind == SendClaim::Kind::kCounted ? send.key : 0, client_id, tenant);
  const std::int64_t n =
      attribution.attributed() ? attribution.send : static_cast<std::int64_t>(seq);
  d.retry_after_ns = jittered_retry_after_ns(*d.retry_after_ns, options_.config.retry_after_jitter,
                                             options_.config.seed, who, n);
}

std::int64_t LockedProvider::draw_hop_ns() {
  std::lock_guard lock(mu_);
  return stampede::draw_hop_ns(*options_.config.hop_delay, hop_rng_);
}

void LockedProvider::reset(std::optional<std::int64_t> at_wall_ns) {
  if (!options_.store) {
    const std::lock_guard lock(mu_);
    reset_locked();
    clock_.restart_at(at_wall_ns ? ScenarioClock::steady_at_unix(*at_wall_ns)
                                 : ScenarioClock::steady_ns());
    return;
  }
  // Between two of the store's decisions, its round trips made without the lock, as they are.
  const std::lock_guard store_lock(store_mu_);
  if (!options_.store->reset(at_wall_ns.value_or(ScenarioClock::unix_ns()))) {
    std::cerr << "fakeprovider: reset: the Redis store is unreachable; only this replica "
                 "was reset\n";
  }
  const std::int64_t epoch_wall_ns = options_.store->epoch_wall_ns();
  const std::lock_guard lock(mu_);
  reset_locked();
  follow_store_epoch(epoch_wall_ns);
}

void LockedProvider::follow_store_epoch(std::int64_t epoch_wall_ns) {
  store_epoch_wall_ns_ = epoch_wall_ns;
  clock_.restart_at(ScenarioClock::steady_at_unix(store_epoch_wall_ns_));
}

void LockedProvider::reset_locked() {
  ++epoch_;
  for (auto& r : recorders_) {
    std::lock_guard recorder_lock(r->mu);
    r->stats = ArrivalStats(options_.bin_ns);
    r->log.clear();
    r->epoch = epoch_;
  }
  policy_ = ProviderPolicy(options_.config, options_.store);
  row_ = VersionedRow{};
  items_.clear();
  retries_.clear();
  hop_rng_ = make_stream(options_.config.seed, kHopStream);
  last_t_ns_ = 0;
  if (options_.turned_away) turned_away_at_reset_ = options_.turned_away->load();
}

OutageWindow LockedProvider::start_outage(std::int64_t duration_ns, OutageAction action) {
  std::lock_guard lock(mu_);
  const std::int64_t now_ns = std::max(clock_.now_ns(), last_t_ns_);
  // POST /admin/outage?for=292y is a valid duration: it ends at the end of time, not before t=0.
  const std::int64_t end_ns = saturating_add(now_ns, duration_ns);
  const OutageWindow w{now_ns, end_ns, action};
  policy_.add_outage(w);
  return w;
}

ArrivalStats LockedProvider::merged_stats() const {
  ArrivalStats all(options_.bin_ns);
  for (const auto& r : recorders_) {
    std::lock_guard lock(r->mu);
    all.merge(r->stats);
  }
  return all;
}

void LockedProvider::add_item_counts(nlohmann::json& doc) const {
  std::lock_guard lock(mu_);
  auto& sends = doc["send_attribution"];
  sends["items"] = items_.items();
  sends["max_items"] = items_.max_items();
  if (options_.turned_away)
    doc["connections_refused"] = options_.turned_away->load() - turned_away_at_reset_;
}

nlohmann::json LockedProvider::stats_json() const {
  auto j = merged_stats().to_json(clock_.now_ns(), clock_.time_scale());
  add_item_counts(j);
  return j;
}

std::unique_ptr<StatsDocument> LockedProvider::stats_document() const {
  std::size_t tenants_hint = 0;  // an upper bound: a tenant may be in every recorder
  for (const auto& r : recorders_) {
    std::lock_guard lock(r->mu);
    tenants_hint += r->stats.tenants().size();
  }
  auto doc = std::make_unique<StatsDocument>(options_.bin_ns, tenants_hint);
  for (const auto& r : recorders_) {
    std::lock_guard lock(r->mu);
    doc->add(r->stats);
  }
  doc->finish(clock_.now_ns(), clock_.time_scale());
  add_item_counts(doc->head);
  return doc;
}

nlohmann::json LockedProvider::results_json() const {
  const ArrivalStats stats = merged_stats();
  std::lock_guard lock(mu_);
  return provider_results_json(stats, retries_, options_.config, clock_.now_ns(),
                               clock_.time_scale());
}

LiveSnapshot LockedProvider::live_snapshot() const {
  LiveSnapshot s;
  s.counts = ArrivalStats(options_.bin_ns);
  std::vector<std::vector<LiveTenant>> tenants(recorders_.size());
  for (std::size_t i = 0; i < recorders_.size(); ++i) {
    const auto& r = recorders_[i];
    {
      std::lock_guard lock(r->mu);
      s.counts.merge_counts(r->stats);  // bins and totals: bounded by the run's duration
    }
    std::optional<std::string> after;
    for (bool done = false; !done;) {
      std::lock_guard lock(r->mu);
      done = copy_tenant_slice(r->stats, after, kLiveTenantSlice, tenants[i]);
    }
  }
  auto summed = sum_tenants(tenants);
  s.top_tenants = std::move(summed.top);
  s.tenants_seen = summed.seen;
  s.time_scale = clock_.time_scale();
  s.allowance = options_.config.allowance;
  s.capacity = options_.config.capacity;
  s.proxy = !options_.config.upstream.empty();
  Lock lock(mu_);
  s.clock_ns = clock_.now_ns();
  s.items_seen = static_cast<std::int64_t>(items_.items());
  s.outages = policy_.config().outages;
  // Copied under the lock, sorted after it: a long run's bins take a while to sort.
  const BinnedCounts retry_bins = retries_.retry_bins();
  const std::int64_t first_rejection_ns = retries_.first_rejection_ns();
  lock.unlock();
  s.lockstep = lockstep_of(retry_bins, first_rejection_ns);
  return s;
}

std::string LockedProvider::metrics_text() const {
  return merged_stats().to_prometheus(clock_.now_ns());
}

std::string LockedProvider::arrivals_csv() const {
  std::vector<std::unique_lock<AdaptiveMutex>> locks;
  std::vector<const ArrivalLog*> logs;
  for (const auto& r : recorders_) {
    locks.emplace_back(r->mu);
    logs.push_back(&r->log);
  }
  return ArrivalLog::to_csv(logs);
}

}  // namespace stampede
