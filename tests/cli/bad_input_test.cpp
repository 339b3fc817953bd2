// Bad input everywhere gets exit 2 and exactly one line on stderr naming the problem: every
// flag of every subcommand and of fakeprovider given a bad value, every scenario key given a
// bad value, unknown keys, and results files report cannot read. The simulate rows of
// loadgen_cli_test.cpp and fakeprovider's own (tests/provider/cli_test.cpp) are not repeated.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

// Nothing listens on port 1: a run that wrongly accepted its input fails fast, not hangs.
const std::vector<std::string> kRun{"run",
                                    "--url",
                                    "http://127.0.0.1:1/",
                                    "--time-scale",
                                    "0.001",
                                    "--allow-time-scale",
                                    "--max-duration",
                                    "2s",
                                    "--no-report"};
// A server that wrongly started is killed after this, and the row fails.
constexpr int kBadInputBoundMs = 30'000;

struct Row {
  std::string binary;
  std::vector<std::string> args;
  std::vector<std::string> wanted;  // every one must be on the line
};

void check_usage_error(const Row& row) {
  std::string joined = row.binary;
  for (const auto& a : row.args) joined += " '" + a + "'";
  CAPTURE(joined);
  const auto r = run_binary(row.binary, row.args, kBadInputBoundMs);
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  // One line: a single newline, at the end.
  CHECK(r.err.find('\n') == r.err.size() - 1);
  CHECK(r.err.rfind(row.binary + ": ", 0) == 0);
  for (const auto& want : row.wanted) {
    CAPTURE(want);
    CHECK(r.err.find(want) != std::string::npos);
  }
}

void check_all(const std::vector<Row>& rows) {
  for (const auto& row : rows) check_usage_error(row);
}

Row simulate(std::vector<std::string> args, std::vector<std::string> wanted) {
  return {"loadgen", with({"simulate", "--scenario", kStorm}, args), std::move(wanted)};
}

}  // namespace

