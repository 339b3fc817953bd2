#include "live/http/answer_headers.hpp"

#include "answer_parser.hpp"

namespace stampede {

void clear_answer_headers(LiveClient& c) {
  c.retry_after.clear();
  c.should_retry.reset();
  c.exhausted = 0;
  if (c.occ) c.occ->etag.clear();
}

void read_answer_header(LiveClient& c, std::string_view name, std::string_view value) {
  if (header_name_is(name, "retry-after")) {
    c.retry_after.assign(value);
  } else if (header_name_is(name, "x-should-retry")) {
    c.should_retry = parse_should_retry(value);
  } else if (c.occ && header_name_is(name, "etag")) {
    c.occ->etag.assign(value);
  } else if (const auto limit = exhausted_limit(name, value)) {
    c.exhausted = with_limit(c.exhausted, *limit);
  }
}

}  // namespace stampede
