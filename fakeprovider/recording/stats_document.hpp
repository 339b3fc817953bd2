#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory_resource>
#include <string>

#include <nlohmann/json.hpp>

#include "recording/arrival_stats.hpp"

namespace stampede {

// GET /admin/stats (and --stats-out) and GET /metrics as text, made a piece at a time: the
// stats' head (every field but "tenants", small) as a DOM, the tenants written one entry at a
// time from a copy of their counters. As one DOM the stats cost about 70 times their text (the
// metrics page, built whole, five), and glibc kept that much in the heap of the thread that
// answered; this costs about the text once, in a few large blocks of its own that go back to
// the system whole when the document is dropped.
class StatsDocument {
 public:
  enum class Format { kJson, kPrometheus };

  // tenants_hint: about how many tenants will be added (their memory is reserved up front).
  StatsDocument(std::int64_t bin_ns, std::size_t tenants_hint);
  StatsDocument(const StatsDocument&) = delete;
  StatsDocument& operator=(const StatsDocument&) = delete;
  ~StatsDocument();

  // Adds a recorder's counts and tenants (the caller holds the recorder's lock).
  void add(const ArrivalStats& stats);
  // Done adding: the clock now, and the head from the counts.
  void finish(std::int64_t clock_ns, double time_scale);
  // Every field of the stats but "tenants" (ArrivalStats::to_json without them); a field added
  // here is sent too.
  nlohmann::json head;
  std::size_t tenants() const { return tenants_.size(); }

  // The text's length in bytes (a dry run of the pieces, so that an answer can say it first).
  std::size_t size(Format format = Format::kJson) const;
  // Calls write with each piece of the text in turn, about piece_bytes each, until the text
  // is out or write returns false; false in that case.
  bool write(const std::function<bool(const std::string&)>& write, Format format = Format::kJson,
             std::size_t piece_bytes = 64 * 1024) const;
  // The whole text, for a file.
  std::string text(Format format = Format::kJson) const;

 private:
  using Write = std::function<bool(const std::string&)>;
  bool write_json(const Write& write, std::size_t piece_bytes) const;
  bool write_prometheus(const Write& write, std::size_t piece_bytes) const;

  ArrivalStats counts_;  // everything but the tenants
  std::int64_t clock_ns_ = 0;
  std::pmr::monotonic_buffer_resource memory_;  // blocks mapped from the system
  std::pmr::map<std::pmr::string, ArrivalStats::Totals, std::less<>> tenants_;
};

}  // namespace stampede
