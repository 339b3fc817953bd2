#pragma once

#include <string>

namespace stampede {

// How numbers read in a report and its tooltips; one place, so the page, the charts and the
// tests that look for a results file's numbers in the page agree on the spelling.

// 7508 -> "7,508"; 7.508 -> "7.51"; 0.49 -> "0.49": whole numbers grouped, others to three
// significant digits.
std::string format_count(double v);

// An axis tick: 0, 250, 1.5k, 20k, 1M.
std::string format_tick(double v);

// printf's %g: six significant digits and no trailing zeros (0.1, 2.5e-05), as a flag's value
// is echoed back in a message or a JUnit attribute.
std::string format_general(double v);

// A time in seconds: "89.7 s", "543 s", "0.25 s", "12 ms" below a second.
std::string format_seconds(double s);

}  // namespace stampede
