#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "saturating.hpp"

namespace stampede {

// Counts per time bin and label (an outcome, an attempt number). Grows with the run's
// duration, never with its traffic, and never past kMaxBins: a count at or after the end of
// the last bin goes to one overflow bin, so no time (a hostile Retry-After's, a document's)
// can size it. Two of the same shape merge by adding.
class BinnedCounts {
 public:
  // A day of one-second bins: every ordinary run fits, and a full histogram stays a few MB.
  static constexpr std::size_t kMaxBins = 86'400;
  // The widest bin a document may declare: kMaxBins of them stay far inside int64 ns.
  static constexpr std::int64_t kMaxBinNs = 3'600'000'000'000;

  BinnedCounts(std::int64_t bin_ns, std::size_t labels)
      : bin_ns_(bin_ns), labels_(labels), overflow_(labels, 0) {}

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
  // One label's counts over every bin (the overflow bin's apart: overflow()).
  std::int64_t label_total(std::size_t label) const;
  // Every count in a bin; the overflow bin's are apart, below, so a total above zero means
  // a bin to draw.
  std::int64_t total() const;
  // What was counted at or after overflow_start_ns(), past the last bin.
  std::int64_t overflow(std::size_t label) const { return overflow_[label]; }
  std::int64_t overflow_total() const;
  std::int64_t overflow_start_ns() const {
    return saturating_mul(static_cast<std::int64_t>(kMaxBins), bin_ns_);
  }

  // {"bin_ms": 1000, "labels": [...], "counts": [[per label] per bin]}, and
  // "overflow": [per label] only when something landed past the last bin.
  nlohmann::json to_json(const std::vector<std::string>& label_names) const;
  static BinnedCounts from_json(const nlohmann::json& j);
  // The same, its columns placed by label name into `labels` (a label the document lacks
  // counts zero: a document from before the label was added). A label not in `labels` throws.
  static BinnedCounts from_json(const nlohmann::json& j, const std::vector<std::string>& labels);

 private:
  void add_to_new_bin(std::int64_t t_ns, std::size_t label, std::int64_t n);

  std::int64_t bin_ns_;
  std::size_t labels_;
  std::vector<std::int64_t> counts_;
  std::vector<std::int64_t> overflow_;  // per label
  // The bin of the last add: [start, end) and where its counts begin. Empty at first.
  std::int64_t last_start_ns_ = 0;
  std::int64_t last_end_ns_ = 0;
  std::size_t last_offset_ = 0;
};

// A level that label 0 raises and label 1 lowers (streams opened and closed, items entering
// and leaving backoff), at the end of each bin.
std::vector<std::int64_t> running_levels(const BinnedCounts& transitions);

}  // namespace stampede
