#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace stampede {

// Counts per time bin and label (an outcome, an attempt number). Grows with the run's
// duration, never with its traffic; two of the same shape merge by adding.
class BinnedCounts {
 public:
  BinnedCounts(std::int64_t bin_ns, std::size_t labels) : bin_ns_(bin_ns), labels_(labels) {}

  void add(std::int64_t t_ns, std::size_t label, std::int64_t n = 1) {
    // Most adds land in the bin of the add before: skip the division.
    if (t_ns >= last_start_ns_ && t_ns < last_end_ns_) {
      counts_[last_offset_ + label] += n;
    } else {
      add_to_new_bin(t_ns, label, n);
    }
  }
  void merge(const BinnedCounts& other);

  std::int64_t bin_ns() const { return bin_ns_; }
  std::size_t labels() const { return labels_; }
  std::size_t bins() const { return counts_.size() / labels_; }
  std::int64_t at(std::size_t bin, std::size_t label) const {
    return counts_[bin * labels_ + label];
  }
  std::int64_t bin_total(std::size_t bin) const;
  std::int64_t total() const;

  // {"bin_ms": 1000, "labels": [...], "counts": [[per label] per bin]}
  nlohmann::json to_json(const std::vector<std::string>& label_names) const;
  static BinnedCounts from_json(const nlohmann::json& j);

 private:
  void add_to_new_bin(std::int64_t t_ns, std::size_t label, std::int64_t n);

  std::int64_t bin_ns_;
  std::size_t labels_;
  std::vector<std::int64_t> counts_;
  // The bin of the last add: [start, end) and where its counts begin. Empty at first.
  std::int64_t last_start_ns_ = 0;
  std::int64_t last_end_ns_ = 0;
  std::size_t last_offset_ = 0;
};

}  // namespace stampede
