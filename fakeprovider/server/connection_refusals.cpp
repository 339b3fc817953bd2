#include "server/connection_refusals.hpp"

#include <algorithm>
#include <iterator>

#include "enum_table.hpp"

namespace stampede {

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

void ConnectionRefusals::note(Kind kind, std::int64_t now_ns) {
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
  for (int k = 0; k < kKinds; ++k) {
    if (counts_[k] == 0) continue;
    line += sep + std::to_string(counts_[k]) + " ";
    line += describe(static_cast<Kind>(k));
    sep = ", ";
    counts_[k] = 0;
  }
  out_ << line << (last_print_ns_ < 0 ? "" : " (since the last such line)") << "\n" << std::flush;
  last_print_ns_ = now_ns;
}

}  // namespace stampede
