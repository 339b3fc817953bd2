#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {}  // namespace

TEST_CASE("simulate --mode occ: writes and drain_s in the summary, --trials reports the means") {
  TempDir dir;
  const auto out = dir.file("occ.json");
  const auto r =
      run_binary("loadgen", {"simulate", "--mode", "occ", "--clients", "20", "--strategy",
                             "full-jitter", "--base", "10ms", "--cap", "2s", "--trials", "5",
                             "--assert", "writes >= 20", "--out", out, "--no-report"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(contains(r.out, "the means of 5 trials, trial t with seed 1 + t"));
  CHECK(contains(r.out, "conditional writes: "));
  const auto j = json::parse(read_file(out));
  CHECK(j["trials"] == 5);
  CHECK(j["scenario"]["provider"]["mode"] == "occ");
  CHECK(j["scenario"]["fleet"]["hop_delay"] == "10ms,2ms");
  CHECK(j["summary"]["writes"].get<double>() >= 20);
  CHECK(j["summary"]["delivered"] == 20);
  CHECK(j["summary"]["drain_s"].get<double>() > 0.04);  // four hops at the very least
}

TEST_CASE("simulate --shard 1/2 --mode occ: records its half of the items, of the whole herd") {
  TempDir dir;
  const auto whole = dir.file("whole.json");
  const auto half = dir.file("half.json");
  const std::vector<std::string> args{"simulate", "--mode", "occ",   "--clients", "40",
                                      "--base",   "10ms",   "--cap", "2s",        "--no-report"};
  auto whole_args = args;
  whole_args.insert(whole_args.end(), {"--out", whole});
  auto half_args = args;
  half_args.insert(half_args.end(), {"--shard", "1/2", "--out", half});
  const auto w = run_binary("loadgen", whole_args);
  const auto h = run_binary("loadgen", half_args);
  INFO(h.err);
  REQUIRE(w.code == 0);
  REQUIRE(h.code == 0);
  const auto jw = json::parse(read_file(whole));
  const auto jh = json::parse(read_file(half));
  CHECK(jh["summary"]["items"] == 20);
  CHECK(jh["summary"]["delivered"] == 20);
  CHECK(jh["summary"]["requests"].get<double>() < jw["summary"]["requests"].get<double>());
}

TEST_CASE("simulate --mode occ: the same seed prints the same, byte for byte") {
  const std::vector<std::string> args{
      "simulate", "--mode", "occ",        "--clients",           "50",
      "--seed",   "9",      "--strategy", "decorrelated-jitter", "--base",
      "5ms",      "--cap",  "2s",         "--hop-delay",         "5ms,1ms",
      "--trials", "3"};
  const auto a = run_binary("loadgen", args);
  const auto b = run_binary("loadgen", args);
  CHECK(a.code == 0);
  CHECK(a.out == b.out);
  auto other = args;
  other[6] = "10";
  CHECK(run_binary("loadgen", other).out != a.out);
}

TEST_CASE("occ flags: bad values are one line naming the flag and what is accepted") {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases{
      {{"--mode", "pessimistic"}, "provider.mode"},
      {{"--mode", "occ", "--hop-delay", "10ms"}, "expected MEAN,SD"},
      {{"--mode", "occ", "--hop-delay", "10,2"}, "expected MEAN,SD"},
      {{"--mode", "occ", "--trials", "0"}, "--trials"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"simulate"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = run_binary("loadgen", args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(contains(r.err, c.says));
    CHECK(lines(r.err).size() == 1);
  }
}

TEST_CASE("run --mode occ refuses a method or a body: it sends GET and PUT itself") {
  for (const auto& flag :
       {std::vector<std::string>{"--method", "POST"}, std::vector<std::string>{"--body", "{}"}}) {
    std::vector<std::string> args{"run", "--mode", "occ", "--url", "http://127.0.0.1:9/row"};
    args.insert(args.end(), flag.begin(), flag.end());
    const auto r = run_binary("loadgen", args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(contains(r.err, flag[0] + ": occ mode sends GET, then PUT"));
  }
}
