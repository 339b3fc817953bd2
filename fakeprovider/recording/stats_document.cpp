#include "recording/stats_document.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>
#include <string_view>
#include <tuple>
#include <utility>

#include "json_text.hpp"

namespace stampede {
namespace {

// Each block its own mapping: unmapped when the document goes, so no thread's heap keeps the
// copy after the answer (glibc keeps a heap per thread, and what one frees stays with it).
class MappedBlocks final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t /*alignment: a page is enough*/) override {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t) override { munmap(p, bytes); }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

std::pmr::memory_resource* mapped_blocks() {
  static MappedBlocks blocks;
  return &blocks;
}

// A map node with its key and counters, rounded up: what a tenant costs the copy.
constexpr std::size_t kBytesPerTenant = 256;
constexpr std::size_t kMinBlockBytes = 64 * 1024;

}  // namespace

StatsDocument::StatsDocument(std::int64_t bin_ns, std::size_t tenants_hint)
    : counts_(bin_ns),
      memory_(std::max(kMinBlockBytes, tenants_hint * kBytesPerTenant), mapped_blocks()),
      tenants_(&memory_) {}

StatsDocument::~StatsDocument() = default;

void StatsDocument::add(const ArrivalStats& stats) {
  counts_.merge_counts(stats);
  for (const auto& [key, t] : stats.tenants()) {
    auto it = tenants_.find(std::string_view(key));
    if (it == tenants_.end()) {
      it = tenants_
               .emplace(std::piecewise_construct, std::forward_as_tuple(key.data(), key.size()),
                        std::forward_as_tuple())
               .first;
    }
    it->second += t;
  }
}

void StatsDocument::finish(std::int64_t clock_ns, double time_scale) {
  clock_ns_ = clock_ns;
  head = counts_.to_json(clock_ns, time_scale, /*with_tenants=*/false);
}

bool StatsDocument::write(const Write& write, Format format, std::size_t piece_bytes) const {
  return format == Format::kJson ? write_json(write, piece_bytes)
                                 : write_prometheus(write, piece_bytes);
}

bool StatsDocument::write_json(const Write& write, std::size_t piece_bytes) const {
  // The head's text without its closing brace, then "tenants", an entry at a time.
  std::string piece = json_text(head);
  piece.pop_back();
  piece += piece.size() > 1 ? ",\"tenants\":{" : "\"tenants\":{";
  bool first = true;
  for (const auto& [key, t] : tenants_) {
    if (!first) piece += ',';
    first = false;
    piece += json_text(nlohmann::json(std::string_view(key)));
    piece += ':';
    piece += json_text(ArrivalStats::tenant_json(t));
    if (piece.size() >= piece_bytes) {
      if (!write(piece)) return false;
      piece.clear();
    }
  }
  piece += "}}\n";
  return write(piece);
}

bool StatsDocument::write_prometheus(const Write& write, std::size_t piece_bytes) const {
  std::string piece = ArrivalStats::prometheus_before_tenants(counts_);
  for (const auto& [key, t] : tenants_) {
    piece += ArrivalStats::prometheus_tenant(key, t);
    if (piece.size() >= piece_bytes) {
      if (!write(piece)) return false;
      piece.clear();
    }
  }
  piece += ArrivalStats::prometheus_after_tenants(clock_ns_);
  return write(piece);
}

std::size_t StatsDocument::size(Format format) const {
  std::size_t bytes = 0;
  write(
      [&](const std::string& piece) {
        bytes += piece.size();
        return true;
      },
      format);
  return bytes;
}

std::string StatsDocument::text(Format format) const {
  std::string out;
  write(
      [&](const std::string& piece) {
        out += piece;
        return true;
      },
      format);
  return out;
}

}  // namespace stampede