TEST_CASE("simulate: every fleet and provider flag given a bad value" *
          doctest::test_suite("long")) {
  check_all({
      simulate({"--clients", "abc"}, {"fleet.clients", "'abc'"}),
      simulate({"--clients", "-1"}, {"fleet.clients", "'-1'"}),
      simulate({"--clients", "0"}, {"fleet.clients", "at least 1"}),
      simulate({"--clients", "1000000000"}, {"fleet.clients", "at most"}),
      simulate({"--items", "many"}, {"fleet.items", "'many'"}),
      simulate({"--items", "9223372036854775807"}, {"fleet.items", "at most"}),
      simulate({"--workload", "steady", "--rate", "9223372036854775807/s", "--duration", "1h"},
               {"fleet.items", "at most"}),
      simulate({"--workload", "steady", "--rate", "100/sec", "--duration", "10s"},
               {"fleet.rate", "'100/sec'"}),
      simulate({"--workload", "steady", "--rate", "0/s", "--duration", "10s"},
               {"fleet.rate", "'0/s'", "positive"}),
      simulate({"--workload", "steady", "--rate", "-5/min", "--duration", "10s"},
               {"fleet.rate", "'-5/min'"}),
      simulate({"--workload", "steady", "--rate", "abc", "--duration", "10s"},
               {"fleet.rate", "'abc'"}),
      simulate({"--rate", "10/s"}, {"fleet.rate", "only the steady workload"}),
      simulate({"--duration", "0s"}, {"fleet.duration", "'0s'", "longer than zero"}),
      simulate({"--duration", "-1s"}, {"fleet.duration", "'-1s'"}),
      simulate({"--duration", "5parsecs"}, {"fleet.duration", "'5parsecs'", "unknown unit"}),
      simulate({"--duration", "1e999s"}, {"fleet.duration", "'1e999s'"}),
      simulate({"--duration", ""}, {"fleet.duration", "empty"}),
      simulate({"--base", "5parsecs"}, {"fleet.base", "'5parsecs'"}),
      simulate({"--cap", "abc"}, {"fleet.cap", "'abc'"}),
      simulate({"--max-attempts", "-1"}, {"fleet.max_attempts", "'-1'"}),
      simulate({"--deadline", "0s"}, {"fleet.deadline", "'0s'"}),
      simulate({"--retry-after", "maybe"}, {"fleet.retry_after", "'maybe'"}),
      simulate({"--retry-budget", "10"}, {"fleet.retry_budget", "'10'", "MAX_TOKENS,RATIO"}),
      simulate({"--retry-budget", "10,2"}, {"fleet.retry_budget", "'10,2'"}),
      simulate({"--breaker", "5"}, {"fleet.breaker", "'5'", "FAILURES,COOLDOWN"}),
      simulate({"--breaker", "0,30s"}, {"fleet.breaker", "'0,30s'"}),
      simulate({"--timeout", "-1s"}, {"fleet.timeout", "'-1s'"}),
      simulate({"--seed", "abc"}, {"fleet.seed", "'abc'"}),
      simulate({"--input-tokens", "abc"}, {"fleet.tokens", "'abc'"}),
      simulate({"--input-tokens", "-100"}, {"fleet.tokens", "'-100'"}),
      simulate({"--allowance", "0/s"}, {"provider.allowance", "'0/s'"}),
      simulate({"--allowance", "-5/min"}, {"provider.allowance", "'-5/min'"}),
      simulate({"--allowance", "abc"}, {"provider.allowance", "'abc'"}),
      simulate({"--limiter", "leaky"}, {"provider.limiter", "'leaky'"}),
      simulate({"--burst", "lots"}, {"provider.burst", "'lots'"}),
      simulate({"--limiter", "token-bucket", "--burst", "0"}, {"provider.burst", "at least 1"}),
      simulate({"--capacity", "100/sec"}, {"provider.capacity", "'100/sec'"}),
      simulate({"--outage", "0s-5parsecs"}, {"provider.outages", "'0s-5parsecs'"}),
      simulate({"--outage", "0s-30s:404"}, {"provider.outages", "'0s-30s:404'"}),
      simulate({"--outage", "0s-30s", "--outage", "10s-40s"}, {"provider.outages", "overlap"}),
      simulate({"--error-rate", "-0.5"}, {"provider.error_rate", "'-0.5'"}),
      simulate({"--error-rate", "nan"}, {"provider.error_rate", "'nan'"}),
      simulate({"--latency", "20ms-5ms"}, {"provider.latency", "'20ms-5ms'"}),
      simulate({"--latency", "5parsecs"}, {"provider.latency", "'5parsecs'"}),
      simulate({"--tenant-header", ""}, {"provider.tenant_header"}),
      simulate({"--tenant-header", "X Api Key"}, {"provider.tenant_header", "'X Api Key'"}),
      simulate({"--provider-retry-after", "maybe"}, {"provider.retry_after", "'maybe'"}),
      simulate({"--ratelimit-headers", "draft"}, {"provider.ratelimit_headers", "'draft'"}),
      simulate({"--provider-seed", "-1"}, {"provider.seed", "'-1'"}),
      simulate({"--horizon", "0s"}, {"--horizon"}),
      simulate({"--horizon", "forever"}, {"--horizon", "'forever'"}),
      simulate({"--strategy", "full-jitter\nX"}, {"fleet.strategy", "'full-jitter\\nX'"}),
      simulate({"--clients"}, {"--clients"}),
  });
}

TEST_CASE("simulate and run: assertion expressions that do not parse") {
  for (const auto& base : {std::vector<std::string>{"simulate", "--scenario", kStorm}, kRun}) {
    CAPTURE(base.front());
    check_all({
        {"loadgen",
         with(base, {"--assert", "peak_ratio <="}),
         {"'peak_ratio <='", "nothing to compare with"}},
        {"loadgen", with(base, {"--assert", "nosuchmetric < 3"}), {"'nosuchmetric'", "peak_ratio"}},
        {"loadgen", with(base, {"--assert", "requests < abc"}), {"'abc'", "neither a number"}},
        {"loadgen", with(base, {"--assert", "requests"}), {"no comparison operator"}},
        {"loadgen", with(base, {"--assert", "requests < nan"}), {"'nan'"}},
        {"loadgen", with(base, {"--assert", "requests < 1e999"}), {"'1e999'"}},
    });
  }
}

