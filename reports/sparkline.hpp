#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "results.hpp"

namespace stampede {

// Values as a row of block glyphs, one per value, scaled to the largest. Zero is a space, so
// the quiet seconds between lockstep waves read as gaps.
std::string sparkline(const std::vector<double>& values);

// One line for the terminal: a run's arrivals per second (the provider's record, else the
// clients' sends) in at most `width` glyphs, each the busiest second of the span it covers,
// so a one-second spike in a long run still shows. Empty when nothing arrived.
std::string arrivals_sparkline(const Results& r, std::size_t width = 60);

}  // namespace stampede
