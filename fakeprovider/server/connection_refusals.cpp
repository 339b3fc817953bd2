#include "server/connection_refusals.hpp"

#include <algorithm>
#include <iterator>

namespace stampede {

const char* ConnectionRefusals::describe(Kind kind) {
  switch (kind) {
    case Kind::kAtLimit:
      return "refused at --max-connections";
    case Kind::kNoDescriptors:
      return "refused for want of file descriptors (RLIMIT_NOFILE)";
    case Kind::kSlowHeaders:
      return "closed for request headers slower than --header-timeout";
    case Kind::kSlowBody:
      return "closed for a request body not complete --header-timeout after its first byte";
    case Kind::kBadFraming:
      return "answered 400/501 and closed for a Transfer-Encoding or Content-Length whose body "
             "end cannot be found";
  }
  return "";
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
    line += sep + std::to_string(counts_[k]) + " " + describe(static_cast<Kind>(k));
    sep = ", ";
    counts_[k] = 0;
  }
  out_ << line << (last_print_ns_ < 0 ? "" : " (since the last such line)") << "\n" << std::flush;
  last_print_ns_ = now_ns;
}

}  // namespace stampede
