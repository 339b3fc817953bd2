#include "trace_fidelity.hpp"

#include <algorithm>
#include <cmath>

namespace stampede {

BinDifference largest_bin_difference(const BinnedCounts& a, std::size_t a_label,
                                     const BinnedCounts& b, std::size_t b_label) {
  BinDifference most;
  const auto consider = [&](std::int64_t diff, std::int64_t start_ns) {
    if (diff > most.count) most = {diff, ns_to_s(start_ns)};
  };
  const auto count = [](const BinnedCounts& h, std::size_t bin, std::size_t label) {
    return bin < h.bins() ? h.at(bin, label) : 0;
  };
  for (std::size_t bin = 0; bin < std::max(a.bins(), b.bins()); ++bin) {
    consider(std::abs(count(a, bin, a_label) - count(b, bin, b_label)),
             static_cast<std::int64_t>(bin) * a.bin_ns());
  }
  consider(std::abs(a.overflow(a_label) - b.overflow(b_label)), a.overflow_start_ns());
  return most;
}

double ks_distance(const LogHistogram& a, const LogHistogram& b) {
  if (a.count() == 0 || b.count() == 0) return a.count() == b.count() ? 0.0 : 1.0;
  const auto a_n = static_cast<double>(a.count());
  const auto b_n = static_cast<double>(b.count());
  std::int64_t a_seen = 0;
  std::int64_t b_seen = 0;
  double most = 0;
  for (std::size_t bucket = 0; bucket < std::max(a.buckets(), b.buckets()); ++bucket) {
    a_seen += a.bucket_count(bucket);
    b_seen += b.bucket_count(bucket);
    most = std::max(
        most, std::abs(static_cast<double>(a_seen) / a_n - static_cast<double>(b_seen) / b_n));
  }
  return most;
}

}  // namespace stampede
