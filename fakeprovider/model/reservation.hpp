#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace stampede {

// What an LLM request asks of the token limits (docs/LLM.md), read from its body before it is
// admitted.
struct LlmCharge {
  std::int64_t input_tokens = 0;  // declared (provider.token_header), else estimated from the body
  std::int64_t max_tokens = 0;    // reserved against the output-token allowance
  bool stream = false;            // for when its answer is expected to end
  std::string model{};            // the body's, for provider.models; empty when absent
  bool operator==(const LlmCharge&) const = default;
};

// What an admitted LLM request holds until its answer ends, when the unused part goes back.
struct Reservation {
  std::int64_t t_ns = 0;      // when it was admitted: a fixed window's refund is for that window
  std::int64_t output = 0;    // output tokens reserved, at max_tokens
  std::int64_t combined = 0;  // openai: the token allowance's charge for the output
  bool counted = false;       // open against max_concurrent until it ends
  std::int64_t expected_end_ns = 0;  // when counted: the end its retry hints are from
  std::size_t model_row = 0;         // provider.models: the (tenant, model) quota it is held in
  bool held() const { return output > 0 || combined > 0 || counted; }
  bool operator==(const Reservation&) const = default;
};

// OpenAI counts a request against its tokens-per-minute limit at admission as its prompt plus
// the larger of max_tokens and the estimated output, and settles to what was written.
inline std::int64_t openai_admission_tokens(std::int64_t input_tokens, std::int64_t max_tokens,
                                            std::int64_t output_estimate) {
  const std::int64_t output = std::max(max_tokens, output_estimate);
  return input_tokens > INT64_MAX - output ? INT64_MAX : input_tokens + output;
}

// What a settle gives back of a reservation: the unused part, never less than nothing (an
// answer cannot write more than it reserved, but a count from outside is not trusted).
inline std::int64_t unused_tokens(std::int64_t reserved, std::int64_t written) {
  return std::max<std::int64_t>(0, reserved - std::max<std::int64_t>(0, written));
}

}  // namespace stampede
