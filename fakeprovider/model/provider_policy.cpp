#include "model/provider_policy.hpp"

#include <charconv>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "enum_table.hpp"
#include "http_token.hpp"
#include "model/llm_pacing.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {
constexpr std::uint64_t kProviderStream = 0xFFFF'FFFF'FFFF'FFFFULL;
}

std::string_view to_string(DecisionReason r) {
  constexpr EnumTable<DecisionReason, kDecisionReasonCount> kNames{
      {{DecisionReason::kServed, "served"},
       {DecisionReason::kOutage, "outage"},
       {DecisionReason::kInjectedError, "injected_error"},
       {DecisionReason::kCapacity, "capacity"},
       {DecisionReason::kAllowance, "request_rate_exceeded"},
       {DecisionReason::kTokens, "token_rate_exceeded"},
       {DecisionReason::kSpendCap, "spend_cap_exceeded"},
       {DecisionReason::kTooLarge, "request_too_large"},
       {DecisionReason::kBadTokens, "invalid_tokens"},
       {DecisionReason::kStoreUnavailable, "store_unavailable"},
       {DecisionReason::kInputTokens, "input_token_rate_exceeded"},
       {DecisionReason::kOutputTokens, "output_token_rate_exceeded"},
       {DecisionReason::kConcurrency, "concurrency_exceeded"}}};
  static_assert(is_dense(kNames));
  return kNames[static_cast<std::size_t>(r)].second;
}

DeclaredTokens parse_declared_tokens(std::optional<std::string_view> header_value) {
  if (!header_value) return {};
  const std::string_view text = trim_ows(*header_value);
  const char* end = text.data() + text.size();
  std::int64_t n = 0;
  const auto [at, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc{} || at != end || at == text.data() || n < 0) return {std::nullopt, true};
  return {n, false};
}

DeclaredTokens declared_tokens_in_body(std::string_view body, std::string_view field) {
  if (body.empty()) return {};
  const auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {std::nullopt, true};
  const auto it = j.find(field);
  if (it == j.end()) return {};
  if (it->is_number_unsigned() && it->get<std::uint64_t>() <= INT64_MAX)
    return {static_cast<std::int64_t>(it->get<std::uint64_t>()), false};
  // nlohmann reads a non-negative integer as unsigned: anything else is not a count.
  return {std::nullopt, true};
}

std::int64_t retry_after_seconds(std::int64_t retry_after_ns) {
  // Rounded up without the sum wrapping: the end of time is still the end of time.
  const std::int64_t s = saturating_add(retry_after_ns, kNsPerSec - 1) / kNsPerSec;
  return s < 1 ? 1 : s;
}

ProviderPolicy::ProviderPolicy(const ProviderConfig& config, SharedQuota* shared)
    : config_(config), shared_(shared), rng_(make_stream(config.seed, kProviderStream)) {
  if (config_.capacity && !shared_)
    capacity_ = make_limiter(config_.limiter, *config_.capacity, config_.burst);
}

void ProviderPolicy::add_outage(const OutageWindow& window) {
  config_.outages.push_back(window);
}

std::optional<Decision> ProviderPolicy::outage(std::int64_t now_ns) const {
  for (const auto& w : config_.outages) {
    if (now_ns < w.start_ns || now_ns >= w.end_ns) continue;
    Decision d;
    d.reason = DecisionReason::kOutage;
    switch (w.action) {
      case OutageAction::kStatus503:
        d.status = 503;
        break;
      case OutageAction::kStatus529:
        d.status = 529;
        break;
      case OutageAction::kStatus500:
        d.status = 500;
        break;
      case OutageAction::kReset:
        d.status = 0;
        d.reset_connection = true;
        break;
    }
    if (config_.retry_after && !d.reset_connection) d.retry_after_ns = w.end_ns - now_ns;
    return d;
  }
  return std::nullopt;
}

Decision ProviderPolicy::quota_rejection(const LimitVerdict& v, int status,
                                         DecisionReason reason) const {
  Decision d;
  d.status = status;
  d.reason = reason;
  if (config_.retry_after) d.retry_after_ns = v.retry_after_ns;
  d.has_quota = true;
  d.limit = v.limit;
  d.remaining = v.remaining;
  d.reset_ns = v.reset_ns;
  return d;
}

