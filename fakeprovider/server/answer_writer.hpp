#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/dialect.hpp"
#include "model/provider_policy.hpp"
#include "model/request_framing.hpp"
#include "scenario_clock.hpp"

struct MHD_Connection;
struct MHD_Response;

namespace stampede {

// Writes the provider's answers onto libmicrohttpd connections: the dialect renders the facts
// (model/dialect), this turns them into a response and queues it. A storm's answers repeat
// (the same 429 until the window turns) and one libmicrohttpd response can be queued on any
// number of connections, so each server thread keeps the last one it built: most answers cost
// no allocation at all.
class AnswerWriter {
 public:
  // clock: the provider's, for anthropic's reset times of day.
  AnswerWriter(const AnswerFormat& format, const ScenarioClock& clock);

  // row_version: occ mode's row answers, which carry it as their ETag and in their body.
  bool queue(MHD_Connection* c, const Decision& d, std::optional<std::uint64_t> row_version) const;
  // The same answer as bytes for the native server: valid until this thread's next call.
  std::string_view bytes(const Decision& d, std::optional<std::uint64_t> row_version) const;

  // What an answer's bytes depend on, besides its Date header (the second it is sent in).
  struct Key {
    AnswerFacts facts;                         // what the dialect writes
    std::optional<std::uint64_t> row_version;  // occ mode's row answers
    bool operator==(const Key&) const = default;
  };

 private:
  Key key_of(const Decision& d, std::optional<std::uint64_t> row_version) const;
  QuotaFacts quota_key(const QuotaNumbers& q) const;
  // The dialect's answer with its Date (and a row's ETag) first.
  RenderedAnswer render(const Key& key, std::int64_t date_s) const;
  // date_s: the Date header's second since the epoch; status: the dialect's, to send it with.
  MHD_Response* build(const Key& key, std::int64_t date_s, int& status) const;

  const AnswerFormat format_;
  const ScenarioClock& clock_;
};

// An error the server answers itself, outside the provider's model, as the dialects' errors
// look: {"type":"error","error":{"type":...,"reason":...,"message":...}}. close: the connection
// is closed once it is out (libmicrohttpd reads no more of it, a body left unread included).
// A 405 carries Allow.
bool queue_server_error(MHD_Connection* c, int status, std::string_view type,
                        std::string_view reason, std::string_view message, bool close);

// An answer's bytes: status line, headers, Connection: close when close, Content-Length, body.
std::string answer_bytes(int status,
                         const std::vector<std::pair<std::string, std::string>>& headers,
                         std::string_view body, bool close = false);

// queue_server_error's answer as bytes, for the native server.
std::string server_error_bytes(int status, std::string_view type, std::string_view reason,
                               std::string_view message, bool close = true);

// The 400 or 501 for a request whose body's end cannot be found, queued before any body is
// read: libmicrohttpd then reads no more of the connection and closes it once this is out.
bool queue_framing_refusal(MHD_Connection* c, const FramingVerdict& verdict);

}  // namespace stampede
