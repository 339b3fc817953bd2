#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "binned_counts.hpp"
#include "duration.hpp"

namespace stampede {

struct Scenario;

// Which of a provider's limits refused a request (docs/LLM.md): the request rate, the
// combined token allowance, the input and output token allowances, the answers open at once,
// the spend cap, or one the answer does not name.
enum class TokenLimit : std::uint8_t {
  kRequests,
  kTokens,
  kInputTokens,
  kOutputTokens,
  kConcurrency,
  kSpendCap,
  kOther,
};
inline constexpr std::size_t kTokenLimitCount = 7;
// requests, tokens, input_tokens, output_tokens, concurrency, spend_cap, other: the results'
// names.
std::string_view to_string(TokenLimit limit);
// The same for a reader: "output tokens", "spend cap".
std::string_view limit_words(TokenLimit limit);

// The limit a refusal's reason names, as fakeprovider's stats and 429 bodies name them
// (request_rate_exceeded, output_token_rate_exceeded, ...); none for any other.
std::optional<TokenLimit> limit_of_reason(std::string_view reason);
// A set of TokenLimit bits: the limits an answer's rate-limit headers say are used up.
using ExhaustedLimits = std::uint8_t;
inline ExhaustedLimits with_limit(ExhaustedLimits set, TokenLimit limit) {
  return static_cast<ExhaustedLimits>(set | (1u << static_cast<unsigned>(limit)));
}
// Which limit refused a 429, from what its client read: the reason its body names (error.reason,
// fakeprovider's), else the most specific limit its headers say is used up (output tokens,
// input tokens, tokens, requests: a request refused by a token limit may have used the last of
// its request allowance), else kOther.
TokenLimit classify_refusal(std::string_view body_reason, ExhaustedLimits exhausted);
// A JSON error body's error.reason (fakeprovider's 429s); "" when it has none or is no JSON.
std::string error_reason_in_body(std::string_view body);
// An LLM answer in one body: the output tokens its usage reports (anthropic output_tokens,
// openai completion_tokens); none when it reports none.
std::optional<std::int64_t> usage_output_tokens(std::string_view body);

// What every request of an LLM fleet asks of the provider's token limits, as the provider reads
// its body: the input tokens charged at admission, the max_tokens reserved.
struct TokenAsk {
  std::int64_t input_tokens = 0;
  std::int64_t max_tokens = 0;
};

// A run's LLM requests against the provider's token limits, per second of scenario time: the
// results' `token_limits` section (docs/RESULTS.md). Recorded the same way by the simulator
// (from the simulated provider's decisions) and a live run (from what its clients read), so
// the two compare. Merged by adding, so the shards of a run add up.
struct TokenRecording {
  // Labels of flows: at admission, the requests and their input tokens admitted and their
  // output tokens reserved (max_tokens); at the answer's end the output tokens settled (those
  // written: the reservation less its refund), and the answers so settled: a live answer whose
  // output was not read (its usage past the body kept) is admitted and never settled.
  static constexpr std::size_t kAdmitted = 0;
  static constexpr std::size_t kInput = 1;
  static constexpr std::size_t kReserved = 2;
  static constexpr std::size_t kSettled = 3;
  static constexpr std::size_t kSettledAnswers = 4;
  BinnedCounts flows{kNsPerSec, 5};
  BinnedCounts refusals{kNsPerSec, kTokenLimitCount};  // by TokenLimit

  // Whether anything was recorded: a run with none has no section.
  bool any() const;
  void record_admitted(std::int64_t t_ns, std::int64_t input_tokens, std::int64_t max_tokens);
  // At the answer's end: written tokens, never more than were reserved.
  void record_settled(std::int64_t t_ns, std::int64_t written, std::int64_t max_tokens);
  void record_refusal(std::int64_t t_ns, TokenLimit limit) {
    refusals.add(t_ns, static_cast<std::size_t>(limit));
  }
  // A flow's or a limit's total over the run, overflow included.
  std::int64_t flow_total(std::size_t label) const;
  std::int64_t refused_by(TokenLimit limit) const;
  void merge(const TokenRecording& other);
};

// Whether a run records the section: it sends LLM requests, or its provider has a token limit
// or max_concurrent.
bool records_token_limits(const Scenario& s, bool sends_llm);

// "output tokens 312, requests 4": the limits that refused, most first; "" when none did.
std::string refused_by_line(const TokenRecording& t);

nlohmann::json to_json(const TokenRecording& t);
// The section as to_json writes it; throws on a malformed one (results_from_json says so).
TokenRecording token_recording_from_json(const nlohmann::json& j);

}  // namespace stampede