ProviderPolicy::TenantQuota& ProviderPolicy::tenant_quota(std::string_view tenant,
                                                          std::size_t row) {
  // Per (tenant, model): a tenant's requests to one model leave another's limits alone. A
  // tenant key holds no NUL (it is a header's), so the row after one cannot be mistaken.
  if (config_.models.empty()) row = 0;
  // Most runs have one tenant: skip the hash when it is the same as last time.
  if (last_quota_ && tenant == last_tenant_ && row == last_row_) return *last_quota_;
  std::string key(tenant);
  if (!config_.models.empty()) (key += '\0') += std::to_string(row);
  auto it = tenants_.find(key);
  if (it == tenants_.end()) {
    TenantQuota q;
    q.limits = limits_of_row(config_, row);
    const ModelLimits& l = q.limits;
    if (l.allowance) q.requests = make_limiter(config_.limiter, *l.allowance, config_.burst);
    // A token bucket holds the whole window's tokens, as Anthropic's does: a one-second burst
    // would turn away any request larger than a second's worth.
    if (l.token_allowance) {
      q.tokens = make_limiter(config_.limiter, *l.token_allowance, l.token_allowance->count,
                              QuotaUnit::kTokens);
    }
    if (l.input_token_allowance)
      q.input_tokens = make_split_token_limiter(config_.limiter, *l.input_token_allowance);
    if (l.output_token_allowance)
      q.output_tokens = make_split_token_limiter(config_.limiter, *l.output_token_allowance);
    it = tenants_.emplace(key, std::move(q)).first;
  }
  last_tenant_ = std::string(tenant);
  last_row_ = row;
  last_quota_ = &it->second;
  return *last_quota_;
}

// The request allowance's verdict: its 429, or its numbers written into `served`.
std::optional<Decision> ProviderPolicy::request_rejection(const LimitVerdict& v,
                                                          std::int64_t window_ns,
                                                          Decision& served) const {
  if (!v.admitted) {
    auto r = quota_rejection(v, 429, DecisionReason::kAllowance);
    r.window_ns = window_ns;
    return r;
  }
  served.has_quota = true;
  served.limit = v.limit;
  served.remaining = v.remaining;
  served.reset_ns = v.reset_ns;
  served.window_ns = window_ns;
  return std::nullopt;
}

// The quota layers' verdicts as an answer, for both paths (in process and the shared store):
// the first layer that rejected, or none; each one that admitted writes its numbers into
// `served`.
std::optional<Decision> ProviderPolicy::verdicts_rejection(const QuotaVerdicts& q,
                                                           Decision& served) const {
  if (q.capacity && !q.capacity->admitted) {
    return quota_rejection(*q.capacity, 529, DecisionReason::kCapacity);
  }
  if (q.spend_capped) {
    // Spent for good: a retry cannot succeed, so no Retry-After and x-should-retry: false.
    Decision d;
    d.status = 429;
    d.reason = DecisionReason::kSpendCap;
    d.should_retry = false;
    return d;
  }
  if (q.allowance) {
    const std::int64_t window =
        q.allowance_window_ns > 0 ? q.allowance_window_ns : config_.allowance->window_ns;
    if (auto r = request_rejection(*q.allowance, window, served)) return r;
  }
  if (q.concurrency && !q.concurrency->admitted) {
    Decision r = served;
    r.status = 429;
    r.reason = DecisionReason::kConcurrency;
    if (config_.retry_after) r.retry_after_ns = q.concurrency->retry_after_ns;
    return r;
  }
  if (q.tokens) {
    const LimitVerdict& v = *q.tokens;
    served.tokens = QuotaNumbers{v.limit, v.remaining, v.reset_ns};
    if (auto r = token_rejection(v, DecisionReason::kTokens, served)) return r;
  }
  return llm_rejection(q, served);
}

// A token layer's 429: the request numbers stay, as this request used its request allowance.
std::optional<Decision> ProviderPolicy::token_rejection(const LimitVerdict& v,
                                                        DecisionReason reason,
                                                        const Decision& served) const {
  if (v.admitted) return std::nullopt;
  Decision r = served;
  r.status = 429;
  r.reason = v.too_large ? DecisionReason::kTooLarge : reason;
  r.should_retry = !v.too_large;
  if (config_.retry_after && !v.too_large) r.retry_after_ns = v.retry_after_ns;
  return r;
}

