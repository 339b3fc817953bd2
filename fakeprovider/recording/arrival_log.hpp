#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/send_attribution.hpp"
#include "recording/row_blocks.hpp"

namespace stampede {

// The raw arrival log behind --arrivals-out: one row per arrival. Grows with the traffic, so
// it is kept only when asked for. Each server thread keeps its own; the rows carry the order
// in which the policy decided them, and the CSV merges the logs back into that order. Pure:
// the caller serialises calls.
class ArrivalLog {
 public:
  // seq: the arrival's place in the order of decisions; t_ns: when its bytes came in (the
  // stamp); decided_t_ns: the time the limiters decided it at, which is t_ns or later (the
  // latest time decided yet, when another thread decided a later arrival first); status: the
  // answer's status code, 0 for a connection reset without an answer; send: which send it
  // is, and by which rule. Returns the row's number, for set_upstream.
  std::size_t record(std::uint64_t seq, std::int64_t t_ns, std::int64_t decided_t_ns,
                     std::string_view tenant, int status, const SendAttribution& send,
                     std::string_view client_id);
  // Proxy mode: what the upstream answered the row's request (a status, or kUpstreamFailed or
  // kUpstreamTimedOut), once it has; or kStreamBroken, for its LLM stream broken mid-way.
  void set_upstream(std::size_t row, int upstream);

  std::size_t size() const { return rows_.size(); }
  void clear();

  // "t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,stream" and one line
  // per arrival of all the logs, in the order of decisions (RFC 4180 quoting), so t_ns need not
  // be in order. attempt is empty for an unattributed arrival; send_rule is send_rule_label;
  // upstream is empty unless the request was forwarded, then the upstream's status, "error" or
  // "timeout"; stream is "broken" for an LLM stream --stream-errors broke, else empty. The
  // newer columns came last so readers of the first five (or six) read on.
  static std::string to_csv(const std::vector<const ArrivalLog*>& logs);

 private:
  struct Row {
    std::uint64_t seq;
    std::int64_t t_ns;
    std::int64_t decided_t_ns;
    std::uint32_t tenant;  // index into tenant_names_: keys repeat, rows do not copy them
    std::int32_t status;
    std::int32_t upstream;  // 0: not forwarded (or no answer yet)
    SendAttribution send;
    std::string client_id;
  };
  // Grown in blocks: no pause to copy a million rows while the lock is held, and no page
  // fault a few dozen rows.
  RowBlocks<Row> rows_;
  std::vector<std::string> tenant_names_;
  std::map<std::string, std::uint32_t, std::less<>> tenant_index_;
};

// What set_upstream records when the upstream gave no answer.
inline constexpr int kUpstreamFailed = -1;
inline constexpr int kUpstreamTimedOut = -2;
// Not the upstream's: an LLM stream of this arrival was broken by --stream-errors, a note on
// the same path (a worker's goes to the provider's process as the upstream's notes do).
inline constexpr int kStreamBroken = -3;

// A CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

}  // namespace stampede
