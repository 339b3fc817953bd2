#pragma once

#include <string>
#include <string_view>

namespace stampede {

// An error message as the one line a usage error prints: the messages quote what was given,
// and a value with a line break or another control character in it must not split the line
// or drive the terminal, so each such byte is shown escaped (\n, \r, \t, \xHH).
std::string one_line(std::string_view message);

}  // namespace stampede
