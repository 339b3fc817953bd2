#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checked.hpp"
#include "parsed.hpp"
#include "upstream/upstream_config.hpp"

namespace stampede {

// fakeprovider's proxy flags as given, before they are checked.
struct UpstreamFlags {
  std::string url;  // provider.upstream (--upstream); empty: no proxy
  std::string cacert;
  bool insecure = false;
  std::string timeout = "30s";
  unsigned connections = 64;
  bool strip_headers = false;
  std::string max_body = "8MiB";
};

// The proxy's settings, or none without an upstream; else every mistake, each an error that
// names its flag. stampede_headers: the request headers the provider reads (tenant, attempt,
// client), which --upstream-strip-headers keeps from the upstream; Authorization is never among
// those stripped, being the upstream's credential.
Checked<std::optional<UpstreamConfig>> upstream_config_from(
    const UpstreamFlags& flags, const std::vector<std::string>& stampede_headers);

// "8MiB", "512KiB", "1048576": a byte count, with a binary unit (KiB, MiB, GiB) or none.
Parsed<std::size_t> parse_byte_count(const std::string& text);

}  // namespace stampede
