#include "live/live_transport.hpp"

#include <curl/curl.h>

namespace stampede {

Outcome outcome_of(int transport_error, int status) {
  if (transport_error == CURLE_OK) return classify_status(status);
  if (transport_error == CURLE_OPERATION_TIMEDOUT) return Outcome::kTimeout;
  // Refused, reset, closed without an answer, TLS failures: no answer from the server.
  return Outcome::kConnectError;
}

}  // namespace stampede
