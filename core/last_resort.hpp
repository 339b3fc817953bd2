#pragma once

#include <functional>
#include <string_view>

namespace stampede {

// The last word on an exception nothing nearer caught: one plain line on stderr,
// "PROGRAM: ...", and an exit code (kExitUnreachable: the harness failed), never a library's
// text ("[json.exception...]", "std::bad_alloc") or std::terminate's abort, exit 134, which a
// CI step reads as a crash. memory_fix: what to change when memory ran out ("fewer --clients").
int run_or_say(std::string_view program, std::string_view memory_fix,
               const std::function<int()>& body);

}  // namespace stampede
