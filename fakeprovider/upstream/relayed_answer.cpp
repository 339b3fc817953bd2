#include "upstream/relayed_answer.hpp"

#include <cstdio>
#include <optional>

#include "http_token.hpp"
#include "upstream/forward_headers.hpp"

namespace stampede {
namespace {

bool bodiless(int status) {
  return status < 200 || status == 204 || status == 304;
}

struct Phrase {
  int status;
  std::string_view words;
};

constexpr Phrase kPhrases[] = {
    {100, "Continue"},
    {101, "Switching Protocols"},
    {102, "Processing"},
    {103, "Early Hints"},
    {200, "OK"},
    {201, "Created"},
    {202, "Accepted"},
    {203, "Non-Authoritative Information"},
    {204, "No Content"},
    {205, "Reset Content"},
    {206, "Partial Content"},
    {207, "Multi-Status"},
    {208, "Already Reported"},
    {226, "IM Used"},
    {300, "Multiple Choices"},
    {301, "Moved Permanently"},
    {302, "Found"},
    {303, "See Other"},
    {304, "Not Modified"},
    {305, "Use Proxy"},
    {307, "Temporary Redirect"},
    {308, "Permanent Redirect"},
    {400, "Bad Request"},
    {401, "Unauthorized"},
    {402, "Payment Required"},
    {403, "Forbidden"},
    {404, "Not Found"},
    {405, "Method Not Allowed"},
    {406, "Not Acceptable"},
    {407, "Proxy Authentication Required"},
    {408, "Request Timeout"},
    {409, "Conflict"},
    {410, "Gone"},
    {411, "Length Required"},
    {412, "Precondition Failed"},
    {413, "Content Too Large"},
    {414, "URI Too Long"},
    {415, "Unsupported Media Type"},
    {416, "Range Not Satisfiable"},
    {417, "Expectation Failed"},
    {421, "Misdirected Request"},
    {422, "Unprocessable Content"},
    {423, "Locked"},
    {424, "Failed Dependency"},
    {425, "Too Early"},
    {426, "Upgrade Required"},
    {428, "Precondition Required"},
    {429, "Too Many Requests"},
    {431, "Request Header Fields Too Large"},
    {451, "Unavailable For Legal Reasons"},
    {500, "Internal Server Error"},
    {501, "Not Implemented"},
    {502, "Bad Gateway"},
    {503, "Service Unavailable"},
    {504, "Gateway Timeout"},
    {505, "HTTP Version Not Supported"},
    {506, "Variant Also Negotiates"},
    {507, "Insufficient Storage"},
    {508, "Loop Detected"},
    {510, "Not Extended"},
    {511, "Network Authentication Required"},
    {529, "Site Overloaded"},
};

// The whole answer is in already (most are, a small one in one read): sent with its length.
std::optional<std::size_t> body_length(const UpstreamExchange& x) {
  if (x.answer_size) return x.answer_size;
  if (x.ended && x.failure == UpstreamFailure::kNone) return x.answer_pending().size();
  return std::nullopt;
}

RelayFraming framing_of(const UpstreamExchange& x, bool head_request, bool http_1_0) {
  if (head_request || bodiless(x.status)) return RelayFraming::kNone;
  if (body_length(x)) return RelayFraming::kLength;
  return http_1_0 ? RelayFraming::kClose : RelayFraming::kChunked;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> relayed_fields(const UpstreamExchange& x) {
  std::vector<std::string> named;
  for (const auto& [name, value] : x.answer_headers) {
    if (ascii_iequals(name, "connection"))
      for (auto& n : connection_field_names(value)) named.push_back(std::move(n));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& field : x.answer_headers) {
    if (passes_back(field.first, named)) out.push_back(field);
  }
  return out;
}

RelayedHead relayed_head(const UpstreamExchange& x, bool head_request, bool http_1_0,
                         bool keep_alive) {
  RelayedHead h;
  h.framing = framing_of(x, head_request, http_1_0);
  std::string& b = h.bytes;
  b.append("HTTP/1.1 ").append(std::to_string(x.status)).append(" ");
  b.append(reason_phrase(x.status)).append("\r\n");
  for (const auto& [name, value] : relayed_fields(x))
    b.append(name).append(": ").append(value).append("\r\n");
  const bool stated_length =
      h.framing == RelayFraming::kLength || (x.answer_size && (head_request || x.status == 304));
  if (stated_length)
    b.append("Content-Length: ").append(std::to_string(*body_length(x))).append("\r\n");
  if (h.framing == RelayFraming::kChunked) b.append("Transfer-Encoding: chunked\r\n");
  if (!keep_alive || h.framing == RelayFraming::kClose) {
    b.append("Connection: close\r\n");
  } else if (http_1_0) {
    b.append("Connection: Keep-Alive\r\n");
  }
  b.append("\r\n");
  return h;
}

void append_relayed(std::string& out, std::string_view piece, RelayFraming framing) {
  if (piece.empty()) return;  // an empty chunk would end the body
  if (framing != RelayFraming::kChunked) {
    out.append(piece);
    return;
  }
  char size[24];
  const int n = std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
  out.append(size, static_cast<std::size_t>(n)).append(piece).append("\r\n");
}

std::string_view relayed_end(RelayFraming framing) {
  return framing == RelayFraming::kChunked ? "0\r\n\r\n" : "";
}

std::string_view reason_phrase(int status) {
  for (const auto& p : kPhrases) {
    if (p.status == status) return p.words;
  }
  return "Unknown";
}

}  // namespace stampede
