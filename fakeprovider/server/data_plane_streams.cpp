// LLM answers on the data plane (docs/LLM.md): an admitted POST /v1/messages (anthropic) or
// /v1/chat/completions (openai) is answered from its body, in one JSON body or as a stream of
// events, each token sent when the pacing says (model/llm_pacing) from the loop the connection
// is on: between tokens the connection waits on its loop's due queue, as it does for a service
// time, so an open stream costs its buffer and a queue entry, never a thread or a hand-off.
#include <sys/socket.h>

#include <string>
#include <string_view>

#include "model/llm_request.hpp"
#include "model/model_limits.hpp"
#include "recording/arrival_log.hpp"
#include "saturating.hpp"
#include "server/answer_writer.hpp"
#include "server/data_plane_internals.hpp"
#include "server/request_headers.hpp"

namespace stampede {
namespace {

// One piece of a chunked body (RFC 9112 7.1).
std::string chunk(std::string_view bytes) {
  char size[24];
  const int n = std::snprintf(size, sizeof size, "%zx\r\n", bytes.size());
  std::string out(size, static_cast<std::size_t>(n));
  out.append(bytes).append("\r\n");
  return out;
}

constexpr std::string_view kLastChunk = "0\r\n\r\n";

// HTTP/1.1's streams are chunked; HTTP/1.0's are the bytes until the connection closes.
std::string piece(bool chunked, std::string_view bytes) {
  return chunked ? chunk(bytes) : std::string(bytes);
}

// The head the dialect writes for this 200 (its Date, its rate-limit headers), with the LLM
// body's type and framing in place of the canned body's.
std::string llm_head(std::string_view canned, std::string_view type, const std::string& framing,
                     bool keep_alive) {
  std::string head;
  std::size_t at = 0;
  for (std::size_t end; (end = canned.find("\r\n", at)) != std::string_view::npos && end > at;
       at = end + 2) {
    const std::string_view line = canned.substr(at, end - at);
    if (line.starts_with("Content-Type:") || line.starts_with("Content-Length:") ||
        line.starts_with("Connection:"))
      continue;
    head.append(line).append("\r\n");
  }
  head.append("Content-Type: ").append(type).append("\r\n").append(framing).append("\r\n");
  if (!keep_alive) head += "Connection: close\r\n";
  return head + "\r\n";
}

}  // namespace

bool DataPlane::is_llm_request(ClientConnection& c) const {
  const Dialect dialect = provider_.config().dialect;
  if (c.head.method != "POST") return false;
  const std::string_view path = request_path(c.head.target, c.path_scratch);
  return (dialect == Dialect::kAnthropic && path == "/v1/messages") ||
         (dialect == Dialect::kOpenAi && path == "/v1/chat/completions");
}

std::optional<bool> DataPlane::refuse_llm_body(ClientConnection& c) {
  Request& r = *c.request;
  if (!r.llm || r.body.empty()) return std::nullopt;
  const Dialect dialect = provider_.config().dialect;
  if (r.body.size() > kMaxTokenBody) {
    if (stamper_) stamper_->answered(c.fd);
    return write_bytes(c, answer_bytes(413, {{"Content-Type", "application/json"}},
                                       llm_body_too_long(dialect, kMaxTokenBody), !c.keep_alive));
  }
  ReadLlmRequest read = read_llm_request(dialect, r.body);
  int status = 400;
  if (read.request) {
    // provider.models_only: a model not listed is not served, and charged nothing.
    if (!route_model(provider_.config(), read.request->model).refused) {
      r.asked = std::move(*read.request);
      return std::nullopt;
    }
    status = 404;
    read.error_body = unknown_model_body(dialect, read.request->model);
  }
  if (stamper_) stamper_->answered(c.fd);
  return write_bytes(c, answer_bytes(status, {{"Content-Type", "application/json"}},
                                     read.error_body, !c.keep_alive));
}

bool DataPlane::answer_llm(ClientConnection& c) {
  return c.request->stream ? continue_stream(c) : start_llm_answer(c);
}

bool DataPlane::start_llm_answer(ClientConnection& c) {
  Request& r = *c.request;
  if (stamper_) stamper_->answered(c.fd);
  const ProviderConfig& p = provider_.config();
  const LlmRequest& asked = *r.asked;
  const std::uint64_t number = llm_requests_.fetch_add(1, std::memory_order_relaxed);
  const StreamPlan plan = plan_stream(p.stream, asked.max_tokens, p.seed, number);
  const std::int64_t input_tokens = llm_input_tokens(c.head, p, asked);
  const StreamFacts facts{p.dialect, input_tokens, plan.output_tokens, asked.include_usage,
                          plan.hit_max_tokens};
  const std::string_view canned = answers_.bytes(r.decision, r.row_version);
  if (!asked.stream) {
    settle_llm(r, plan.output_tokens);  // its whole answer is written now
    const std::string body = llm_answer_body(facts);
    return write_bytes(c, llm_head(canned, "application/json",
                                   "Content-Length: " + std::to_string(body.size()), c.keep_alive) +
                              body);
  }
  // HTTP/1.0 has no chunked body: the stream ends with the connection.
  const bool chunked = !c.head.http_1_0;
  if (!chunked) c.keep_alive = false;
  r.stream = std::make_unique<LlmStream>(
      LlmStream{facts, plan, chunked, ScenarioClock::steady_ns(), 0, false});
  const std::string head = llm_head(
      canned, "text/event-stream",
      chunked ? "Cache-Control: no-cache\r\nTransfer-Encoding: chunked" : "Cache-Control: no-cache",
      c.keep_alive);
  if (!send_more(c, head + piece(chunked, stream_head(facts)))) return false;
  return continue_stream(c);
}

bool DataPlane::continue_stream(ClientConnection& c) {
  LlmStream& s = *c.request->stream;
  const StreamConfig& config = provider_.config().stream;
  const auto due = [&](std::int64_t k) {
    return saturating_add(s.head_sent_ns, provider_.clock().wall_ns(token_due_ns(config, k)));
  };
  const std::int64_t last = s.plan.break_after.value_or(s.facts.output_tokens);
  const std::int64_t now = ScenarioClock::steady_ns();
  // The provider is stopping: what is left goes now, so no stream is cut by the stop.
  const bool stopping = c.loop->drop_upstream.load();
  std::string bytes;
  for (; s.next < last; ++s.next) {
    if (!stopping) {
      const std::int64_t due_ns = due(s.next);
      if (due_ns > now) break;
      c.loop->token_lateness.record(now - due_ns);
    }
    bytes += piece(s.chunked, stream_token(s.facts, s.next));
  }
  if (s.next < last) {
    if (!send_more(c, bytes)) return false;
    hold_until(c, due(s.next), /*decide_first=*/false);
    return true;
  }
  s.ended = true;
  settle_llm(*c.request, s.next);  // its last token is out: broken or not, s.next were written
  if (s.plan.break_after) {
    provider_.note_upstream(c.request->ticket, kStreamBroken);
    // OpenAI's stream has no error event: the connection is cut, its chunked body unfinished.
    if (s.facts.dialect == Dialect::kOpenAi) {
      send_more(c, bytes);
      close_connection(c);
      return false;
    }
    bytes += piece(s.chunked, stream_break(s.facts));
  } else {
    bytes += piece(s.chunked, stream_tail(s.facts));
  }
  if (s.chunked) bytes += kLastChunk;
  return send_more(c, bytes);
}

void DataPlane::settle_llm(Request& r, std::int64_t output_tokens) {
  Reservation& held = r.decision.reservation;
  if (!held.held()) return;
  provider_.settle_answer(r.ticket, r.reserved_by, held, output_tokens);
  held = {};
}

bool DataPlane::send_more(ClientConnection& c, std::string_view bytes) {
  c.out.erase(0, c.out_sent);
  c.out_sent = 0;
  c.out.append(bytes);
  if (c.out.empty()) return finish_request(c);
  const ssize_t sent = direct_send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
  if (sent < 0 && errno != EAGAIN) {
    close_connection(c);
    return false;
  }
  c.out_sent = static_cast<std::size_t>(std::max<ssize_t>(sent, 0));
  if (c.out_sent < c.out.size()) return true;
  c.out.clear();
  c.out_sent = 0;
  return finish_request(c);
}

}  // namespace stampede
