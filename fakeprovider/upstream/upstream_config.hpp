#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "upstream_url.hpp"

namespace stampede {

// Proxy mode's settings (fakeprovider --upstream and the --upstream-* flags).
struct UpstreamConfig {
  UpstreamUrl url;
  std::string cacert;     // https: trust this CA bundle instead of the system's
  bool insecure = false;  // https: verify neither the certificate nor the host name
  // How long the upstream may stay silent, before its answer or within it: then 504 (or the
  // stream is cut). Whole seconds: for https, libcurl's low-speed limit enforces it (the http
  // pool's 100 ms sweep could do finer, but one rule for both).
  std::int64_t timeout_ns = 30'000'000'000;
  unsigned connections = 64;               // per data-plane thread, kept alive between requests
  std::vector<std::string> strip_headers;  // request header names not forwarded
  std::size_t max_body = 8u << 20;         // a longer request body is 413, never forwarded
};

}  // namespace stampede
