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

}  // namespace stampede
