#include <doctest/doctest.h>

#include <string>

#include "report_test_support.hpp"
#include "sparkline.hpp"
#include "terminal_summary.hpp"

using namespace stampede;
using namespace report_test;
using namespace support;

namespace {

std::size_t blanks(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == ' ' ? 1 : 0;
  return n;
}

// The glyphs between the line's frame characters.
std::string glyphs(const std::string& line) {
  const auto from = line.find("\u2595");
  const auto to = line.find("\u258f");
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  return line.substr(from + 3, to - from - 3);
}

}  // namespace

TEST_CASE("a sparkline scales to its largest value, zero is a gap") {
  CHECK(sparkline({}) == "");
  CHECK(sparkline({0, 0}) == "  ");
  CHECK(sparkline({0, 1, 8}) == " \u2581\u2588");
  CHECK(sparkline({1, 2, 3, 4, 5, 6, 7, 8}) == "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588");
  CHECK(sparkline({1000, 0.001}) == "\u2588\u2581");  // any arrival shows
}

TEST_CASE("the lockstep storm's sparkline is spikes and gaps, the jittered one is filled") {
  const auto lockstep = arrivals_sparkline(golden_results("storm_exponential.results.json"), 60);
  const auto jittered = arrivals_sparkline(golden_results("storm_full_jitter.results.json"), 60);
  CAPTURE(lockstep);
  CAPTURE(jittered);
  CHECK(lockstep.starts_with("arrivals/s "));
  // 544 one-second bins in 60 glyphs: ten seconds a glyph, the busiest second of each.
  CHECK(lockstep.find("t=0-544 s, peak 1,000/s, busiest second of every 10 s") !=
        std::string::npos);
  CHECK(jittered.find("t=0-90 s, peak 2,263/s, busiest second of every 2 s") != std::string::npos);
  const auto spikes = glyphs(lockstep);
  const auto band = glyphs(jittered);
  // Ten waves after recovery, every glyph between them blank.
  CHECK(blanks(spikes) > 35);
  CHECK(blanks(band) < 5);
  CHECK(spikes.find("\u2588") != std::string::npos);
}

TEST_CASE("a run with no arrivals has no sparkline") {
  CHECK(arrivals_sparkline(Results{}) == "");
}

TEST_CASE("the terminal summary ends with the sparkline") {
  const auto r = golden_results("storm_exponential.results.json");
  const auto summary = format_terminal_summary(r);
  const auto last_line_start = summary.rfind('\n', summary.size() - 2);
  CHECK(summary.substr(last_line_start + 1) == arrivals_sparkline(r) + "\n");
}
