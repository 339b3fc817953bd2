#pragma once

#include <string_view>

namespace stampede {

// Why an attempt got no HTTP answer, in the words both transports share: the native client
// reports these directly, libcurl's codes are mapped to them in one place (curl_transport.cpp).
// The attempt log writes the names (transport_error_name).
enum class TransportError {
  kNone,         // an HTTP answer came
  kRefused,      // the connection could not be made (refused, no route)
  kResolve,      // the host's name did not resolve
  kSendFailed,   // the request could not be written
  kReset,        // reset or closed while receiving (an answer may have begun)
  kNoAnswer,     // closed with nothing back: no status line, no byte
  kBadResponse,  // an answer that is not HTTP/1.x, or past the bounds both clients keep
  kTimeout,      // no whole answer within the fleet's timeout
  kTls,          // the TLS handshake or the peer's certificate failed
  kAborted,      // the run stopped with the attempt in flight
  kOther,        // anything else libcurl reports
};

// "refused", "timeout", ...; "" for kNone.
std::string_view transport_error_name(TransportError e);

// The connection could not be made at all (refused, no route, no such host): what makes a
// target unreachable, where a reset or a garbled answer came from a target that is there.
bool is_refusal(TransportError e);

}  // namespace stampede
