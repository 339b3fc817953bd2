// loadgen exec --workload trace against the real fakeprovider: a CSV trace the test writes is
// played as processes of curl, one at each line's time, each told its item and its tenant; a
// fleet too small for the arrivals drops the ones that find it full, and counts them.

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "exec_support.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/temp_dir.hpp"

using namespace exec_test;
using support::FakeProvider;
using support::run_exec;
using support::TempDir;

namespace {

constexpr int kLines = 30;
const std::vector<std::string> kTenants{"t0", "t1", "t2"};

// kLines lines over 3 s, the tenants in turn.
std::string csv_trace() {
  std::string csv = "time,tenant,method,path\n";
  for (int i = 0; i < kLines; ++i)
    csv += std::to_string(i / 10) + "." + std::to_string(i % 10) + "," + kTenants[i % 3] +
           ",POST,/v1/messages\n";
  return csv;
}

std::vector<std::string> trace_args(const FakeProvider& p, const std::string& trace,
                                    const std::string& clients) {
  return {"--clients", clients,      "--url",          p.url(),   "--provider-admin",
          p.admin(),   "--workload", "trace",          "--trace", trace,
          "--speed",   "10",         "--max-duration", "30s"};
}

}  // namespace

TEST_CASE("exec --workload trace: each line one process, told its item and tenant") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  const auto trace = dir.write("trace.csv", csv_trace());
  // Each process says what it was told in its own file, then sends as its line's tenant.
  const std::string script =
      "printf '%s %s %s %s %s\\n' \"$1\" \"$STAMPEDE_ITEM\" \"$STAMPEDE_TENANT\" "
      "\"$STAMPEDE_METHOD\" \"$STAMPEDE_PATH\" > " +
      dir.file("told.$STAMPEDE_ITEM") +
      " && exec /usr/bin/curl -sf -o /dev/null -H \"X-Client-Id: item-$1\" -H \"X-Api-Key: $2\" "
      "\"$3\"";
  const auto r = run_exec(dir, trace_args(provider, trace, "30"),
                          {"sh", "-c", script, "sh", "{item}", "{tenant}", "{url}"});
  INFO(r.err);
  CHECK(r.code == 0);
  check_accounted(r.results, kLines);
  CHECK(count(r.results, "delivered") == kLines);
  CHECK(count(r.results, "dropped") == 0);
  CHECK(r.results["exec"]["processes"] == kLines);
  for (int i = 0; i < kLines; ++i) {
    CAPTURE(i);
    const std::string item = std::to_string(i);
    CHECK(support::read_file(dir.file("told." + item)) ==
          item + " " + item + " " + kTenants[i % 3] + " POST /v1/messages\n");
  }
  const auto stats = provider.stats();
  REQUIRE(stats.is_object());
  CHECK(stats["requests"] == kLines);
  for (const auto& t : kTenants) {
    CAPTURE(t);
    CHECK(stats["tenants"][t]["requests"] == kLines / 3);
  }
  // Each item a client of its own to the provider: every send a first, one an item.
  std::int64_t first_sends = 0;
  for (const auto& [second, sends] : sends_per_second(r.results)) first_sends += sends.at("1");
  CHECK(first_sends == kLines);
  // The playback's honesty, as run writes it for a trace: a lag for each process started.
  REQUIRE(r.results.contains("trace"));
  CHECK(r.results["trace"]["first_send_lag_ns"]["count"] == kLines);
}

TEST_CASE("exec --workload trace: a fleet of one drops the arrivals that find it busy") {
  FakeProvider provider({});
  REQUIRE(provider.started());
  TempDir dir;
  const auto trace = dir.write("trace.csv", csv_trace());
  // Each process outlives the 3 s trace at --speed 10: the first arrival takes the one client,
  // every later one finds it busy.
  const auto r = run_exec(
      dir, trace_args(provider, trace, "1"),
      {"sh", "-c", "sleep 1 && exec /usr/bin/curl -sf -o /dev/null \"$1\"", "sh", "{url}"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(count(r.results, "items") == kLines);
  CHECK(count(r.results, "delivered") == 1);
  CHECK(count(r.results, "dropped") == kLines - 1);
  CHECK(count(r.results, "unfinished") == 0);
  CHECK(r.results["exec"]["processes"] == 1);
  CHECK(provider.stats()["requests"] == 1);
}