// The input and output allowances' verdicts, each one's numbers written into `served`.
std::optional<Decision> ProviderPolicy::llm_rejection(const QuotaVerdicts& q,
                                                      Decision& served) const {
  if (q.input_tokens) {
    const LimitVerdict& v = *q.input_tokens;
    served.input_tokens = QuotaNumbers{v.limit, v.remaining, v.reset_ns};
    if (auto r = token_rejection(v, DecisionReason::kInputTokens, served)) return r;
  }
  if (q.output_tokens) {
    const LimitVerdict& v = *q.output_tokens;
    served.output_tokens = QuotaNumbers{v.limit, v.remaining, v.reset_ns};
    if (auto r = token_rejection(v, DecisionReason::kOutputTokens, served)) return r;
  }
  served.reservation = q.held;
  return std::nullopt;
}

// Capacity, then the tenant's quotas, all in this process.
bool ProviderPolicy::has_tenant_quotas() const {
  return config_.allowance || config_.token_allowance || config_.spend_cap ||
         config_.input_token_allowance || config_.output_token_allowance ||
         config_.max_concurrent || !config_.models.empty();
}

QuotaVerdicts ProviderPolicy::local_verdicts(std::int64_t now_ns, std::string_view tenant,
                                             std::int64_t cost,
                                             const std::optional<LlmCharge>& llm) {
  QuotaVerdicts q;
  q.t_ns = now_ns;
  if (capacity_) q.capacity = capacity_->try_acquire(now_ns);
  if ((!q.capacity || q.capacity->admitted) && has_tenant_quotas()) {
    // A request that is not an LLM one has no model: the top level's limits.
    const std::size_t row =
        route_model(config_, llm ? std::string_view(llm->model) : std::string_view{}).row;
    TenantQuota& t = tenant_quota(tenant, row);
    if (t.limits.allowance) q.allowance_window_ns = t.limits.allowance->window_ns;
    tenant_verdicts(now_ns, t, cost, llm, q);
    q.held.model_row = row;
  }
  return q;
}

// The tenant's quotas in order, each asked only when the ones before admitted (the store's
// script runs the same steps): the spend cap consumes nothing when it rejects; a request the
// token allowance rejects has used its request allowance; tokens are spent when all admit.
void ProviderPolicy::tenant_verdicts(std::int64_t now_ns, TenantQuota& t, std::int64_t cost,
                                     const std::optional<LlmCharge>& llm, QuotaVerdicts& q) {
  if (config_.spend_cap && cost > *config_.spend_cap - t.spent) {
    q.spend_capped = true;
    return;
  }
  if (t.requests) {
    q.allowance = t.requests->try_acquire(now_ns);
    if (!q.allowance->admitted) return;
  }
  if (llm) {
    if (!llm_verdicts(now_ns, t, cost, *llm, q)) return;
  } else if (t.tokens) {
    q.tokens = t.tokens->try_acquire(now_ns, cost);
    if (!q.tokens->admitted) return;
  }
  // Kept only against a cap, under which it cannot pass INT64_MAX; without one it would.
  if (config_.spend_cap) t.spent += cost;
}

// Until the answer's last token is due, as its pacing says, with the longest service time:
// the latest it should end, so a hint from it is never early.
std::int64_t ProviderPolicy::expected_end_ns(std::int64_t now_ns, const LlmCharge& llm) const {
  std::int64_t tokens = llm.max_tokens;
  if (config_.stream.output_tokens) tokens = std::min(tokens, config_.stream.output_tokens->max);
  const std::int64_t service = std::max(config_.latency_min_ns, config_.latency_max_ns);
  const std::int64_t stream =
      llm.stream && tokens > 0 ? token_due_ns(config_.stream, tokens - 1) : 0;
  return saturating_add(now_ns, saturating_add(service, stream));
}

