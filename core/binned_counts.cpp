#include "binned_counts.hpp"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "json_int.hpp"

namespace stampede {
namespace {

// Counts from a document or another process: their sum must not wrap either.
void add_into(std::int64_t* to, const std::int64_t* from, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = saturating_add(to[i], from[i]);
}

std::int64_t sum_of(const std::int64_t* counts, std::size_t n) {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum = saturating_add(sum, counts[i]);
  return sum;
}

}  // namespace

void BinnedCounts::add_to_new_bin(std::int64_t t_ns, std::size_t label, std::int64_t n) {
  const auto bin = static_cast<std::size_t>(std::max<std::int64_t>(0, t_ns) / bin_ns_);
  if (bin >= kMaxBins) {
    overflow_[label] += n;  // never cached: the next add in range checks again
    return;
  }
  if (bin >= bins()) counts_.resize((bin + 1) * labels_, 0);
  counts_[bin * labels_ + label] += n;
  // Times before zero count in bin 0 but are never cached: the range below starts at 0.
  last_start_ns_ = static_cast<std::int64_t>(bin) * bin_ns_;
  last_end_ns_ = saturating_add(last_start_ns_, bin_ns_);
  last_offset_ = bin * labels_;
}

void BinnedCounts::merge(const BinnedCounts& other) {
  if (other.bin_ns_ != bin_ns_ || other.labels_ != labels_) {
    throw std::invalid_argument("cannot merge histograms of different bins or labels");
  }
  // Both hold at most kMaxBins, so the sum does too.
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  add_into(counts_.data(), other.counts_.data(), other.counts_.size());
  add_into(overflow_.data(), other.overflow_.data(), labels_);
}

std::int64_t BinnedCounts::bin_total(std::size_t bin) const {
  return sum_of(counts_.data() + bin * labels_, labels_);
}

std::int64_t BinnedCounts::label_total(std::size_t label) const {
  std::int64_t sum = 0;
  for (std::size_t i = label; i < counts_.size(); i += labels_)
    sum = saturating_add(sum, counts_[i]);
  return sum;
}

std::int64_t BinnedCounts::total() const {
  return sum_of(counts_.data(), counts_.size());
}

std::int64_t BinnedCounts::overflow_total() const {
  return sum_of(overflow_.data(), labels_);
}

nlohmann::json BinnedCounts::to_json(const std::vector<std::string>& label_names) const {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t b = 0; b < bins(); ++b) {
    rows.push_back(std::vector<std::int64_t>(counts_.begin() + b * labels_,
                                             counts_.begin() + (b + 1) * labels_));
  }
  nlohmann::json j{{"bin_ms", bin_ns_ / kNsPerMs}, {"labels", label_names}, {"counts", rows}};
  // Only when used, so that an ordinary run's document is as it always was.
  if (std::any_of(overflow_.begin(), overflow_.end(), [](std::int64_t c) { return c != 0; }))
    j["overflow"] = overflow_;
  return j;
}

BinnedCounts BinnedCounts::from_json(const nlohmann::json& j) {
  const auto bin_ms = json_int64(j.at("bin_ms"));
  const auto labels = j.at("labels").size();
  if (bin_ms <= 0 || bin_ms > kMaxBinNs / kNsPerMs || labels == 0)
    throw std::invalid_argument("histogram needs bin_ms in 1.." +
                                std::to_string(kMaxBinNs / kNsPerMs) + " and labels");
  BinnedCounts counts(bin_ms * kNsPerMs, labels);
  const auto& rows = j.at("counts");
  counts.counts_.reserve(std::min(rows.size(), kMaxBins) * labels);
  std::vector<std::int64_t> row_counts(labels);
  for (const auto& row : rows) {
    if (row.size() != labels)
      throw std::invalid_argument("histogram row width differs from labels");
    for (std::size_t l = 0; l < labels; ++l) row_counts[l] = json_int64(row[l]);
    // Rows past the bound (a document from before it, or a made-up one) are past the last bin.
    if (counts.bins() < kMaxBins) {
      counts.counts_.insert(counts.counts_.end(), row_counts.begin(), row_counts.end());
    } else {
      add_into(counts.overflow_.data(), row_counts.data(), labels);
    }
  }
  if (j.contains("overflow")) {
    const auto& overflow = j.at("overflow");
    if (overflow.size() != labels)
      throw std::invalid_argument("histogram overflow width differs from labels");
    for (std::size_t l = 0; l < labels; ++l) row_counts[l] = json_int64(overflow[l]);
    add_into(counts.overflow_.data(), row_counts.data(), labels);
  }
  return counts;
}

BinnedCounts BinnedCounts::from_json(const nlohmann::json& j,
                                     const std::vector<std::string>& labels) {
  const BinnedCounts read = from_json(j);
  std::vector<std::size_t> column;
  for (const auto& name : j.at("labels")) {
    const auto text = name.get<std::string>();
    const auto at = std::find(labels.begin(), labels.end(), text);
    if (at == labels.end()) throw std::invalid_argument("histogram label '" + text + "' unknown");
    if (std::find(column.begin(), column.end(), at - labels.begin()) != column.end())
      throw std::invalid_argument("histogram label '" + text + "' twice");
    column.push_back(static_cast<std::size_t>(at - labels.begin()));
  }
  BinnedCounts out(read.bin_ns_, labels.size());
  out.counts_.assign(read.bins() * labels.size(), 0);
  for (std::size_t b = 0; b < read.bins(); ++b) {
    for (std::size_t l = 0; l < column.size(); ++l)
      out.counts_[b * labels.size() + column[l]] = read.at(b, l);
  }
  for (std::size_t l = 0; l < column.size(); ++l) out.overflow_[column[l]] = read.overflow_[l];
  return out;
}

std::vector<std::int64_t> running_levels(const BinnedCounts& h) {
  std::vector<std::int64_t> out(h.bins(), 0);
  std::int64_t level = 0;
  for (std::size_t b = 0; b < h.bins(); ++b) {
    level = saturating_add(level, h.at(b, 0) - (h.labels() > 1 ? h.at(b, 1) : 0));
    out[b] = level;
  }
  return out;
}

}  // namespace stampede
