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

namespace stampede {

// Writes the provider's answers' bytes: the dialect renders the facts (model/dialect), this
// turns them into the bytes on the wire. A storm's answers repeat (the same 429 until the
// window turns), so each server thread keeps the last one it built: most answers cost no
// allocation at all.
class AnswerWriter {
 public:
  // clock: the provider's, for anthropic's reset times of day.
  AnswerWriter(const AnswerFormat& format, const ScenarioClock& clock);

  // The answer's bytes, valid until this thread's next call. row_version: occ mode's row
  // answers, which carry it as their ETag and in their body.
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

  const AnswerFormat format_;
  const ScenarioClock& clock_;
};

// An answer's bytes: status line, headers, Connection: close when close, Content-Length, body.
std::string answer_bytes(int status,
                         const std::vector<std::pair<std::string, std::string>>& headers,
                         std::string_view body, bool close = false);

// An error the server answers itself, outside the provider's model, as the dialects' errors
// look: {"type":"error","error":{"type":...,"reason":...,"message":...}}. close: the answer says
// Connection: close, and the server closes the connection once it is out. A 405 carries Allow.
std::string server_error_bytes(int status, std::string_view type, std::string_view reason,
                               std::string_view message, bool close = true);

}  // namespace stampede
