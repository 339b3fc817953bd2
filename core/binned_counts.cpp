#include "binned_counts.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "duration.hpp"

namespace stampede {

void BinnedCounts::add_to_new_bin(std::int64_t t_ns, std::size_t label, std::int64_t n) {
  const auto bin = static_cast<std::size_t>(std::max<std::int64_t>(0, t_ns) / bin_ns_);
  if (bin >= bins()) counts_.resize((bin + 1) * labels_, 0);
  counts_[bin * labels_ + label] += n;
  // Times before zero count in bin 0 but are never cached: the range below starts at 0.
  last_start_ns_ = static_cast<std::int64_t>(bin) * bin_ns_;
  last_end_ns_ = last_start_ns_ > std::numeric_limits<std::int64_t>::max() - bin_ns_
                     ? std::numeric_limits<std::int64_t>::max()
                     : last_start_ns_ + bin_ns_;
  last_offset_ = bin * labels_;
}

void BinnedCounts::merge(const BinnedCounts& other) {
  if (other.bin_ns_ != bin_ns_ || other.labels_ != labels_) {
    throw std::invalid_argument("cannot merge histograms of different bins or labels");
  }
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
}

std::int64_t BinnedCounts::bin_total(std::size_t bin) const {
  std::int64_t sum = 0;
  for (std::size_t l = 0; l < labels_; ++l) sum += at(bin, l);
  return sum;
}

std::int64_t BinnedCounts::total() const {
  std::int64_t sum = 0;
  for (auto c : counts_) sum += c;
  return sum;
}

nlohmann::json BinnedCounts::to_json(const std::vector<std::string>& label_names) const {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t b = 0; b < bins(); ++b) {
    rows.push_back(std::vector<std::int64_t>(counts_.begin() + b * labels_,
                                             counts_.begin() + (b + 1) * labels_));
  }
  return {{"bin_ms", bin_ns_ / kNsPerMs}, {"labels", label_names}, {"counts", rows}};
}

BinnedCounts BinnedCounts::from_json(const nlohmann::json& j) {
  const auto bin_ms = j.at("bin_ms").get<std::int64_t>();
  const auto labels = j.at("labels").size();
  if (bin_ms <= 0 || bin_ms > std::numeric_limits<std::int64_t>::max() / kNsPerMs || labels == 0)
    throw std::invalid_argument("histogram needs bin_ms > 0 (in nanoseconds an int64) and labels");
  BinnedCounts counts(bin_ms * kNsPerMs, labels);
  const auto& rows = j.at("counts");
  counts.counts_.reserve(rows.size() * labels);
  for (const auto& row : rows) {
    if (row.size() != labels)
      throw std::invalid_argument("histogram row width differs from labels");
    for (const auto& c : row) counts.counts_.push_back(c.get<std::int64_t>());
  }
  return counts;
}

}  // namespace stampede
