#pragma once

#include <cstdint>
#include <string_view>

namespace stampede {

// The hint a rejection carries in retry-after-ms: whole milliseconds, rounded up (as
// retry_after_seconds rounds Retry-After up), so a client that sleeps exactly the hint never
// comes back before the time the provider meant; at least 1, since the Stainless SDKs read a
// retry-after-ms of 0 as absent.
std::int64_t retry_after_ms_up(std::int64_t retry_after_ns);

// Who a hint is for, to key its draw: the item the request names (an item or client header
// that numbers its sends by counting), else its client header's value, else its tenant. Two
// requests with the same identity and send number get the same draw; clients that send
// nothing to tell them apart (one key, no client or item header) share one.
std::uint64_t hint_identity(std::uint64_t counted_item_key, std::string_view client_id,
                            std::string_view tenant);

// --retry-after-jitter: the hint stretched by a factor drawn uniformly from [1, 1 + fraction),
// from the stream of (seed, identity, send): the same run gives every client the same hints,
// whatever order the fleet's requests arrive in. Only ever later than the hint, never earlier:
// the hint is when the limiter admits again, and a client sent back before it is only turned
// away again. fraction 0 (or a hint <= 0) leaves the hint as it is.
std::int64_t jittered_retry_after_ns(std::int64_t hint_ns, double fraction, std::uint64_t seed,
                                     std::uint64_t identity, std::int64_t send);

}  // namespace stampede
