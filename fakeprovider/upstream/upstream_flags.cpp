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

// Where, and how TLS to it is checked.
void take_transport(const UpstreamFlags& flags, UpstreamConfig& config, Errors& errors) {
  if (const auto url = take("--upstream", parse_upstream_url(flags.url), errors)) {
    config.url = *url;
    if ((!flags.cacert.empty() || flags.insecure) && url->scheme != "https")
      errors.push_back("--upstream-cacert and --upstream-insecure are for an https upstream; '" +
                       flags.url + "' is http");
  }
  if (!flags.cacert.empty() && access(flags.cacert.c_str(), R_OK) != 0)
    errors.push_back("--upstream-cacert: cannot read '" + flags.cacert + "'");
  config.cacert = flags.cacert;
  config.insecure = flags.insecure;
}

// How long it may be silent, how many connections to it, the longest body sent it.
void take_bounds(const UpstreamFlags& flags, UpstreamConfig& config, Errors& errors) {
  if (const auto timeout = take("--upstream-timeout", parse_duration_ns(flags.timeout), errors)) {
    if (*timeout < kNsPerSec || *timeout % kNsPerSec != 0)
      errors.push_back("--upstream-timeout: '" + flags.timeout +
                       "' must be a whole number of seconds, at least 1s, e.g. 30s");
    config.timeout_ns = *timeout;
  }
  if (flags.connections < 1 || flags.connections > kMaxConnections)
    errors.push_back("--upstream-connections: " + std::to_string(flags.connections) + " is not 1-" +
                     std::to_string(kMaxConnections));
  config.connections = flags.connections;
  if (const auto max_body = take("--max-body", parse_byte_count(flags.max_body), errors))
    config.max_body = *max_body;
}

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

Checked<std::optional<UpstreamConfig>> upstream_config_from(
    const UpstreamFlags& flags, const std::vector<std::string>& stampede_headers) {
  Errors errors;
  if (flags.url.empty()) {
    if (!flags.cacert.empty() || flags.insecure || flags.strip_headers)
      errors.push_back(
          "--upstream-cacert, --upstream-insecure and --upstream-strip-headers "
          "are for proxy mode; give --upstream URL too");
    return checked(std::optional<UpstreamConfig>(), std::move(errors));
  }
  UpstreamConfig config;
  take_transport(flags, config, errors);
  take_bounds(flags, config, errors);
  if (flags.strip_headers) {
    for (const auto& name : stampede_headers) {
      if (!name.empty() && !ascii_iequals(name, "Authorization"))
        config.strip_headers.push_back(name);
    }
  }
  return checked(std::optional<UpstreamConfig>(std::move(config)), std::move(errors));
}

}  // namespace stampede
