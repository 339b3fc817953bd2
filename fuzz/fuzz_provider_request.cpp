// The provider's request handling without the sockets: a scenario the binary would accept,
// then a series of requests whose tenant, send-numbering (X-Attempt, X-Stainless-Retry-Count,
// amz-sdk-request, a custom attempt header, item and client keys, repeated or not) and token
// headers and arrival times are whatever a client sends, with admin resets and outages between
// them. Each request is decided as the data plane decides it (credential_key,
// offer_send_header, claim_send, LockedProvider::admit), and every admin answer that carries
// those header values is built: the stats JSON, the Prometheus page and the arrival CSV.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "json_text.hpp"
#include "model/credential_key.hpp"
#include "model/send_attribution.hpp"
#include "scenario.hpp"
#include "server/locked_provider.hpp"

namespace {

using namespace stampede;

constexpr std::int64_t kSecond = 1'000'000'000;

Rate some_rate(FuzzedDataProvider& in) {
  constexpr std::int64_t kWindows[] = {kSecond, 60 * kSecond, 3600 * kSecond};
  return Rate{in.ConsumeIntegralInRange<std::int64_t>(1, INT64_MAX), in.PickValueInArray(kWindows)};
}

Scenario some_scenario(FuzzedDataProvider& in) {
  Scenario s;
  auto& p = s.provider;
  if (in.ConsumeBool()) p.allowance = some_rate(in);
  p.limiter = static_cast<LimiterKind>(in.ConsumeIntegralInRange(0, 3));
  if (in.ConsumeBool()) p.burst = in.ConsumeIntegral<std::int64_t>();
  if (in.ConsumeBool()) p.capacity = some_rate(in);
  if (in.ConsumeBool()) {
    const auto start = in.ConsumeIntegralInRange<std::int64_t>(0, INT64_MAX);
    const auto end = in.ConsumeIntegralInRange<std::int64_t>(0, INT64_MAX);
    p.outages.push_back({start, end, static_cast<OutageAction>(in.ConsumeIntegralInRange(0, 3))});
  }
  p.error_rate = in.ConsumeProbability<double>() * in.ConsumeBool();
  p.latency_min_ns = in.ConsumeIntegral<std::int64_t>();
  p.latency_max_ns = in.ConsumeIntegral<std::int64_t>();
  p.retry_after = in.ConsumeBool();
  p.ratelimit_headers = static_cast<RateLimitHeaders>(in.ConsumeIntegralInRange(0, 3));
  if (in.ConsumeBool()) p.token_allowance = some_rate(in);
  if (in.ConsumeBool()) p.spend_cap = in.ConsumeIntegralInRange<std::int64_t>(0, INT64_MAX);
  p.default_tokens = in.ConsumeIntegralInRange<std::int64_t>(0, INT64_MAX);
  p.seed = in.ConsumeIntegral<std::uint64_t>();
  return s;
}

// A small table, so the fuzzer reaches the item limit.
SendRules some_rules(FuzzedDataProvider& in) {
  SendRules rules;
  if (in.ConsumeBool()) rules.attempt_header = "X-Retry";
  if (in.ConsumeBool()) rules.item_headers = {"X-Request-Id"};
  rules.client_header = in.ConsumeBool() ? "X-Client-Id" : "Authorization";
  rules.max_items = in.ConsumeIntegralInRange<std::size_t>(1, 16);
  return rules;
}

// Headers the rules read, each possibly repeated, in the order a client sends them. The
// strings live in values until the request is decided.
SendHeaders some_send_headers(FuzzedDataProvider& in, const SendRules& rules,
                              std::vector<std::string>& values) {
  constexpr const char* kNames[] = {
      "X-Attempt",    "x-stainless-retry-count", "amz-sdk-request", "X-Retry",
      "X-Request-Id", "amz-sdk-invocation-id",   "Idempotency-Key", "X-Client-Id",
      "authorization"};
  SendHeaders h;
  values.clear();
  values.reserve(8);
  for (int n = in.ConsumeIntegralInRange(0, 8); n > 0; --n) {
    const char* name = in.PickValueInArray(kNames);
    values.push_back(in.ConsumeRandomLengthString(48));
    offer_send_header(rules, h, name, values.back().c_str());
  }
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const Scenario s = some_scenario(in);
  if (!validate(s).empty()) return 0;  // the binary refuses it before serving
  const SendRules rules = some_rules(in);
  LockedProvider provider(
      {s.provider, 1.0, kSecond, /*keep_log=*/true, /*threads=*/2, nullptr, rules});
  std::vector<std::string> values;
  std::int64_t seen_ns = ScenarioClock::steady_ns();
  while (in.remaining_bytes() > 0) {
    switch (in.ConsumeIntegralInRange(0, 9)) {
      case 0:
        provider.reset();
        break;
      case 1:
        provider.start_outage(in.ConsumeIntegralInRange<std::int64_t>(1, INT64_MAX),
                              static_cast<OutageAction>(in.ConsumeIntegralInRange(0, 3)));
        break;
      default: {
        // Header values are C strings here: the head reader refuses a NUL in one.
        const std::string tenant = in.ConsumeRandomLengthString(64);
        const std::string tokens = in.ConsumeRandomLengthString(24);
        const SendHeaders headers = some_send_headers(in, rules, values);
        const SendClaim claim = claim_send(headers);
        // A send number is declared from 1, or counted from 1: never 0 or less.
        if (claim.kind == SendClaim::Kind::kDeclared && claim.send < 1) std::abort();
        seen_ns += in.ConsumeIntegralInRange<std::int64_t>(0, 10 * kSecond);
        const auto admission = provider.admit(
            in.ConsumeIntegralInRange<std::size_t>(0, 3), seen_ns,
            credential_key("Authorization", tenant.c_str()), claim, headers.client.value, {},
            parse_declared_tokens(in.ConsumeBool() ? tokens.c_str() : nullptr));
        const auto& d = admission.decision;
        if (d.retry_after_ns && retry_after_seconds(*d.retry_after_ns) < 1) std::abort();
      }
    }
  }
  // What GET /admin/stats, GET /metrics and --stats-out write; every arrival numbered or counted as
  // not.
  const auto stats = provider.stats_json();
  const auto& sends = stats.at("send_attribution");
  if (sends.at("attributed").get<std::int64_t>() + sends.at("unattributed").get<std::int64_t>() !=
      stats.at("requests").get<std::int64_t>())
    std::abort();
  json_text(stats);
  provider.metrics_text();
  const auto doc = provider.stats_document();
  doc->text();
  doc->text(StatsDocument::Format::kPrometheus);
  provider.arrivals_csv();
  return 0;
}
