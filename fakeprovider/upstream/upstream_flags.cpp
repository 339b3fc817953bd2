#include "upstream/upstream_flags.hpp"

#include <unistd.h>

#include <array>
#include <charconv>
#include <utility>

#include "duration.hpp"
#include "http_token.hpp"

namespace stampede {
namespace {

constexpr unsigned kMaxConnections = 10'000;
constexpr std::size_t kMaxBodyLimit = std::size_t{1} << 32;  // 4 GiB

}  // namespace

Parsed<std::size_t> parse_byte_count(const std::string& text) {
  using Result = Parsed<std::size_t>;
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string_view unit(end, text.data() + text.size() - end);
  constexpr std::array<std::pair<std::string_view, int>, 4> kUnits = {
      {{"", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}}};
  for (const auto& [name, shift] : kUnits) {
    if (ec != std::errc() || end == text.data() || unit != name) continue;
    if (n > (kMaxBodyLimit >> shift)) break;
    return Result::ok(n << shift);
  }
  return Result::fail("'" + text +
                      "' is not a byte count up to 4GiB; expected e.g. 8MiB, 512KiB or 1048576");
}

Parsed<std::optional<UpstreamConfig>> upstream_config_from(
    const UpstreamFlags& flags, const std::vector<std::string>& stampede_headers) {
  using Result = Parsed<std::optional<UpstreamConfig>>;
  if (flags.url.empty()) {
    if (!flags.cacert.empty() || flags.insecure || flags.strip_headers)
      return Result::fail(
          "--upstream-cacert, --upstream-insecure and --upstream-strip-headers "
          "are for proxy mode; give --upstream URL too");
    return Result::ok(std::nullopt);
  }
  UpstreamConfig config;
  const auto url = parse_upstream_url(flags.url);
  if (!url) return Result::fail("--upstream: " + url.error());
  config.url = *url;
  if ((!flags.cacert.empty() || flags.insecure) && config.url.scheme != "https")
    return Result::fail("--upstream-cacert and --upstream-insecure are for an https upstream; '" +
                        flags.url + "' is http");
  if (!flags.cacert.empty() && access(flags.cacert.c_str(), R_OK) != 0)
    return Result::fail("--upstream-cacert: cannot read '" + flags.cacert + "'");
  config.cacert = flags.cacert;
  config.insecure = flags.insecure;
  const auto timeout = parse_duration_ns(flags.timeout);
  if (!timeout) return Result::fail("--upstream-timeout: " + timeout.error());
  if (*timeout < kNsPerSec || *timeout % kNsPerSec != 0)
    return Result::fail("--upstream-timeout: '" + flags.timeout +
                        "' must be a whole number of seconds, at least 1s, e.g. 30s");
  config.timeout_ns = *timeout;
  if (flags.connections < 1 || flags.connections > kMaxConnections)
    return Result::fail("--upstream-connections: " + std::to_string(flags.connections) +
                        " is not 1-" + std::to_string(kMaxConnections));
  config.connections = flags.connections;
  const auto max_body = parse_byte_count(flags.max_body);
  if (!max_body) return Result::fail("--max-body: " + max_body.error());
  config.max_body = *max_body;
  if (flags.strip_headers) {
    for (const auto& name : stampede_headers) {
      if (!name.empty() && !ascii_iequals(name, "Authorization"))
        config.strip_headers.push_back(name);
    }
  }
  return Result::ok(std::move(config));
}

}  // namespace stampede
