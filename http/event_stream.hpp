#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace stampede {

// Server-sent events (the HTML standard's text/event-stream), as both live dashboards' streams
// send them (fakeprovider's /admin/live, loadgen's --dashboard /live): the text alone; the
// servers write it.

// One event: "id: ID", each line of data (split at LF, CR or CRLF, as a reader splits them)
// on a "data: " line of its own, and the blank line that dispatches it.
std::string sse_event(std::uint64_t id, std::string_view data);

// How long a reader waits before it reconnects, in a block of its own: a block without data
// dispatches no event.
std::string sse_retry(std::int64_t ms);

// A comment block of exactly `bytes` bytes (":", spaces, the blank line; at least 3), which
// every reader skips: what pads a stream's events (BoundedServer::answer_event_stream).
std::string sse_padding(std::size_t bytes);

}  // namespace stampede
