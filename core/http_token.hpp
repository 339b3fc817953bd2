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

}  // namespace stampede
