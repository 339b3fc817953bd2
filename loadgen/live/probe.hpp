#pragma once

#include <cstdint>
#include <string>

#include "live/http/tls_settings.hpp"
#include "live/request.hpp"
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

// How long `run` and `exec` give the target to connect, before any load.
constexpr std::int64_t kProbeTimeoutMs = 5'000;

// Connects once (TCP, and for https the TLS handshake with the fleet's settings) without
// sending a request, so the provider records nothing. The error is one line saying why the
// target cannot be reached: "target unreachable: ..." for the connection, "TLS: HOST:PORT ..."
// with libcurl's reason for the handshake (an untrusted certificate, a CA file or client
// certificate it cannot use), or a server that asks for a client certificate when the fleet
// has none: every request would be refused (nginx answers 400, others end the connection).
Parsed<ProbedTarget> probe_target(const TargetUrl& url, const TlsSettings& tls,
                                  std::int64_t timeout_ms);

}  // namespace stampede
