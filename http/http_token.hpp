#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace stampede {

// RFC 9110 5.6.2's tchar, by byte: a table, since parsers test every byte of a name with it.
inline constexpr std::array<bool, 256> kHttpTchar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[static_cast<std::size_t>(c)] =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  }
  return t;
}();

inline bool is_tchar(char c) {
  return kHttpTchar[static_cast<unsigned char>(c)];
}

// What no line of a head or of chunked framing may hold (RFC 9110 5.5): control characters
// other than a tab.
inline bool is_ctl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}

// A hex digit's value, or -1 (chunk sizes).
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// An RFC 9110 token (tchar+): what a header name or a method may be spelled with.
inline bool is_http_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar);
}

// Header names (and the few tokens in values that are case-insensitive) compare this way.
inline bool ascii_iequals(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

// A field value as RFC 9110 5.5 defines it: the spaces and tabs (OWS) around it are not part
// of it. The request head reader drops the leading ones and keeps the trailing ones, so every
// header value the provider reads goes through this: "k " and "k" name one tenant.
inline std::string_view trim_ows(std::string_view s) {
  const auto ows = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && ows(s.back())) s.remove_suffix(1);
  return s;
}

// Whether a comma-separated field value (RFC 9110 5.6.1: Connection, Transfer-Encoding)
// names token, in any case.
inline bool has_list_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (ascii_iequals(trim_ows(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace stampede
