#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory_resource>
#include <string>

#include <nlohmann/json.hpp>

#include "recording/arrival_stats.hpp"

namespace stampede {

// GET /admin/stats (and --stats-out) as text, made a piece at a time: the head (every field
// but "tenants", small) as a DOM, the tenants written one entry at a time from a copy of their
// counters. As one DOM the document cost about 70 times its text, and each server thread's
// heap kept that much after answering; this costs about its text once, in a few large blocks
// of its own that go back to the system whole when the document is dropped.
class StatsDocument {
 public:
  // tenants_hint: about how many tenants will be added (their memory is reserved up front).
  explicit StatsDocument(std::size_t tenants_hint);
  StatsDocument(const StatsDocument&) = delete;
  StatsDocument& operator=(const StatsDocument&) = delete;
  ~StatsDocument();

  // Every field but "tenants": ArrivalStats::to_json(..., false), plus whatever the caller adds.
  nlohmann::json head;
  // Adds a recorder's tenants to the copy (the caller holds the recorder's lock).
  void add_tenants(const ArrivalStats& stats);
  std::size_t tenants() const { return tenants_.size(); }

  // The text's length in bytes (a dry run of the pieces, so that an answer can say it first).
  std::size_t size() const;
  // Calls write with each piece of the text in turn, about piece_bytes each, until the text
  // is out or write returns false; false in that case.
  bool write(const std::function<bool(const std::string&)>& write,
             std::size_t piece_bytes = 64 * 1024) const;
  // The whole text, for a file.
  std::string text() const;

 private:
  std::pmr::memory_resource* blocks_;  // mapped from the system, unmapped with the document
  std::pmr::monotonic_buffer_resource memory_;
  std::pmr::map<std::pmr::string, ArrivalStats::Totals, std::less<>> tenants_;
};

}  // namespace stampede
