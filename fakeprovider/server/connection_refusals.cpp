#include "server/connection_refusals.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <iterator>
#include <new>
#include <stdexcept>

#include "enum_table.hpp"

namespace stampede {
namespace {

// Turned away before a request: not a cut of one that came.
bool turns_away(ConnectionRefusals::Kind kind) {
  return kind == ConnectionRefusals::Kind::kAtLimit ||
         kind == ConnectionRefusals::Kind::kNoDescriptors;
}

}  // namespace

// Across processes an atomic must not hide a lock in the process that took it.
static_assert(std::atomic<std::int64_t>::is_always_lock_free);

RefusalTally::RefusalTally() {
  void* shared = mmap(nullptr, sizeof(std::atomic<std::int64_t>), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw std::runtime_error("mmap of the refusal tally failed");
  count_ = new (shared) std::atomic<std::int64_t>(0);
}

RefusalTally::~RefusalTally() {
  munmap(count_, sizeof(std::atomic<std::int64_t>));
}

std::string_view ConnectionRefusals::describe(Kind kind) {
  constexpr EnumTable<Kind, kKinds> kDescriptions{
      {{Kind::kAtLimit, "refused at --max-connections"},
       {Kind::kNoDescriptors, "refused for want of file descriptors (RLIMIT_NOFILE)"},
       {Kind::kSlowHeaders, "closed for request headers slower than --header-timeout"},
       {Kind::kSlowBody,
        "closed for a request body not complete --header-timeout after its first byte"},
       {Kind::kBadFraming,
        "answered 400/501 and closed for a Transfer-Encoding or Content-Length whose body end "
        "cannot be found"},
       {Kind::kBodyTooLong, "answered 413 and closed for a body longer than --max-body"}}};
  static_assert(is_dense(kDescriptions));
  return kDescriptions[static_cast<std::size_t>(kind)].second;
}

std::string_view ConnectionRefusals::remedy(Kind kind) {
  // A fleet larger than one process holds measures the harness, not the fleet: the line says
  // how to make room, so the refusals are not mistaken for the provider's answers.
  if (!turns_away(kind)) return "";
  return "; for more connections at once, serve the data plane from more processes "
         "(fakeprovider --processes N, each holding --max-connections), raise "
         "--max-connections, and ulimit -n for its descriptors";
}

void ConnectionRefusals::note(Kind kind, std::int64_t now_ns) {
  if (turned_away_ && turns_away(kind)) turned_away_->fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(mu_);
  ++counts_[static_cast<int>(kind)];
  if (last_print_ns_ < 0 || now_ns - last_print_ns_ >= period_ns_) print_locked(now_ns);
}

void ConnectionRefusals::flush(std::int64_t now_ns, bool at_end) {
  std::lock_guard lock(mu_);
  if (std::all_of(std::begin(counts_), std::end(counts_), [](std::int64_t n) { return n == 0; }))
    return;
  if (at_end || now_ns - last_print_ns_ >= period_ns_) print_locked(now_ns);
}

void ConnectionRefusals::print_locked(std::int64_t now_ns) {
  std::string line = "fakeprovider: connections";
  const char* sep = " ";
  std::string_view remedy_text;
  for (int k = 0; k < kKinds; ++k) {
    if (counts_[k] == 0) continue;
    line += sep + std::to_string(counts_[k]) + " ";
    line += describe(static_cast<Kind>(k));
    if (remedy_text.empty()) remedy_text = remedy(static_cast<Kind>(k));
    sep = ", ";
    counts_[k] = 0;
  }
  out_ << line << (last_print_ns_ < 0 ? "" : " (since the last such line)") << remedy_text << "\n"
       << std::flush;
  last_print_ns_ = now_ns;
}

}  // namespace stampede
