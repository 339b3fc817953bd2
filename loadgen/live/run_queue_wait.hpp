#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stampede {

// How long a thread has waited, runnable, for a CPU: what tells a late loop on a busy machine
// from a late timer. Linux keeps it per thread (sched_info) as the second of the three numbers
// in /proc/thread-self/schedstat, in ns.

// That second number; none when the text is not three unsigned numbers.
std::optional<std::int64_t> schedstat_wait_ns(std::string_view text);

// The calling thread's, so far; none where the kernel keeps no such figure.
std::optional<std::int64_t> thread_run_queue_wait_ns();

}  // namespace stampede
