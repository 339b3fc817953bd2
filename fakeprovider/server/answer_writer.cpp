#include "server/answer_writer.hpp"

#include <ctime>
#include <string>

#include <nlohmann/json.hpp>

#include "civil_date.hpp"
#include "etag.hpp"
#include "model/versioned_row.hpp"
#include "upstream/relayed_answer.hpp"

namespace stampede {
namespace {

// occ mode's row answers carry its version, so their bodies are built per answer.
std::string row_body(int status, std::uint64_t version) {
  const std::string v = std::to_string(version);
  switch (status) {
    case 200:
      return R"({"version":)" + v + "}";
    case 412:
      return R"({"type":"error","error":{"type":"precondition_failed","message":"The row changed since it was read; read it again"},"version":)" +
             v + "}";
    default:
      return R"({"type":"error","error":{"type":"precondition_required","message":"PUT /row needs If-Match with the version read"},"version":)" +
             v + "}";
  }
}

// Read once an answer: the coarse clock (the last tick's time) is whole seconds' worth of
// precision at a fraction of the full reading's cost.
std::int64_t epoch_s_now() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME_COARSE, &now);
  return now.tv_sec;
}

// The Date header's value for a second since the epoch (RFC 9110's IMF-fixdate).
std::string http_date(std::int64_t epoch_s) {
  return strftime_utc(epoch_s, "%a, %d %b %Y %H:%M:%S GMT");
}

// The last answer built on this server thread, and by which writer, with its Date: formatted
// once a second, not per answer (the clock's time zone conversion was the largest user-space
// cost of a 429 in the profile).
struct AnswerBytesCache {
  const AnswerWriter* owner = nullptr;
  AnswerWriter::Key key;
  std::int64_t date_s = 0;
  std::string bytes;
};
thread_local AnswerBytesCache answer_bytes_cache;

}  // namespace

AnswerWriter::AnswerWriter(const AnswerFormat& format, const ScenarioClock& clock)
    : format_(format), clock_(clock) {}

AnswerWriter::Key AnswerWriter::key_of(const Decision& d,
                                       std::optional<std::uint64_t> row_version) const {
  Key key;
  key.facts = answer_facts(
      d, format_, d.has_quota ? quota_key({d.limit, d.remaining, d.reset_ns}) : QuotaFacts{},
      d.tokens ? quota_key(*d.tokens) : QuotaFacts{},
      d.input_tokens ? quota_key(*d.input_tokens) : QuotaFacts{},
      d.output_tokens ? quota_key(*d.output_tokens) : QuotaFacts{});
  key.row_version = row_version;
  return key;
}

std::string_view AnswerWriter::bytes(const Decision& d,
                                     std::optional<std::uint64_t> row_version) const {
  const Key key = key_of(d, row_version);
  AnswerBytesCache& cache = answer_bytes_cache;
  const std::int64_t date_s = epoch_s_now();
  if (cache.owner != this || cache.bytes.empty() || !(cache.key == key) || cache.date_s != date_s) {
    cache.owner = this;
    cache.key = key;
    cache.date_s = date_s;
    const RenderedAnswer a = render(key, date_s);
    cache.bytes = answer_bytes(a.status, a.headers, a.body);
  }
  return cache.bytes;
}

QuotaFacts AnswerWriter::quota_key(const QuotaNumbers& q) const {
  const RateLimitHeaders set = format_.ratelimit_headers;
  // The wall clock only for the header set that sends a time of day.
  if (!needs_wall_clock(set)) return quota_facts(q, set, 0, 0);
  return quota_facts(q, set, clock_.wall_ns(q.reset_ns), epoch_s_now());
}

RenderedAnswer AnswerWriter::render(const Key& key, std::int64_t date_s) const {
  RenderedAnswer a = render_answer(format_, key.facts);
  if (key.row_version) a.body = row_body(key.facts.status, *key.row_version);
  // First, where HTTP servers put it.
  std::vector<std::pair<std::string, std::string>> first{{"Date", http_date(date_s)}};
  if (key.row_version) first.emplace_back("ETag", format_etag(*key.row_version));
  a.headers.insert(a.headers.begin(), first.begin(), first.end());
  return a;
}

std::string answer_bytes(int status,
                         const std::vector<std::pair<std::string, std::string>>& headers,
                         std::string_view body, bool close) {
  std::string b = "HTTP/1.1 " + std::to_string(status) + " ";
  b.append(reason_phrase(status)).append("\r\n");
  for (const auto& [name, value] : headers) b += name + ": " + value + "\r\n";
  if (close) b += "Connection: close\r\n";
  b += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  b += body;
  return b;
}

namespace {

// A 405 names what is allowed (RFC 9110 15.5.6): every method is served but CONNECT, the one
// refused so, and these are the ones a client may count on.
constexpr const char* kAllowed = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

std::string server_error_body(std::string_view type, std::string_view reason,
                              std::string_view message) {
  const nlohmann::ordered_json body{
      {"type", "error"},
      {"error", {{"type", type}, {"reason", reason}, {"message", std::string(message)}}}};
  return body.dump();
}

}  // namespace

std::string server_error_bytes(int status, std::string_view type, std::string_view reason,
                               std::string_view message, bool close) {
  std::vector<std::pair<std::string, std::string>> headers{{"Date", http_date(epoch_s_now())},
                                                           {"Content-Type", "application/json"}};
  if (status == 405) headers.emplace_back("Allow", kAllowed);
  return answer_bytes(status, headers, server_error_body(type, reason, message), close);
}

}  // namespace stampede
