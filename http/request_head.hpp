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
  int status = 0;           // kBad: 400, 405, 431 or 505
  std::string_view reason;  // kBad: one sentence for the error body
};

// Parses the head at the start of bytes, strictly: a request line of a method (check_method),
// one space, a target of visible characters, one space and HTTP/1.0 or HTTP/1.1 (another
// version is a 505), then fields of a token name, a colon and a value without control
// characters, each line ended by CR LF (a folded line, a bare CR or LF or a NUL is a 400),
// and a Host field in HTTP/1.1. Empty lines before the request line are skipped (RFC 9112 2.2) and
// counted in head.size. A head longer than max_size, complete or not, is a 431. head.fields keeps
// its capacity from one request to the next.
HeadVerdict parse_request_head(std::string_view bytes, std::size_t max_size, RequestHead& head);

// The parts of a head both servers check alike (RFC 9112 3 and 5, RFC 9110 5.5), so that what
// the provider decides on is what an upstream reads, however leniently it reads:
// - a method is a token (else 400) and not CONNECT (405: nothing is tunnelled, and forwarding
//   it as an origin-form request would ask the upstream something else);
HeadVerdict check_method(std::string_view method);
// - a target is visible ASCII, no control byte, space or obs-text;
bool is_request_target(std::string_view target);
// - a field value is visible characters, obs-text, spaces and tabs: no CR, LF, NUL or other
//   control byte, which a reader may take for a line's end;
bool is_field_value(std::string_view value);
// - the tenant header comes once: of two values, the provider and the upstream may each
//   count another. fields_named: how many fields of its name the head has.
HeadVerdict check_tenant_fields(std::size_t fields_named);

// How many fields of that name (any case) the head has.
std::size_t count_fields(const RequestHead& head, std::string_view name);

// Whether the connection stays open after this request's answer: HTTP/1.1 unless it asks
// for close, HTTP/1.0 only when it asks for keep-alive.
bool keeps_alive(const RequestHead& head);

// The target's path: up to its query, percent-escapes decoded into scratch when it has any.
std::string_view request_path(std::string_view target, std::string& scratch);

}  // namespace stampede
