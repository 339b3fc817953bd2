#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scenario.hpp"

namespace stampede {

// The flags that override scenario fields. Data only: each binary's main.cpp registers them
// with its own parser, and every value goes through set_field, the scenario file's parser.
// Where a binary takes both lists, a provider flag whose name a fleet flag already has is
// spelled with a "provider-" prefix (--provider-seed, --provider-retry-after).
struct ScenarioFlag {
  std::string_view flag;
  std::string_view field;
  std::string_view help;
  bool repeatable = false;
};

inline constexpr std::array<ScenarioFlag, 17> kProviderFlags{{
    {"--allowance", "provider.allowance", "per-tenant allowance: N/s, N/min or N/h"},
    {"--limiter", "provider.limiter", "fixed-window, sliding-window or token-bucket"},
    {"--burst", "provider.burst", "token bucket size (default: one second of allowance)"},
    {"--capacity", "provider.capacity", "global capacity across tenants, answered 529: N/s"},
    {"--outage", "provider.outages",
     "START-END[:STATUS], STATUS 503 (default), 529, 500 or reset; repeatable; replaces the "
     "file's outages",
     true},
    {"--error-rate", "provider.error_rate", "fraction of requests answered 400"},
    {"--latency", "provider.latency", "service time: 5ms, or a uniform range 5ms-20ms"},
    {"--tenant-header", "provider.tenant_header",
     "header naming the tenant (default X-Api-Key); of an Authorization, fakeprovider takes the "
     "bearer token (or a SigV4 access key id)"},
    {"--retry-after", "provider.retry_after", "send Retry-After on 429/503/529: on or off"},
    {"--ratelimit-headers", "provider.ratelimit_headers",
     "none, ietf, x-ratelimit, anthropic (anthropic-ratelimit-requests-*, -tokens-*) or openai "
     "(x-ratelimit-limit-requests, ...); default: the dialect's (fakeprovider --dialect), ietf"},
    {"--seed", "provider.seed", "seed of the provider's injected errors and latency"},
    // LLM quotas
    {"--token-allowance", "provider.token_allowance",
     "per-tenant tokens per window, e.g. 80000/min; each request costs the tokens it declares, "
     "answered 429 token_rate_exceeded"},
    {"--spend-cap", "provider.spend_cap",
     "tokens per tenant for the whole run, never refilled (POST /admin/reset restores it); "
     "beyond it 429 spend_cap_exceeded with x-should-retry: false and no Retry-After"},
    {"--token-header", "provider.token_header",
     "request header declaring the request's tokens (default X-Tokens)"},
    {"--token-field", "provider.token_field",
     "top-level JSON body field declaring the tokens when the header is absent, e.g. "
     "max_tokens (default: none; the body is not read)"},
    {"--default-tokens", "provider.default_tokens",
     "tokens counted for a request that declares none (default 1)"},
    // occ mode
    {"--mode", "provider.mode",
     "plain, or occ: one versioned row, GET /row then PUT /row with If-Match, 412 on a conflict"},
}};

inline constexpr std::array<ScenarioFlag, 26> kFleetFlags{{
    {"--clients", "fleet.clients",
     "concurrent clients, each with its own stream and state (default 100); steady: the pool "
     "arrivals are taken from (k6's maxVUs)"},
    {"--workload", "fleet.workload",
     "storm (default: each client sends at t=0), steady (open model: items arrive at --rate or "
     "--stages whatever the clients' backoff, each taken by a free client or dropped) or queue "
     "(items drained by the clients)"},
    {"--items", "fleet.items",
     "items in all (default: one per client; steady: rate x duration, or the stages' area)"},
    {"--rate", "fleet.rate", "steady workload's arrival rate: N/s, N/min or N/h"},
    {"--duration", "fleet.duration", "steady workload's duration, e.g. 60s"},
    {"--stages", "fleet.stages",
     "ramping arrival rate, DURATION:RATE,... e.g. 30s:10/s,2m:100/s,30s:0/s: each stage ramps "
     "linearly from the previous target (the first from 0, or from a leading bare rate such as "
     "10/s) to its own; implies --workload steady, instead of --rate and --duration; at most 100 "
     "stages (default: none)"},
    {"--policy", "fleet.policy",
     "a client library's retry policy: aws-standard, aws-adaptive, grpc, grpc-go, polly, "
     "tenacity-exponential-jitter, resilience4j or sre (docs/POLICIES.md); the other policy "
     "flags override its fields"},
    {"--strategy", "fleet.strategy",
     "none, fixed, exponential, full-jitter, equal-jitter, decorrelated-jitter, "
     "proportional-jitter, grpc-go-jitter, additive-jitter or decorrelated-jitter-v2"},
    {"--base", "fleet.base", "base delay, e.g. 1s"},
    {"--cap", "fleet.cap", "delay cap, e.g. 60s"},
    {"--max-attempts", "fleet.max_attempts", "retries after the first send; 0 = unbounded"},
    {"--deadline", "fleet.deadline", "total time an item may take, from its first send"},
    {"--retry-after", "fleet.retry_after",
     "what to do with a Retry-After: ignore, exact or jittered (hint plus full jitter)"},
    {"--retry-budget", "fleet.retry_budget", "MAX_TOKENS,RATIO, gRPC-style retry throttling"},
    {"--breaker", "fleet.breaker", "FAILURES,COOLDOWN circuit breaker, e.g. 5,30s"},
    {"--multiplier", "fleet.multiplier",
     "the exponential strategies' growth per retry (default 2)"},
    {"--randomization", "fleet.randomization",
     "proportional jitter's factor r: the delay times uniform(1-r, 1+r)"},
    {"--jitter", "fleet.jitter", "additive jitter's bound: the delay plus uniform(0, JITTER)"},
    {"--retry-quota", "fleet.retry_quota",
     "CAPACITY,RETRY_COST,TIMEOUT_COST,REFUND, the AWS SDKs' retry quota, e.g. 500,5,10,1"},
    {"--adaptive-rate", "fleet.adaptive_rate",
     "on: the AWS SDKs' CUBIC client-side rate limiter (adaptive retry mode)"},
    {"--adaptive-throttle", "fleet.adaptive_throttle",
     "K,WINDOW, the SRE book's client-side adaptive throttling, e.g. 2,2m"},
    {"--retry-ratio", "fleet.retry_ratio",
     "RATIO,WINDOW, a per-client retry budget: retries at most RATIO of requests, e.g. 0.1,2m"},
    {"--timeout", "fleet.timeout", "per-request timeout, e.g. 10s"},
    {"--seed", "fleet.seed", "seed of the fleet's random streams"},
    {"--tokens", "fleet.tokens",
     "tokens every request declares, sent in the provider's token header (X-Tokens); the "
     "simulator charges them against the provider's token allowance and spend cap"},
    // occ mode
    {"--hop-delay", "fleet.hop_delay",
     "occ mode, simulate only: one network hop, MEAN,SD of a normal folded at zero (10ms,2ms)"},
}};

// Field name -> every value given on the command line for it, in order, as the binaries'
// parsers collect them.
using FlagValues = std::map<std::string, std::vector<std::string>>;

// The scenario file (or the defaults when path is empty) with the flags' values applied: the
// last value of a flag wins, a repeatable flag's values replace the file's list.
Parsed<Scenario> build_scenario_from_flags(const std::string& path, const FlagValues& values);

}  // namespace stampede
