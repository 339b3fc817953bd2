#include "url_redaction.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace stampede {
namespace {

constexpr std::string_view kRedacted = "REDACTED";

bool looks_like_credential(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  constexpr std::array<std::string_view, 9> kHints{"key",  "token", "secret",     "passw",  "pwd",
                                                   "auth", "sig",   "credential", "session"};
  return std::any_of(kHints.begin(), kHints.end(),
                     [&](std::string_view hint) { return lower.find(hint) != std::string::npos; });
}

// "a=1&api_key=x" -> "a=1&api_key=REDACTED"
std::string redact_query(std::string_view query) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const auto end = std::min(query.find('&', start), query.size());
    const auto pair = query.substr(start, end - start);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && looks_like_credential(pair.substr(0, eq))) {
      out += std::string(pair.substr(0, eq + 1)) + std::string(kRedacted);
    } else {
      out += pair;
    }
    if (end == query.size()) return out;
    out += '&';
    start = end + 1;
  }
}

}  // namespace

std::string redact_url(std::string_view url) {
  const auto scheme_end = url.find("://");
  const auto authority = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  const auto authority_end = std::min(url.find_first_of("/?#", authority), url.size());
  // The last '@' of the authority ends the userinfo: a password may hold an '@' of its own.
  const auto at = url.substr(authority, authority_end - authority).rfind('@');
  std::string out(url.substr(0, authority));
  out += url.substr(at == std::string_view::npos ? authority : authority + at + 1);
  const auto query = out.find('?');
  if (query == std::string::npos) return out;
  const auto fragment = std::min(out.find('#', query), out.size());
  return out.substr(0, query + 1) +
         redact_query(std::string_view(out).substr(query + 1, fragment - query - 1)) +
         out.substr(fragment);
}

}  // namespace stampede
