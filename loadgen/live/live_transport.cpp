#include "live/live_transport.hpp"

#include <curl/curl.h>

namespace stampede {

Outcome outcome_of(const AttemptAnswer& a) {
  switch (a.transport_error) {
    case CURLE_OK:
      return classify_status(a.status);  // a status outside 200-599 is bad_response there
    case CURLE_OPERATION_TIMEDOUT:
      return Outcome::kTimeout;
    case CURLE_WEIRD_SERVER_REPLY:    // the native client: any malformed answer; libcurl: some
    case CURLE_UNSUPPORTED_PROTOCOL:  // libcurl: no status line (HTTP/0.9), a status not NNN
    case CURLE_PARTIAL_FILE:          // libcurl: closed inside a body of known length
    case CURLE_BAD_CONTENT_ENCODING:
      return Outcome::kBadResponse;
    default:
      // Refused, reset or closed with nothing back, TLS failures: no answer from the server.
      // The same after an answer began (libcurl: a bad chunk is a receive error) is a broken one.
      return a.answer_began ? Outcome::kBadResponse : Outcome::kConnectError;
  }
}

bool is_refusal(int transport_error) {
  return transport_error == CURLE_COULDNT_CONNECT || transport_error == CURLE_COULDNT_RESOLVE_HOST;
}

}  // namespace stampede