TEST_CASE("run: every target and run flag given a bad value" * doctest::test_suite("long")) {
  const TempDir dir;
  const auto empty_keys = dir.write("keys.txt", "# none\n\n");
  const auto crlf_keys = dir.write("ctl.txt", "a\x01key\n");
  const auto run = [](std::vector<std::string> args, std::vector<std::string> wanted) {
    return Row{"loadgen", with(kRun, args), std::move(wanted)};
  };
  const auto url = [](const std::string& u, std::vector<std::string> wanted) {
    return Row{"loadgen", {"run", "--url", u}, std::move(wanted)};
  };
  check_all({
      url("htp://x", {"--url", "'htp://x'"}),
      url("http://", {"--url", "'http://'"}),
      url("http://127.0.0.1:99999", {"--url", "'http://127.0.0.1:99999'"}),
      url("http://127.0.0.1:0/", {"--url", "port"}),
      url("http://a b/", {"--url", "'http://a b/'"}),
      url(" ", {"--url"}),
      url("", {"--url"}),
      url("127.0.0.1:8080", {"--url", "'127.0.0.1:8080'"}),
      url("ftp://127.0.0.1/", {"--url", "'ftp'"}),
      run({"--header", "NoColon"}, {"--header", "'NoColon'"}),
      run({"--header", ": empty name"}, {"--header", "': empty name'"}),
      run({"--header", "X-Ok: a\r\nInjected: b"}, {"--header", "control character", "\\r\\n"}),
      run({"--header", "X-Ok: a\nb"}, {"--header", "control character"}),
      run({"--header", "Bad Name: v"}, {"--header", "'Bad Name: v'"}),
      run({"--method", "GE T"}, {"--method", "'GE T'"}),
      run({"--body", "@" + dir.file("missing.txt")}, {"--body", "missing.txt"}),
      run({"--api-key", "a\nb"}, {"--api-key"}),
      run({"--api-keys-file", dir.file("missing.txt")}, {"--api-keys-file"}),
      run({"--api-keys-file", empty_keys}, {"--api-keys-file", "no keys"}),
      run({"--api-keys-file", crlf_keys}, {"--api-keys-file", "line 1"}),
      run({"--provider-admin", "htp://x"}, {"--provider-admin", "'htp://x'"}),
      run({"--time-scale", "0"}, {"--time-scale"}),
      {"loadgen",
       {"run", "--url", "http://127.0.0.1:1/", "--time-scale", "abc"},
       {"--time-scale", "'abc'"}},
      run({"--time-scale", "-1"}, {"--time-scale"}),
      run({"--max-duration", "0s"}, {"--max-duration"}),
      {"loadgen",
       {"run", "--url", "http://127.0.0.1:1/", "--max-duration", "5parsecs"},
       {"--max-duration", "'5parsecs'"}},
      run({"--grace", "-1s"}, {"--grace", "'-1s'"}),
      run({"--loops", "many"}, {"--loops"}),
      run({"--loops", "-1"}, {"--loops"}),
      run({"--scenario", dir.file("missing.json")}, {"--scenario"}),
      run({"--clients", "0"}, {"fleet.clients"}),
      run({"--allowance", "100/sec"}, {"provider.allowance", "'100/sec'"}),
      {"loadgen", {"run"}, {"--url"}},
  });
}

