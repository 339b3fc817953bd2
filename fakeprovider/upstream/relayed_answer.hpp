#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "upstream/upstream_exchange.hpp"

namespace stampede {

// How a forwarded answer's body reaches the client: with the upstream's length, chunked (the
// upstream gave none), up to the connection's close (the same, to an HTTP/1.0 client), or not
// at all (a HEAD's answer, 1xx, 204 and 304).
enum class RelayFraming { kNone, kLength, kChunked, kClose };

// What the client is told of the upstream's answer before its body: the status line, the
// fields passed back (passes_back), then the framing fakeprovider writes itself: the
// upstream's length, or the whole body's when it is all in already. A 304's or a HEAD's
// Content-Length is the upstream's (RFC 9110 8.6: the length of what it stands for).
struct RelayedHead {
  std::string bytes;
  RelayFraming framing = RelayFraming::kNone;
};
// head_request: the client asked with HEAD. http_1_0: its request line's version, which
// cannot read chunked. keep_alive: the connection carries another request after this one.
RelayedHead relayed_head(const UpstreamExchange& x, bool head_request, bool http_1_0,
                         bool keep_alive);

// The upstream answer's fields the client is given, in their order: not the hop-by-hop ones,
// nor those its Connection field names, nor Content-Length (the server writes its own).
std::vector<std::pair<std::string, std::string>> relayed_fields(const UpstreamExchange& x);

// A piece of the body, framed: as it is, or as one chunk.
void append_relayed(std::string& out, std::string_view piece, RelayFraming framing);
// What ends the body: the last chunk when chunked, else nothing.
std::string_view relayed_end(RelayFraming framing);

// RFC 9110 15's reason phrase for a status, "Unknown" for one it does not name.
std::string_view reason_phrase(int status);

}  // namespace stampede
