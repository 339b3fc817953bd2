// docs/READING.md quotes loadgen's own output for a healthy run and a storm, with the command
// that prints it: the quotes must stay what the command prints, or the guide reads a run that
// no longer happens.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

struct Quote {
  std::vector<std::string> args;  // after "$ loadgen"
  std::vector<std::string> lines;
};

// Every fenced block that starts with "$ loadgen ...", and the lines quoted under it.
std::vector<Quote> quotes_in(const std::string& doc) {
  std::vector<Quote> out;
  bool in_block = false;
  for (const auto& line : lines(doc)) {
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      continue;
    }
    if (!in_block) continue;
    if (line.rfind("$ loadgen ", 0) == 0) {
      Quote q;
      std::istringstream words(line.substr(10));
      for (std::string w; words >> w;) {
        if (w.rfind("examples/", 0) == 0) w = source_path(w);
        q.args.push_back(w);
      }
      out.push_back(q);
    } else if (!out.empty() && line.find("...") == std::string::npos) {
      out.back().lines.push_back(line);
    }
  }
  return out;
}

bool printed(const std::string& output, const std::string& quoted) {
  for (const auto& line : lines(output)) {
    if (line.rfind(quoted, 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("reading guide: every run it quotes is what the quoted command prints") {
  const auto quotes = quotes_in(read_file(source_path("docs/READING.md")));
  REQUIRE(quotes.size() >= 3);
  for (const auto& q : quotes) {
    std::string joined;
    for (const auto& a : q.args) joined += a + " ";
    CAPTURE(joined);
    const auto r = run_binary("loadgen", q.args);
    CHECK((r.code == 0 || r.code == 1));
    CHECK(q.lines.size() >= 3);
    for (const auto& line : q.lines) {
      CAPTURE(line);
      CHECK(printed(r.out, line));
    }
  }
}
