// Several bad flags at once: loadgen names every one, each on its own line starting
// "loadgen: ", and exits 2 having started nothing, so a user fixes them in one go.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/process.hpp"

using namespace support;

namespace {

// A command that wrongly started is killed after this, and the check fails.
constexpr int kErrorRunBoundMs = 30'000;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(text.substr(at, nl - at));
  return lines;
}

// Each wanted text on its own line, in order, and nothing else on stderr.
void check_every_error(const std::vector<std::string>& args,
                       const std::vector<std::string>& wanted) {
  const auto r = run_binary("loadgen", args, kErrorRunBoundMs);
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.back() == '\n');
  const auto lines = lines_of(r.err);
  REQUIRE(lines.size() == wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    CHECK(lines[i].rfind("loadgen: ", 0) == 0);
    CHECK(lines[i].find(wanted[i]) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("every error: run says each bad flag, not only the first") {
  check_every_error({"run", "--scenario", kStorm, "--url", "http://127.0.0.1:1/", "--http-client",
                     "curl", "--max-duration", "0s", "--header", "no colon", "--no-report"},
                    {"--header", "--max-duration: must be longer than zero",
                     "--http-client: 'curl' is not auto, native or libcurl"});
}

TEST_CASE("every error: exec says each bad flag, not only the first") {
  check_every_error({"exec", "--clients", "2", "--per-process", "3", "--time-scale", "2", "--url",
                     "http://127.0.0.1:1/", "--provider-admin", "http://127.0.0.1:2", "--", "true"},
                    {"--per-process: 3 clients per process, but --clients is 2",
                     "--time-scale: exec takes only 1"});
}

TEST_CASE("every error: simulate says each bad flag, not only the first") {
  check_every_error({"simulate", "--scenario", kStorm, "--horizon", "0s", "--shard", "two"},
                    {"--horizon: must be longer than zero", "--shard: "});
}

TEST_CASE("every error: advise says each bad flag, not only the first") {
  check_every_error({"advise", "--clients", "10", "--demand", "lots", "--over", "0s"},
                    {"--allowance: advise needs the allowance",
                     "--demand: ", "--over: must be longer than zero"});
}
