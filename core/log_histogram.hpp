#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace stampede {

// A distribution of non-negative values (latencies in ns, attempt counts) in log-linear
// buckets: exact below 128, within 1/128 relative above. Fixed size whatever the count, and
// mergeable, so the results document does not grow with the run.
class LogHistogram {
 public:
  void record(std::int64_t value, std::int64_t n = 1);
  void merge(const LogHistogram& other);

  std::int64_t count() const { return count_; }
  std::int64_t min() const { return count_ ? min_ : 0; }
  std::int64_t max() const { return count_ ? max_ : 0; }
  double mean() const {
    return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
  }
  // The value at quantile q in [0, 1]: a bucket's midpoint, clamped to the recorded range.
  std::int64_t quantile(double q) const;

  // Sparse: {"count", "min", "max", "sum", "buckets": [[lower_bound, count], ...]}
  nlohmann::json to_json() const;
  static LogHistogram from_json(const nlohmann::json& j);

  // The buckets as recorded, in value order: bucket b counts the values from
  // bucket_lower(b) up to bucket_lower(b + 1). Two histograms' bucket b cover the same values.
  std::size_t buckets() const { return buckets_.size(); }
  std::int64_t bucket_count(std::size_t b) const { return b < buckets_.size() ? buckets_[b] : 0; }

  static std::size_t bucket_of(std::int64_t value);
  static std::int64_t bucket_lower(std::size_t bucket);

 private:
  std::vector<std::int64_t> buckets_;
  std::int64_t count_ = 0;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
  std::int64_t sum_ = 0;
};

}  // namespace stampede
