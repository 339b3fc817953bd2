#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace stampede {

// A request's head (RFC 9112 sections 2-5): its request line and header fields, as views into
// the bytes it was parsed from.
struct HeadField {
  std::string_view name;
  std::string_view value;  // without the spaces and tabs before it (trim_ows drops the rest)
};

struct RequestHead {
  std::string_view method;
  std::string_view target;  // as it came: path and query, still escaped
  bool http_1_0 = false;    // else HTTP/1.1
  std::vector<HeadField> fields;
  std::size_t size = 0;  // its bytes, the blank line that ends it included

  // The first field of that name (any case), or null.
  const std::string_view* find(std::string_view name) const;
};

struct HeadVerdict {
  enum class State { kIncomplete, kComplete, kBad } state = State::kIncomplete;
  int status = 0;           // kBad: 400, 431 or 505
  std::string_view reason;  // kBad: one sentence for the error body
};

// Parses the head at the start of bytes, strictly: a request line of a token, one space, a
// target of visible characters, one space and HTTP/1.0 or HTTP/1.1 (another version is a
// 505), then fields of a token name, a colon and a value without control characters, each
// line ended by CR LF (a folded line, a bare LF or a NUL is a 400), and a Host field in
// HTTP/1.1. Empty lines before the request line are skipped (RFC 9112 2.2) and counted in
// head.size. A head longer than max_size, complete or not, is a 431. head.fields keeps its
// capacity from one request to the next.
HeadVerdict parse_request_head(std::string_view bytes, std::size_t max_size, RequestHead& head);

// Whether the connection stays open after this request's answer: HTTP/1.1 unless it asks
// for close, HTTP/1.0 only when it asks for keep-alive.
bool keeps_alive(const RequestHead& head);

// The target's path: up to its query, percent-escapes decoded into scratch when it has any.
std::string_view request_path(std::string_view target, std::string& scratch);

}  // namespace stampede
