#include "log_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "json_int.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {
constexpr int kSubBits = 7;
constexpr std::int64_t kSub = 1 << kSubBits;
}  // namespace

std::size_t LogHistogram::bucket_of(std::int64_t value) {
  if (value < kSub) return static_cast<std::size_t>(std::max<std::int64_t>(0, value));
  const int exp =
      static_cast<int>(std::bit_width(static_cast<std::uint64_t>(value))) - 1;  // >= kSubBits
  const auto sub = (value >> (exp - kSubBits)) & (kSub - 1);
  return static_cast<std::size_t>(kSub + (exp - kSubBits) * kSub + sub);
}

std::int64_t LogHistogram::bucket_lower(std::size_t bucket) {
  if (bucket < static_cast<std::size_t>(kSub)) return static_cast<std::int64_t>(bucket);
  const auto rest = static_cast<std::int64_t>(bucket) - kSub;
  const auto exp = rest / kSub + kSubBits;
  const auto sub = rest % kSub;
  return (kSub + sub) << (exp - kSubBits);
}

void LogHistogram::record(std::int64_t value, std::int64_t n) {
  value = std::max<std::int64_t>(0, value);
  const auto b = bucket_of(value);
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  buckets_[b] += n;
  min_ = count_ ? std::min(min_, value) : value;
  max_ = count_ ? std::max(max_, value) : value;
  count_ += n;
  // A latency of centuries (a retry at the end of time) must not wrap the sum negative.
  sum_ = saturating_add(sum_, saturating_mul(value, n));
}

void LogHistogram::merge(const LogHistogram& other) {
  if (!other.count_) return;
  if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  // Another document's counts (loadgen merge): their sum must not wrap.
  for (std::size_t i = 0; i < other.buckets_.size(); ++i)
    buckets_[i] = saturating_add(buckets_[i], other.buckets_[i]);
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  max_ = count_ ? std::max(max_, other.max_) : other.max_;
  count_ = saturating_add(count_, other.count_);
  sum_ = saturating_add(sum_, other.sum_);
}

std::int64_t LogHistogram::quantile(double q) const {
  if (!count_) return 0;
  const auto rank =
      static_cast<std::int64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  std::int64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= std::max<std::int64_t>(1, rank)) {
      const auto lo = bucket_lower(b);
      const auto hi = bucket_lower(b + 1);
      return std::clamp(lo + (hi - lo) / 2, min_, max_);
    }
  }
  return max_;
}

nlohmann::json LogHistogram::to_json() const {
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    if (buckets_[b]) buckets.push_back({bucket_lower(b), buckets_[b]});
  }
  return {{"count", count_}, {"min", min()}, {"max", max()}, {"sum", sum_}, {"buckets", buckets}};
}

LogHistogram LogHistogram::from_json(const nlohmann::json& j) {
  LogHistogram h;
  for (const auto& pair : j.at("buckets")) {
    const auto lower = json_int64(pair.at(0));
    const auto n = json_int64(pair.at(1));
    if (lower < 0 || n < 0) throw std::invalid_argument("negative histogram bucket");
    const auto b = bucket_of(lower);
    if (b >= h.buckets_.size()) h.buckets_.resize(b + 1, 0);
    if (h.buckets_[b] > std::numeric_limits<std::int64_t>::max() - n)
      throw std::invalid_argument("histogram bucket count overflows");
    h.buckets_[b] += n;
  }
  h.count_ = json_int64(j.at("count"));
  h.min_ = json_int64(j.at("min"));
  h.max_ = json_int64(j.at("max"));
  h.sum_ = json_int64(j.at("sum"));
  return h;
}

}  // namespace stampede
