// Issue 14: a server answering a Retry-After of a trillion seconds, thirty digits or the year
// 9999, followed exactly or with jitter, crashed loadgen (std::bad_alloc, exit 134, no files)
// through either HTTP client, and against fakeprovider at --time-scale 10 a 300,000-hour
// outage made it ignore --max-duration. Now the retry is due after --max-duration, so the
// item waits unscheduled until the stop leaves it unfinished: exit 1, as for any run stopped
// with items unfinished, with the results and the dead letters written.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/loadgen_run.hpp"
#include "support/scripted_server.hpp"

using namespace support;

namespace {

constexpr const char* kHostileHints[] = {"1000000000000", "123456789012345678901234567890",
                                         "Fri, 31 Dec 9999 23:59:59 GMT"};

// Exit code of a run stopped by --max-duration (or a signal) with items unfinished.
constexpr int kStoppedUnfinished = 1;

std::string unavailable_for(const std::string& hint) {
  return "HTTP/1.1 503 Service Unavailable\r\nRetry-After: " + hint +
         "\r\nContent-Length: 0\r\n\r\n";
}

struct Timed {
  Run run;
  double wall_s;
};

Timed timed_run(const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  Run r = run_loadgen(args);
  return {std::move(r),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// Two clients, one item each, each told to come back after the end of time.
void check_stopped_with_both_unfinished(const Timed& t) {
  const Run& r = t.run;
  INFO(r.err);
  CHECK(r.code == kStoppedUnfinished);
  REQUIRE(r.results.is_object());
  const auto& counts = r.results["counts"];
  CHECK(counts["requests"] == 2);  // one send each: no retry went "at once"
  CHECK(counts["unfinished"] == 2);
  CHECK(counts["delivered"] == 0);
  CHECK(r.results["live"]["stopped"] == "max_duration");
  CHECK(r.results.dump(1).size() < 1'000'000);
  REQUIRE(r.dead_letters.size() == 2);
  for (const auto& d : r.dead_letters) CHECK(d["reason"] == "unfinished");
  // --max-duration of a second or two and --grace 100ms; the bound is generous for a shared
  // machine.
  CHECK(t.wall_s < 20);
}

void run_against_hostile_server(const std::string& client, const std::string& mode,
                                const std::string& time_scale) {
  for (const std::string hint : kHostileHints) {
    CAPTURE(hint);
    ScriptedServer server({{unavailable_for(hint)}});
    // A scripted server is no fakeprovider: its scaled clock is allowed, not known.
    const auto t =
        timed_run({"--url", server.url(), "--clients", "2", "--retry-after", mode, "--http-client",
                   client, "--time-scale", time_scale, "--allow-time-scale", "--max-duration", "1s",
                   "--grace", "100ms", "--timeout", "5s"});
    check_stopped_with_both_unfinished(t);
    CHECK(server.requests().size() == 2);
  }
}

}  // namespace

TEST_CASE("hostile Retry-After, native client, exact: stops at --max-duration, items unfinished") {
  run_against_hostile_server("native", "exact", "1");
}

TEST_CASE("hostile Retry-After, native client, jittered, --time-scale 0.1: the same") {
  // A date's distance is wall time: divided by 0.1 it is past int64 even before the sum.
  run_against_hostile_server("native", "jittered", "0.1");
}

TEST_CASE("hostile Retry-After, libcurl, exact, --time-scale 10: the same") {
  run_against_hostile_server("libcurl", "exact", "10");
}

TEST_CASE("hostile Retry-After, libcurl, jittered: the same") {
  run_against_hostile_server("libcurl", "jittered", "1");
}

TEST_CASE("a 300,000-hour fakeprovider outage at --time-scale 10 ends at --max-duration") {
  // The provider's Retry-After is 1.08e9 scenario s: at scale 10 past int64 ns on the wall.
  // Two seconds to run: under TSan beside other cases, 500 ms saw neither first send answered.
  FakeProvider provider({"--outage", "0s-300000h:503", "--time-scale", "10"});
  REQUIRE(provider.started());
  for (const std::string mode : {"exact", "jittered"}) {
    CAPTURE(mode);
    const auto t = timed_run({"--url", provider.url(), "--provider-admin", provider.admin(),
                              "--clients", "2", "--retry-after", mode, "--time-scale", "10",
                              "--max-duration", "2s", "--grace", "100ms"});
    check_stopped_with_both_unfinished(t);
  }
}
