// The data plane's request head reader (parse_request_head, the native server's) and the
// checks both servers share (check_method, is_request_target, is_field_value, the tenant
// header's count), on any bytes. The first byte picks the head limit; the rest is one
// connection's bytes, read head after head as the server reads them, each complete head's
// size taken off the front.
//
// Checks: a refusal is a 400, 405, 431 or 505 with a reason; a complete head lies within the
// bytes and the limit, and its parts pass the shared checks (a token method other than
// CONNECT, a target of visible ASCII, token names, values with no control byte); and the head
// written back from its parts, as proxy mode forwards one (a "name: value" line each), reads
// back to the same parts, so no reader finds another field or request in what is forwarded.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "http_token.hpp"
#include "request_head.hpp"

namespace {

using namespace stampede;
using State = HeadVerdict::State;

void require(bool holds) {
  if (!holds) std::abort();
}

std::string written_back(const RequestHead& head) {
  std::string out = std::string(head.method) + " " + std::string(head.target) +
                    (head.http_1_0 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
  for (const HeadField& f : head.fields) {
    out.append(f.name).append(": ").append(f.value).append("\r\n");
  }
  return out + "\r\n";
}

void check_complete(const RequestHead& head, std::size_t available, std::size_t max_size) {
  require(head.size <= available && head.size <= max_size);
  require(check_method(head.method).state == State::kComplete);
  require(is_request_target(head.target));
  for (const HeadField& f : head.fields) {
    require(is_http_token(f.name));
    require(is_field_value(f.value));
  }
  require(count_fields(head, "X-Api-Key") <= head.fields.size());
  const std::string again = written_back(head);
  RequestHead reread;
  const HeadVerdict v = parse_request_head(again, std::numeric_limits<std::size_t>::max(), reread);
  require(v.state == State::kComplete);
  require(reread.size == again.size());
  require(reread.method == head.method && reread.target == head.target);
  require(reread.http_1_0 == head.http_1_0);
  require(reread.fields.size() == head.fields.size());
  for (std::size_t i = 0; i < head.fields.size(); ++i) {
    require(reread.fields[i].name == head.fields[i].name);
    require(reread.fields[i].value == head.fields[i].value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_size = (static_cast<std::size_t>(data[0]) + 1) * 32;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  RequestHead head;
  while (true) {
    const HeadVerdict v = parse_request_head(bytes, max_size, head);
    if (v.state == State::kIncomplete) return 0;
    if (v.state == State::kBad) {
      require(v.status == 400 || v.status == 405 || v.status == 431 || v.status == 505);
      require(!v.reason.empty());
      return 0;
    }
    check_complete(head, bytes.size(), max_size);
    bytes.remove_prefix(head.size);
  }
}
