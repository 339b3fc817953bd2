#include "live_occ.hpp"

#include <cstdio>

#include "versioned_row.hpp"

namespace stampede {
namespace {

constexpr char kNoIfMatch[] = "If-Match:";

}  // namespace

LiveOcc::LiveOcc() {
  std::snprintf(if_match_line.data(), if_match_line.size(), "%s", kNoIfMatch);
  etag.reserve(32);
}

bool prepare_occ_request(CURL* easy, LiveOcc& occ) {
  occ.etag.clear();
  if (!occ.cycle.writing) {
    std::snprintf(occ.if_match_line.data(), occ.if_match_line.size(), "%s", kNoIfMatch);
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, nullptr);
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
    return false;
  }
  std::snprintf(occ.if_match_line.data(), occ.if_match_line.size(), "If-Match: %s",
                format_etag(occ.cycle.version).c_str());
  // An empty body, sent with its Content-Length: 0.
  curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, 0L);
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, "");
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, "PUT");
  return true;
}

OccStep occ_after_answer(const RetryPolicy& policy, LiveOcc& occ, std::int64_t now_ns,
                         Outcome outcome, int status, std::optional<std::int64_t> retry_after_ns,
                         ItemState& item, ClientGuards& guards, Rng& rng) {
  return occ_on_answer(policy, occ.cycle, now_ns, outcome, status, parse_etag(occ.etag),
                       retry_after_ns, item, guards, rng);
}

}  // namespace stampede
