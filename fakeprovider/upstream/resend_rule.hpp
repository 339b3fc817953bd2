#pragma once

#include <cstddef>
#include <string_view>

namespace stampede {

// RFC 9110 9.2.2: a method whose request, sent twice, has the effect of sending it once (GET,
// HEAD, OPTIONS, TRACE, PUT, DELETE). Methods are case-sensitive: "get" is not GET.
bool idempotent_method(std::string_view method);

// Whether a request whose exchange failed before any byte of its answer came goes to the
// upstream again on another connection. A proxy must not resend a non-idempotent request on its
// own (RFC 9112 9.3.1): the upstream may have acted on it. An idempotent one goes again once,
// and only when none of its bytes were written to the upstream: a kept-alive connection found
// closed, a write refused outright. bytes_sent: what the failed attempt wrote of the request;
// attempt: which send failed, 1 for the first.
bool may_resend(std::string_view method, std::size_t bytes_sent, int attempt);

}  // namespace stampede
