#include "model/llm_pacing.hpp"

#include <algorithm>

#include "rng.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

// Apart from the provider's other streams (its decisions, its hops): drawing a stream's length
// never moves them.
constexpr std::uint64_t kStreamPlanStreams = 0x5354'5245'414D'0000ULL;  // "STREAM"

}  // namespace

std::int64_t token_due_ns(const StreamConfig& config, std::int64_t k) {
  if (!config.token_rate || config.token_rate->count <= 0) return config.first_token_ns;
  // In 128 bits: k * window overflows 64 for a long answer at an hourly rate.
  const __int128 gap = static_cast<__int128>(std::max<std::int64_t>(k, 0)) *
                       config.token_rate->window_ns / config.token_rate->count;
  const __int128 due = config.first_token_ns + gap;
  return static_cast<std::int64_t>(std::min<__int128>(due, kMaxNs));
}

StreamPlan plan_stream(const StreamConfig& config, std::int64_t max_tokens, std::uint64_t seed,
                       std::uint64_t request_number) {
  Rng rng = make_stream(seed, kStreamPlanStreams + request_number);
  // Both draws are made every time, so one answer's settings never shift another's draws.
  const double length_draw = rng.unit();
  const double break_draw = rng.unit();
  const double where_draw = rng.unit();
  StreamPlan plan;
  std::int64_t drawn = max_tokens;
  if (config.output_tokens) {
    const TokenRange& r = *config.output_tokens;
    drawn = r.min + static_cast<std::int64_t>(length_draw * static_cast<double>(r.max - r.min + 1));
    drawn = std::min(drawn, r.max);
  }
  plan.output_tokens = std::min(drawn, max_tokens);
  plan.hit_max_tokens = max_tokens < drawn || !config.output_tokens;
  if (break_draw < config.errors) {
    plan.break_after =
        static_cast<std::int64_t>(where_draw * static_cast<double>(plan.output_tokens));
    plan.break_after =
        std::min(*plan.break_after, std::max<std::int64_t>(plan.output_tokens - 1, 0));
  }
  return plan;
}

}  // namespace stampede