TEST_CASE("report: results files it cannot read are one line naming the file") {
  const TempDir dir;
  const std::string whole = read_file(kStormResults);
  REQUIRE(whole.size() > 1000);
  const auto not_json = dir.write("not.json", "this is not JSON\n");
  const auto array = dir.write("array.json", "[1, 2, 3]\n");
  const auto other = dir.write("other.json", R"({"format": 1, "engine": "simulate"})");
  const auto scenario = dir.write("scenario.json", read_file(kStorm));
  const auto truncated = dir.write("truncated.json", whole.substr(0, whole.size() / 2));
  const auto wrong_type = dir.write(
      "wrong_type.json", R"({"format": 1, "engine": 7, "stampede_version": "x", "scenario": {}})");
  auto overflowing = nlohmann::json::parse(whole);
  overflowing["distributions"]["item_latency_ns"]["buckets"] = {{INT64_MAX, INT64_MAX},
                                                                {INT64_MAX, 1}};
  const auto overflow = dir.write("overflow.json", overflowing.dump());
  // A bin so wide that a day of them would pass the end of int64 nanoseconds.
  auto wide = nlohmann::json::parse(whole);
  wide["histograms"]["backoff_transitions"]["bin_ms"] = INT64_MAX / 1'000'000;
  const auto wide_bins = dir.write("wide_bins.json", wide.dump());
  const auto out = dir.file("report.html");
  const auto report = [&](std::vector<std::string> args, std::vector<std::string> wanted) {
    args.insert(args.begin(), "report");
    return Row{"loadgen", args, std::move(wanted)};
  };
  // Checked here rather than by check_usage_error: report's lines start "loadgen report: ".
  const std::vector<Row> rows{
      report({dir.file("missing.json"), "-o", out}, {"missing.json"}),
      report({not_json, "-o", out}, {"not.json", "not valid JSON"}),
      report({array, "-o", out}, {"array.json", "not a stampede results document"}),
      report({other, "-o", out}, {"other.json", "malformed"}),
      report({scenario, "-o", out}, {"scenario.json", "not a stampede results document"}),
      report({truncated, "-o", out}, {"truncated.json", "not valid JSON"}),
      report({wrong_type, "-o", out}, {"wrong_type.json", "malformed"}),
      report({overflow, "-o", out}, {"overflow.json", "overflow"}),
      report({wide_bins, "-o", out}, {"wide_bins.json", "bin_ms"}),
      report({dir.path(), "-o", out}, {dir.path()}),
      report({kStormResults, "-o", out, "--label", "a", "--label", "b"}, {"--label"}),
      report({kStormResults}, {"--out"}),
  };
  for (const auto& row : rows) {
    std::string joined;
    for (const auto& a : row.args) joined += " '" + a + "'";
    CAPTURE(joined);
    const auto r = run_binary("loadgen", row.args, kBadInputBoundMs);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find('\n') == r.err.size() - 1);
    CHECK(r.err.rfind("loadgen", 0) == 0);
    for (const auto& want : row.wanted) {
      CAPTURE(want);
      CHECK(r.err.find(want) != std::string::npos);
    }
  }
}

TEST_CASE("advise: every flag given a bad value") {
  const auto advise = [](std::vector<std::string> args, std::vector<std::string> wanted) {
    args.insert(args.begin(), {"advise", "--clients", "400", "--allowance", "4000/min"});
    return Row{"loadgen", args, std::move(wanted)};
  };
  check_all({
      advise({"--clients", "abc"}, {"--clients"}),
      {"loadgen",
       {"advise", "--clients", "400", "--allowance", "0/s"},
       {"provider.allowance", "'0/s'"}},
      advise({"--base", "0s"}, {"fleet.base", "'0s'"}),
      advise({"--cap", "abc"}, {"fleet.cap", "'abc'"}),
      advise({"--base", "10s", "--cap", "1s"}, {"fleet.cap", "below fleet.base"}),
      advise({"--max-attempts", "abc"}, {"--max-attempts"}),
      advise({"--demand", "-5/min"}, {"--demand", "'-5/min'"}),
      advise({"--over", "0s"}, {"--over"}),
      advise({"--over", "5parsecs"}, {"--over", "'5parsecs'"}),
      advise({"--scenario", "/nonexistent/scenario.json"}, {"--scenario"}),
  });
}

