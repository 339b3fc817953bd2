#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <set>

#include "model/limiter.hpp"
#include "model/model_limits.hpp"
#include "model/reservation.hpp"
#include "model/shared_quota.hpp"
#include "outcome.hpp"
#include "rng.hpp"
#include "scenario.hpp"

namespace stampede {

// Which layer answered, for the error body and the stats. kAllowance is the request rate.
enum class DecisionReason {
  kServed,
  kOutage,
  kInjectedError,
  kCapacity,
  kAllowance,
  kTokens,
  kSpendCap,
  kTooLarge,          // the request's tokens exceed the whole token allowance: no wait helps
  kBadTokens,         // the token header is not a count
  kStoreUnavailable,  // the shared store (--store) did not answer
  kInputTokens,       // provider.input_token_allowance
  kOutputTokens,      // provider.output_token_allowance, at max_tokens reserved
  kConcurrency,       // provider.max_concurrent answers open
};
inline constexpr std::size_t kDecisionReasonCount = 13;
// served, outage, injected_error, capacity, request_rate_exceeded, token_rate_exceeded,
// spend_cap_exceeded, request_too_large, invalid_tokens, store_unavailable,
// input_token_rate_exceeded, output_token_rate_exceeded, concurrency_exceeded: the stats' and
// error bodies' names.
std::string_view to_string(DecisionReason r);

// One quota's numbers, for the rate-limit headers.
struct QuotaNumbers {
  std::int64_t limit = 0;
  std::int64_t remaining = 0;
  std::int64_t reset_ns = 0;  // until it is whole again
};

// The tokens a request declares (provider.token_header): none, when the default is counted,
// or a count; malformed is answered 400.
struct DeclaredTokens {
  std::optional<std::int64_t> count;
  bool malformed = false;
};
// The header's value, or null when the request has none: a whole number >= 0, spaces and
// tabs around it aside (RFC 9110 OWS).
DeclaredTokens parse_declared_tokens(std::optional<std::string_view> header_value);
inline DeclaredTokens parse_declared_tokens(const char* header_value) {
  return parse_declared_tokens(header_value ? std::optional<std::string_view>(header_value)
                                            : std::nullopt);
}
// A top-level field of a JSON object body (provider.token_field, e.g. max_tokens): absent (or
// no body) declares nothing; not JSON, not an object, or not a whole number >= 0 is malformed.
DeclaredTokens declared_tokens_in_body(std::string_view body, std::string_view field);

struct Decision {
  int status = 200;
  bool reset_connection = false;  // an outage that drops the connection instead of answering
  DecisionReason reason = DecisionReason::kServed;
  std::optional<std::int64_t> retry_after_ns;  // none: send no Retry-After
  bool has_quota = false;                      // the RateLimit headers below apply
  std::int64_t limit = 0;
  std::int64_t remaining = 0;
  std::int64_t reset_ns = 0;
  std::int64_t window_ns = 0;
  std::optional<QuotaNumbers> tokens;         // the tenant's token allowance, when it has one
  std::optional<QuotaNumbers> input_tokens;   // its input-token allowance
  std::optional<QuotaNumbers> output_tokens;  // its output-token allowance
  Reservation reservation;                    // held until the answer ends (settle_answer)
  bool should_retry = true;                   // false: sent as x-should-retry: false
  std::int64_t service_ns = 0;                // how long to take before answering
  // When the quota layers decided: the arrival's time, or a shared store's later one; none when
  // they were not asked.
  std::optional<std::int64_t> quota_t_ns;

  Outcome outcome() const {
    return reset_connection ? Outcome::kConnectError : classify_status(status);
  }
};

// Retry-After in delta-seconds: rounded up, at least 1.
std::int64_t retry_after_seconds(std::int64_t retry_after_ns);

// The provider model: layers, first match wins — outage window, a malformed token count,
// injected error, global capacity, then the tenant's quotas: its spend cap, its request
// allowance, its token allowance; then success after the service time. Pure: time comes in,
// nothing is read from a clock, and the caller serialises calls.
//
// The spend cap is checked first, as a provider checks an account's credit before its rates,
// and only tokens served are spent. A request the token allowance turns away has used its
// request allowance (OpenAI: "unsuccessful requests contribute to your per-minute limit").
class ProviderPolicy {
 public:
  // shared: where capacity and the allowances live when not in this process (not owned).
  explicit ProviderPolicy(const ProviderConfig& config, SharedQuota* shared = nullptr);

