#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace stampede {

// How a request says where its body ends (RFC 9112 section 6): its Transfer-Encoding and
// Content-Length fields as they came, before any body is read. Views into the request.
struct RequestFraming {
  bool http_1_0 = false;
  std::vector<std::string_view> transfer_encoding;  // every field's value, in order
  // A repeated Content-Length is refused whatever its values, so only the first is kept.
  std::string_view content_length;
  std::size_t content_length_fields = 0;
};

// Whether the body can be read, or the request must be answered `status` and the connection
// closed: past a body whose end is not known, the next request cannot be found either.
struct FramingVerdict {
  int status = 0;           // 0: read the body; else 400 or 501
  std::string_view reason;  // one sentence for the error body; empty when readable
};

// RFC 9112 6.1 and 6.3, as strict as the body reader (body_framing) needs:
// - Transfer-Encoding: the codings of every field, in order, must end in chunked (else 400)
//   and name it once (else 400); another coding before it is one this server does not
//   implement (501). The reader frames a chunked body only from one field spelled exactly
//   "chunked" (leading OWS aside), so any other spelling of that one coding is a 400 too, not
//   a body read without end. With Content-Length beside it (a smuggling shape), or in an
//   HTTP/1.0 request, it is a 400.
// - Content-Length: one field, decimal digits. A repeat is a 400 even when the values agree
//   (as nginx does; RFC 9110 8.6 allows either): one rule, whatever the values, and no
//   request read with a length that a proxy in front may have read otherwise.
FramingVerdict check_framing(const RequestFraming& framing);

// The body's length as its Content-Length says, once check_framing has let the request be
// read (OWS around the digits, as that check takes them); nullopt without one. More digits
// than 64 bits hold read as the largest length there is: longer than any limit.
std::optional<std::uint64_t> declared_length(const RequestFraming& framing);

}  // namespace stampede