TEST_CASE("every scenario key given a bad value, an unknown key, or the wrong shape" *
          doctest::test_suite("long")) {
  const TempDir dir;
  struct FileRow {
    std::string json;
    std::vector<std::string> wanted;
    bool provider_reads = true;  // fakeprovider does not evaluate expectations
  };
  const std::vector<FileRow> rows{
      {R"({"name": null})", {"name", "null"}},
      {R"({"expectations": "peak_ratio <= 2"})", {"expectations", "list"}},
      {R"({"expectations": [3]})", {"expectations", "3"}},
      {R"({"expectations": ["peak_ratio <="]})", {"'peak_ratio <='"}, false},
      {R"({"provider": "fast"})", {"provider", "object"}},
      {R"({"fleet": [1]})", {"fleet", "object"}},
      {R"({"provider": {"allowance": "100/sec"}})", {"provider.allowance", "'100/sec'"}},
      {R"({"provider": {"limiter": "leaky"}})", {"provider.limiter", "'leaky'"}},
      {R"({"provider": {"burst": -3}})", {"provider.burst", "'-3'"}},
      {R"({"provider": {"capacity": "0/s"}})", {"provider.capacity", "'0/s'"}},
      {R"({"provider": {"outages": ["30s-10s"]}})", {"provider.outages", "'30s-10s'"}},
      {R"({"provider": {"outages": [{"start": "0s"}]}})", {"provider.outages"}},
      {R"({"provider": {"error_rate": 1.5}})", {"provider.error_rate", "'1.5'"}},
      {R"({"provider": {"latency": "-5ms"}})", {"provider.latency", "'-5ms'"}},
      {R"({"provider": {"tenant_header": "Bad:Name"}})", {"provider.tenant_header"}},
      {R"({"provider": {"retry_after": "maybe"}})", {"provider.retry_after", "'maybe'"}},
      {R"({"provider": {"ratelimit_headers": "draft"}})", {"provider.ratelimit_headers"}},
      {R"({"provider": {"seed": -1}})", {"provider.seed", "'-1'"}},
      {R"({"provider": {"allowence": "100/s"}})", {"unknown key 'provider.allowence'"}},
      {R"({"fleet": {"clients": 1.5}})", {"fleet.clients", "'1.5'"}},
      {R"({"fleet": {"clients": {"n": 3}}})", {"fleet.clients"}},
      {R"({"fleet": {"workload": "burst"}})", {"fleet.workload", "'burst'"}},
      {R"({"fleet": {"items": "x"}})", {"fleet.items", "'x'"}},
      {R"({"fleet": {"workload": "steady", "rate": "100/sec", "duration": "10s"}})",
       {"fleet.rate", "'100/sec'"}},
      {R"({"fleet": {"workload": "steady", "rate": "10/s"}})", {"fleet.duration"}},
      {R"({"fleet": {"duration": "5parsecs"}})", {"fleet.duration", "'5parsecs'"}},
      {R"({"fleet": {"strategy": "random"}})", {"fleet.strategy", "'random'"}},
      {R"({"fleet": {"base": "0s"}})", {"fleet.base", "'0s'"}},
      {R"({"fleet": {"cap": "1e999s"}})", {"fleet.cap", "'1e999s'"}},
      {R"({"fleet": {"max_attempts": -1}})", {"fleet.max_attempts", "'-1'"}},
      {R"({"fleet": {"deadline": ""}})", {"fleet.deadline", "empty"}},
      {R"({"fleet": {"retry_after": "always"}})", {"fleet.retry_after", "'always'"}},
      {R"({"fleet": {"retry_budget": "x,y"}})", {"fleet.retry_budget", "'x,y'"}},
      {R"({"fleet": {"breaker": "5,0s"}})", {"fleet.breaker", "'5,0s'"}},
      {R"({"fleet": {"timeout": "0s"}})", {"fleet.timeout", "'0s'"}},
      {R"({"fleet": {"seed": "x"}})", {"fleet.seed", "'x'"}},
      {R"({"fleet": {"clients": 10}, "nme": "typo"})", {"unknown key 'nme'"}},
      {R"([1, 2])", {"a scenario is a JSON object"}},
      {"", {"not valid JSON"}},
      {R"({"fleet": {"clients": 10})", {"not valid JSON"}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.json);
    const auto file = dir.write("scenario.json", row.json);
    check_usage_error({"loadgen", {"simulate", "--scenario", file}, row.wanted});
    // fakeprovider serves only the provider section, but refuses a file with any bad key.
    if (!row.provider_reads) continue;
    check_usage_error(
        {"fakeprovider",
         {"--scenario", file, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"},
         row.wanted});
  }
}

TEST_CASE("fakeprovider: the flags its own test does not cover") {
  const auto provider = [](std::vector<std::string> args, std::vector<std::string> wanted) {
    args.insert(args.end(), {"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"});
    return Row{"fakeprovider", args, std::move(wanted)};
  };
  check_all({
      provider({"--allowance", "0/s"}, {"provider.allowance", "'0/s'"}),
      provider({"--allowance", "-5/min"}, {"provider.allowance"}),
      provider({"--burst", "x"}, {"provider.burst", "'x'"}),
      provider({"--capacity", "abc"}, {"provider.capacity", "'abc'"}),
      provider({"--latency", "5parsecs"}, {"provider.latency", "'5parsecs'"}),
      provider({"--tenant-header", ""}, {"provider.tenant_header"}),
      provider({"--provider-seed", "-1"}, {"provider.seed", "'-1'"}),
      provider({"--token-allowance", "80000/fortnight"},
               {"provider.token_allowance", "'80000/fortnight'"}),
      provider({"--spend-cap", "-5"}, {"provider.spend_cap", "'-5'"}),
      provider({"--spend-cap", "1e6"}, {"provider.spend_cap", "'1e6'"}),
      provider({"--token-header", "X Tokens"}, {"provider.token_header", "'X Tokens'"}),
      provider({"--default-tokens", "many"}, {"provider.default_tokens", "'many'"}),
      provider({"--error-rate", "abc"}, {"provider.error_rate", "'abc'"}),
      provider({"--time-scale", "abc"}, {"--time-scale"}),
      provider({"--time-scale", "1e999"}, {"--time-scale"}),
      provider({"--bin", "5parsecs"}, {"--bin", "'5parsecs'"}),
      provider({"--bin", ""}, {"--bin", "empty"}),
      provider({"--threads", "65"}, {"--threads"}),
      provider({"--threads", "-1"}, {"--threads"}),
      provider({"--outage", "0s-30s\n:503"}, {"provider.outages", "\\n"}),
      provider({"--store", "http://127.0.0.1:6379"}, {"--store", "not a redis:// URL"}),
      provider({"--store", "redis://127.0.0.1:0"}, {"--store", "port 1-65535"}),
      provider({"--store", "redis://127.0.0.1:6379/a*b"}, {"--store", "prefix"}),
      provider({"--store", "redis://127.0.0.1:1/x"}, {"--store", "cannot reach Redis"}),
      provider({"--store", "redis://127.0.0.1:1/x", "--allowance", "12345/s", "--limiter",
                "token-bucket"},
               {"--store", "exact arithmetic"}),
      provider({"--store", "redis://127.0.0.1:1/x", "--token-allowance", "12345/s", "--limiter",
                "token-bucket"},
               {"--store", "--token-allowance", "exact arithmetic"}),
      {"fakeprovider", {"--listen", "", "--admin-listen", "127.0.0.1:0"}, {"--listen"}},
      {"fakeprovider",
       {"--listen", "127.0.0.1:0", "--admin-listen", "0.0.0.0:0"},
       {"--admin-listen", "--admin-token"}},
      {"fakeprovider",
       {"--listen", "127.0.0.1:0", "--admin-listen", "[::]:0"},
       {"--admin-listen", "--admin-token"}},
  });
}
