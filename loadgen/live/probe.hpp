#pragma once

#include <cstdint>
#include <string>

#include "live/live_request.hpp"
#include "parsed.hpp"

namespace stampede {

// Where the target answered: the address every client then uses, so ten thousand clients
// do not resolve the name ten thousand times.
struct ProbedTarget {
  std::string address;  // numeric
  int port = 0;

  // The CURLOPT_RESOLVE entry that pins `url`'s host to this address.
  std::string resolve_entry(const TargetUrl& url) const;
};

// Connects once (TCP, and TLS for https) without sending a request, so the provider records
// nothing; the error says why the target cannot be reached.
Parsed<ProbedTarget> probe_target(const TargetUrl& url, std::int64_t timeout_ms);

}  // namespace stampede