  // llm: what an LLM request's body asks (docs/LLM.md), for the input and output allowances,
  // max_concurrent and OpenAI's way of counting the token allowance.
  Decision admit(std::int64_t now_ns, std::string_view tenant, const DeclaredTokens& tokens = {},
                 const std::optional<LlmCharge>& llm = std::nullopt);
  // The answer admitted with this reservation has ended, having written output_tokens: what
  // it reserved and did not use goes back to the tenant's buckets now, and it is no longer
  // open. Once per admission that holds something, in time order with admit.
  void settle_answer(std::int64_t now_ns, std::string_view tenant, const Reservation& r,
                     std::int64_t output_tokens);

  // admit in three steps, for a caller that asks the shared store itself, outside its lock
  // (LockedProvider): before_quotas, then, when it has no answer, the store's decide with
  // cost_of(tokens), then after_quotas with the store's verdicts. Called in that order, one
  // arrival after another, they answer as admit does.
  //
  // The layers before the quotas (outage, a malformed token count, an injected error): their
  // answer, or none when the quota layers decide.
  std::optional<Decision> before_quotas(std::int64_t now_ns, const DeclaredTokens& tokens);
  std::int64_t cost_of(const DeclaredTokens& tokens) const;
  // The quota layers' verdicts as the answer; a service time drawn when they admit.
  Decision after_quotas(const QuotaVerdicts& q);

  // Starts an outage now (the admin API's POST /admin/outage).
  void add_outage(const OutageWindow& window);
  const ProviderConfig& config() const { return config_; }

 private:
  std::optional<Decision> outage(std::int64_t now_ns) const;
  // A tenant's quotas (per model it asks for, with provider.models): a limiter per allowance it
  // has, and the tokens it has spent.
  struct TenantQuota {
    ModelLimits limits;  // the provider's top-level limits, or its model's
    std::unique_ptr<Limiter> requests;
    std::unique_ptr<Limiter> tokens;
    std::unique_ptr<Limiter> input_tokens;
    std::unique_ptr<Limiter> output_tokens;
    std::multiset<std::int64_t> open;  // the expected ends of its open LLM answers
    std::int64_t spent = 0;
  };
  std::optional<Decision> token_rejection(const LimitVerdict& v, DecisionReason reason,
                                          const Decision& served) const;
  std::optional<Decision> llm_rejection(const QuotaVerdicts& q, Decision& served) const;
  // The LLM layers (docs/LLM.md): max_concurrent, then the token allowance charged OpenAI's
  // way, the input tokens, the output tokens reserved; a layer that rejects gives back what
  // the ones before it charged. False when one rejected.
  bool llm_verdicts(std::int64_t now_ns, TenantQuota& t, std::int64_t cost, const LlmCharge& llm,
                    QuotaVerdicts& q);
  std::int64_t expected_end_ns(std::int64_t now_ns, const LlmCharge& llm) const;
  Decision quota_rejection(const LimitVerdict& v, int status, DecisionReason reason) const;
  // row: route_model's; ignored without provider.models.
  TenantQuota& tenant_quota(std::string_view tenant, std::size_t row);
  void tenant_verdicts(std::int64_t now_ns, TenantQuota& t, std::int64_t cost,
                       const std::optional<LlmCharge>& llm, QuotaVerdicts& q);
  std::optional<Decision> request_rejection(const LimitVerdict& v, std::int64_t window_ns,
                                            Decision& served) const;
  std::optional<Decision> verdicts_rejection(const QuotaVerdicts& q, Decision& served) const;
  QuotaVerdicts local_verdicts(std::int64_t now_ns, std::string_view tenant, std::int64_t cost,
                               const std::optional<LlmCharge>& llm);
  bool has_tenant_quotas() const;

  ProviderConfig config_;
  SharedQuota* shared_;
  Rng rng_;
  std::unique_ptr<Limiter> capacity_;
  std::unordered_map<std::string, TenantQuota> tenants_;
  std::string last_tenant_;
  std::size_t last_row_ = 0;
  TenantQuota* last_quota_ = nullptr;
};

}  // namespace stampede
