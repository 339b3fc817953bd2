#pragma once

#include <algorithm>
#include <string_view>

namespace stampede {

// An RFC 9110 token (tchar+): what a header name or a method may be spelled with.
inline bool is_http_token(std::string_view s) {
  constexpr std::string_view kPunctuation = "!#$%&'*+-.^_`|~";
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           kPunctuation.find(c) != std::string_view::npos;
  });
}

// Header names (and the few tokens in values that are case-insensitive) compare this way.
inline bool ascii_iequals(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

// A field value as RFC 9110 5.5 defines it: the spaces and tabs (OWS) around it are not part
// of it. libmicrohttpd 0.9.75 drops the leading ones and keeps the trailing ones, so every
// header value the provider reads goes through this: "k " and "k" name one tenant.
inline std::string_view trim_ows(std::string_view s) {
  const auto ows = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && ows(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace stampede
