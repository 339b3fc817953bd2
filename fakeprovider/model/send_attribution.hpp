#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/bounded_key_table.hpp"

namespace stampede {

// Which send of its item an arrival is, from what real clients send (docs/ADMIN_API.md). The
// rules, tried in this order; the first whose header the request carries decides.
enum class SendRule : std::uint8_t {
  kXAttempt,             // X-Attempt: N, loadgen's own
  kStainlessRetryCount,  // X-Stainless-Retry-Count: N-1 (OpenAI, Anthropic, other Stainless SDKs)
  kAmzSdkRequest,        // amz-sdk-request: attempt=N; max=M (AWS SDKs)
  kAttemptHeader,        // --attempt-header NAME: N
  kItemHeader,           // the n-th arrival of one item, named by an --item-header
  kClientHeader,         // the n-th arrival of one client (--client-header): one item per client
};
inline constexpr std::size_t kSendRuleCount = 6;
// "x-attempt", "x-stainless-retry-count", "amz-sdk-request", "attempt-header", "item-header",
// "client-header".
std::string_view to_string(SendRule rule);

// Whether an arrival got a send number, and if not, why not.
enum class SendStatus : std::uint8_t {
  kAttributed,
  kNone,       // no rule's header in the request
  kMalformed,  // the deciding header's value is not what its sender writes, or is repeated
               // with another value
  kItemLimit,  // numbered by counting, but its item is new and --max-items are counted already
};
inline constexpr std::size_t kSendStatusCount = 4;
// "attributed", "none", "malformed", "item_limit".
std::string_view to_string(SendStatus status);

struct SendAttribution {
  SendStatus status = SendStatus::kNone;
  SendRule rule = SendRule::kXAttempt;  // the rule that decided, unless status is kNone
  std::int64_t send = 0;                // 1 for a first send; 0 unless attributed
  bool attributed() const { return status == SendStatus::kAttributed; }
  bool operator==(const SendAttribution&) const = default;
};
// The arrival log's send_rule column: the rule ("x-attempt"), or why there is no number
// ("none", "malformed:x-attempt", "item_limit:client-header").
std::string send_rule_label(const SendAttribution& a);

inline constexpr std::size_t kMaxItemHeaders = 8;

// Which headers the rules read, and how the items they name are followed: fakeprovider's
// --attempt-header, --item-header, --client-header, --max-items and --hint-tolerance.
struct SendRules {
  std::string attempt_header;  // empty: none
  // In order: the first one a request carries names its item. At most kMaxItemHeaders.
  std::vector<std::string> item_headers{"X-Request-Id", "amz-sdk-invocation-id", "Idempotency-Key"};
  std::string client_header = "X-Client-Id";  // empty: none
  std::size_t max_items = 1'000'000;          // items (and clients) counted at once, >= 1
  // A followed retry "came at the hint" when its wait was within this of its Retry-After
  // (scenario ns). Wide enough for the client's own scheduling and the network between.
  std::int64_t hint_tolerance_ns = 100'000'000;
};

// One header as the request carried it: its first value, and whether a repeat disagreed.
struct HeaderSeen {
  std::string_view value;
  bool present = false;
  bool conflicting = false;
};

// The rules' headers of one request. Views into the request: nothing is copied.
struct SendHeaders {
  HeaderSeen x_attempt;
  HeaderSeen retry_count;
  HeaderSeen amz_sdk_request;
  HeaderSeen attempt_header;
  std::array<HeaderSeen, kMaxItemHeaders> items;  // by rules.item_headers
  HeaderSeen client;
};

// Files one request header (any of them, in any order) where the rules read it; names compare
// case-insensitively. Item and client values are their credential_key (the bearer token of
// an Authorization). value must outlive headers.
void offer_send_header(const SendRules& rules, SendHeaders& headers, std::string_view name,
                       std::string_view value);

// What a request's headers say about its send before anything is counted: the number they
// declare, or the key whose arrivals are to be counted. Owns nothing, so a request held a hop
// carries it as it is.
struct SendClaim {
  enum class Kind : std::uint8_t { kNone, kMalformed, kDeclared, kCounted };
  Kind kind = Kind::kNone;
  SendRule rule = SendRule::kXAttempt;
  std::int64_t send = 0;  // kDeclared
  std::uint64_t key = 0;  // kCounted: item_key of the item's (or client's) name
  // The item it belongs to, whatever numbers it: item_key of its first item header, else of
  // its client header; 0 when it has neither. What the provider's per-item record keys on.
  std::uint64_t item = 0;
};
SendClaim claim_send(const SendHeaders& headers);

// The key a rule counts a name's arrivals by: a 64-bit hash, never 0.
std::uint64_t item_key(SendRule rule, std::string_view name);

// Arrivals so far per item (or client) key, for the rules that number sends by counting.
// Bounded: at most max_items keys (BoundedKeyTable). Keys are 64-bit hashes: two names sharing
// one (about one chance in 30 million among a million names) count as one item.
class ItemCounts {
 public:
  explicit ItemCounts(std::size_t max_items) : table_(max_items) {}
  // This arrival's place among its key's arrivals, 1 for the first; nullopt when the key is
  // new and max_items keys are counted already (so it is not counted either).
  std::optional<std::int64_t> arrive(std::uint64_t key);
  void clear() { table_.clear(); }
  std::size_t items() const { return table_.size(); }
  std::size_t max_items() const { return table_.max_keys(); }

 private:
  struct Slot {
    std::uint64_t key;  // 0: empty
    std::int64_t arrivals;
  };
  BoundedKeyTable<Slot> table_;
};

// The decision: a declared number stands; a counted key gets its arrival's number.
SendAttribution attribute_send(const SendClaim& claim, ItemCounts& counts);
inline SendAttribution attribute_send(const SendHeaders& headers, ItemCounts& counts) {
  return attribute_send(claim_send(headers), counts);
}

}  // namespace stampede
