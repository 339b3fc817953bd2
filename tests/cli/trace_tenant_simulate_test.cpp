// loadgen simulate --workload trace with tenants and tokens from the trace: the simulated
// provider keys its per-tenant allowances by each item's tenant and charges its tokens, as the
// live provider does; --trace-tenant naming a field the trace lacks is a usage error.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

// One heavy tenant's burst of 20 and three light tenants' 2 each, within a second.
std::string burst_csv() {
  std::string text = "time,tenant,user\n";
  for (int i = 0; i < 20; ++i) text += "0." + std::to_string(100 + i) + ",heavy,u\n";
  for (const char* tenant : {"a", "b", "c"})
    for (int i = 0; i < 2; ++i) text += "0." + std::to_string(500 + i) + "," + tenant + ",u\n";
  return text;
}

struct TenantSimulated {
  int code = 0;
  std::string err;
  json counts;
};

TenantSimulated simulate_trace(const std::string& trace, std::vector<std::string> args) {
  const TempDir dir;
  const std::vector<std::string> base{"simulate",
                                      "--workload",
                                      "trace",
                                      "--trace",
                                      trace,
                                      "--strategy",
                                      "none",
                                      "--max-attempts",
                                      "1",
                                      "--out",
                                      dir.file("r.json"),
                                      "--no-report",
                                      "-q",
                                      "--expect-none"};
  args.insert(args.begin(), base.begin(), base.end());
  const auto r = run_binary("loadgen", args);
  TenantSimulated out{r.code, r.err, {}};
  if (r.code == 0) out.counts = json::parse(read_file(dir.file("r.json")))["counts"];
  return out;
}

}  // namespace

TEST_CASE("simulate: a trace's tenants each have their own allowance") {
  const TempDir dir;
  const auto trace = dir.write("burst.csv", burst_csv());
  // 5 a second each: the heavy tenant's 15 past it are refused (and once more on their retry),
  // the light tenants' 6 all pass.
  const auto keyed = simulate_trace(trace, {"--allowance", "5/s"});
  INFO(keyed.err);
  REQUIRE(keyed.code == 0);
  CHECK(keyed.counts["delivered"] == 5 + 6);
  CHECK(keyed.counts["dead_lettered"] == 15);
  CHECK(keyed.counts["requests"] == 26 + 15);
  // One tenant for all (none, or a column every line shares): 5 of the 26 pass.
  for (const char* field : {"none", "user"}) {
    CAPTURE(field);
    const auto one = simulate_trace(trace, {"--allowance", "5/s", "--trace-tenant", field});
    INFO(one.err);
    REQUIRE(one.code == 0);
    CHECK(one.counts["delivered"] == 5);
  }
}

TEST_CASE("simulate: a trace's tokens are charged to its tenant's token allowance") {
  const TempDir dir;
  const auto trace =
      dir.write("tokens.csv", "time,tenant,tokens\n0.0,a,60\n0.1,b,10\n0.2,a,60\n0.3,b,10\n");
  // a's second 60 is past its 100 an hour; b's 20 are within its own.
  const auto r = simulate_trace(trace, {"--token-allowance", "100/h", "--limiter", "fixed-window"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.counts["delivered"] == 3);
  CHECK(r.counts["dead_lettered"] == 1);
  // --tokens declares for the lines that give none; the trace's own win.
  const auto declared = simulate_trace(
      trace, {"--token-allowance", "100/h", "--limiter", "fixed-window", "--tokens", "1"});
  CHECK(declared.counts["delivered"] == 3);
}

TEST_CASE("simulate: --trace-tenant naming a field the trace lacks is a usage error") {
  const TempDir dir;
  const auto csv = dir.write("t.csv", "time,tenant\n1,a\n");
  const auto no_column = simulate_trace(csv, {"--trace-tenant", "api_key"});
  CHECK(no_column.code == 2);
  CHECK(no_column.err.find("--trace-tenant api_key: the CSV header has no such column; its "
                           "columns are time, tenant") != std::string::npos);
  const auto log = dir.write("keyed.log", "10.0.0.1 \"k1\" 1767225600.100 \"GET / HTTP/1.1\"\n");
  const auto no_variable = simulate_trace(log, {"--trace-format",
                                                "nginx:$remote_addr \"$http_x_api_key\" $msec "
                                                "\"$request\"",
                                                "--trace-tenant", "$http_authorization"});
  CHECK(no_variable.code == 2);
  CHECK(no_variable.err.find("--trace-tenant http_authorization: the log format has no such "
                             "variable; its variables are remote_addr, http_x_api_key, msec, "
                             "request") != std::string::npos);
}

TEST_CASE("simulate --help explains --trace-tenant") {
  const auto help = run_binary("loadgen", {"simulate", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("--trace-tenant FIELD") != std::string::npos);
}
