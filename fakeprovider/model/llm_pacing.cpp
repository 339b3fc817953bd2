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

namespace {

// The tokens the answer sends before it ends or breaks.
std::int64_t tokens_sent(const StreamPlan& plan) {
  return plan.break_after.value_or(plan.output_tokens);
}

}  // namespace

StreamTimes stream_times(const StreamConfig& config, const StreamPlan& plan) {
  const std::int64_t sent = tokens_sent(plan);
  StreamTimes times;
  times.tokens = sent;
  if (sent == 0) return times;  // the tail (or the break) goes with the head
  times.first_token_ns = token_due_ns(config, 0);
  times.end_ns = token_due_ns(config, sent - 1);
  return times;
}

std::int64_t tokens_sent_by(const StreamConfig& config, const StreamPlan& plan,
                            std::int64_t elapsed_ns) {
  // Token k is due no earlier than token k - 1: the first not yet due, by bisection.
  std::int64_t low = 0;
  std::int64_t high = tokens_sent(plan);
  while (low < high) {
    const std::int64_t mid = low + (high - low) / 2;
    if (token_due_ns(config, mid) <= elapsed_ns) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

Outcome broken_stream_outcome(Dialect dialect) {
  return dialect == Dialect::kAnthropic ? Outcome::kOverloaded : Outcome::kBadResponse;
}

}  // namespace stampede