bool ProviderPolicy::llm_verdicts(std::int64_t now_ns, TenantQuota& t, std::int64_t cost,
                                  const LlmCharge& llm, QuotaVerdicts& q) {
  const std::optional<std::int64_t>& max_concurrent = t.limits.max_concurrent;
  if (max_concurrent) {
    const auto open = static_cast<std::int64_t>(t.open.size());
    const std::int64_t first_end = t.open.empty() ? now_ns : *t.open.begin();
    const std::int64_t wait = std::max<std::int64_t>(0, first_end - now_ns);
    const bool admitted = open < *max_concurrent;
    q.concurrency = LimitVerdict{admitted, admitted ? 0 : wait, *max_concurrent,
                                 *max_concurrent - open - (admitted ? 1 : 0), wait};
    if (!admitted) return false;
  }
  Reservation& held = q.held;
  held.t_ns = now_ns;
  // OpenAI counts the prompt and the larger of max_tokens and the answer it expects.
  const bool openai = config_.dialect == Dialect::kOpenAi;
  const std::int64_t most_written =
      config_.stream.output_tokens ? std::min(llm.max_tokens, config_.stream.output_tokens->max)
                                   : llm.max_tokens;
  const std::int64_t charged =
      openai ? openai_admission_tokens(llm.input_tokens, llm.max_tokens, most_written) : cost;
  // What the layers before a rejection took is given back: this request used none of it.
  const auto give_back = [&] {
    if (q.tokens && q.tokens->admitted) t.tokens->refund(now_ns, now_ns, charged);
    if (q.input_tokens && q.input_tokens->admitted)
      t.input_tokens->refund(now_ns, now_ns, llm.input_tokens);
    return false;
  };
  if (t.tokens) {
    q.tokens = t.tokens->try_acquire(now_ns, charged);
    if (!q.tokens->admitted) return false;
    if (openai) held.combined = charged - llm.input_tokens;
  }
  if (t.input_tokens) {
    q.input_tokens = t.input_tokens->try_acquire(now_ns, llm.input_tokens);
    if (!q.input_tokens->admitted) return give_back();
  }
  if (t.output_tokens) {
    q.output_tokens = t.output_tokens->try_acquire(now_ns, llm.max_tokens);
    if (!q.output_tokens->admitted) return give_back();
    held.output = llm.max_tokens;
  }
  if (max_concurrent) {
    held.counted = true;
    held.expected_end_ns = expected_end_ns(now_ns, llm);
    t.open.insert(held.expected_end_ns);
  }
  return true;
}

void ProviderPolicy::settle_answer(std::int64_t now_ns, std::string_view tenant,
                                   const Reservation& r, std::int64_t output_tokens) {
  if (!r.held()) return;
  TenantQuota& t = tenant_quota(tenant, r.model_row);
  if (r.output > 0 && t.output_tokens)
    t.output_tokens->refund(now_ns, r.t_ns, unused_tokens(r.output, output_tokens));
  if (r.combined > 0 && t.tokens)
    t.tokens->refund(now_ns, r.t_ns, unused_tokens(r.combined, output_tokens));
  if (r.counted) {
    if (const auto it = t.open.find(r.expected_end_ns); it != t.open.end()) t.open.erase(it);
  }
}

std::optional<Decision> ProviderPolicy::before_quotas(std::int64_t now_ns,
                                                      const DeclaredTokens& tokens) {
  if (auto d = outage(now_ns)) return d;
  if (tokens.malformed) {
    Decision d;
    d.status = 400;
    d.reason = DecisionReason::kBadTokens;
    return d;
  }
  if (config_.error_rate > 0 && rng_.unit() < config_.error_rate) {
    Decision d;
    d.status = 400;
    d.reason = DecisionReason::kInjectedError;
    return d;
  }
  return std::nullopt;
}

std::int64_t ProviderPolicy::cost_of(const DeclaredTokens& tokens) const {
  return tokens.count.value_or(config_.default_tokens);
}

Decision ProviderPolicy::after_quotas(const QuotaVerdicts& q) {
  if (q.unavailable) {
    Decision d;
    d.status = 503;
    d.reason = DecisionReason::kStoreUnavailable;
    if (config_.retry_after) d.retry_after_ns = kNsPerSec;
    return d;
  }
  Decision d;
  auto rejection = verdicts_rejection(q, d);
  if (rejection) d = *rejection;
  d.quota_t_ns = q.t_ns;
  if (rejection) return d;
  d.service_ns = config_.latency_min_ns;
  if (config_.latency_max_ns > config_.latency_min_ns) {
    d.service_ns = rng_.uniform(config_.latency_min_ns, config_.latency_max_ns);
  }
  return d;
}

Decision ProviderPolicy::admit(std::int64_t now_ns, std::string_view tenant,
                               const DeclaredTokens& tokens, const std::optional<LlmCharge>& llm) {
  if (auto d = before_quotas(now_ns, tokens)) return *d;
  const std::int64_t cost = cost_of(tokens);
  return after_quotas(shared_ ? shared_->decide(now_ns, tenant, cost)
                              : local_verdicts(now_ns, tenant, cost, llm));
}

}  // namespace stampede
