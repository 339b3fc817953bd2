// The mistakes of a first hour, each run with the real binaries: every message names what was
// wrong AND what to do (the flag, the key, the help to read), exits with its code, and never
// shows a library's own text ("[json.exception", "std::bad_alloc").
#include <doctest/doctest.h>

#include <csignal>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

// What a bad input must say, and must not.
struct Expected {
  int code;
  std::vector<std::string> wanted;  // what was wrong, and the fix
  std::vector<std::string> unwanted = {};
};

// No library's words, whatever the input.
const std::vector<std::string> kLibraryText = {"json.exception", "bad_alloc", "what()",
                                               "terminate"};

void check_said(const Exited& r, const Expected& e) {
  CAPTURE(r.err);
  CHECK(r.code == e.code);
  for (const auto& w : e.wanted) {
    CAPTURE(w);
    CHECK(contains(r.err, w));
  }
  auto unwanted = e.unwanted;
  unwanted.insert(unwanted.end(), kLibraryText.begin(), kLibraryText.end());
  for (const auto& u : unwanted) {
    CAPTURE(u);
    CHECK_FALSE(contains(r.err, u));
  }
}

void check_loadgen(const std::vector<std::string>& args, const Expected& e) {
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  CAPTURE(joined);
  check_said(run_binary("loadgen", args), e);
}

// A scenario file with this text, for `loadgen simulate --scenario`.
std::string scenario_file(const TempDir& dir, const std::string& name, const std::string& text) {
  const auto path = dir.file(name);
  write_file(path, text);
  return path;
}

}  // namespace

TEST_CASE("first hour: invalid JSON in a scenario says its line and column and what to fix") {
  TempDir dir;
  const auto path =
      scenario_file(dir, "comma.json", "{\n  \"fleet\": {\n    \"clients\": 10,\n  }\n}\n");
  check_loadgen({"simulate", "--scenario", path},
                {2, {path, "not valid JSON", "line 4, column 3", "fix the text there"}});
}

TEST_CASE("first hour: a provider key at the top of a scenario points to its section") {
  TempDir dir;
  const auto path = scenario_file(dir, "top.json", R"({"allowance": "10/s"})");
  check_loadgen({"simulate", "--scenario", path},
                {2, {"unknown key 'allowance'", "provider.allowance", "provider"}});
  // A fleet key in the provider's section: the other way round.
  const auto fleet = scenario_file(dir, "fleet.json", R"({"provider": {"clients": 10}})");
  check_loadgen({"simulate", "--scenario", fleet}, {2, {"fleet.clients"}});
}

TEST_CASE("first hour: a bad enum value gets the nearest name, by flag or by scenario path") {
  TempDir dir;
  const auto path = scenario_file(dir, "enum.json", R"({"fleet": {"strategy": "ful-jitter"}})");
  check_loadgen(
      {"simulate", "--scenario", path},
      {2, {"fleet.strategy: 'ful-jitter'", "did you mean 'full-jitter'?"}, {"--strategy"}});
  // Typed as a flag, it is named as the flag its user typed.
  check_loadgen({"simulate", "--strategy", "ful-jitter"},
                {2, {"--strategy (fleet.strategy): 'ful-jitter'", "did you mean 'full-jitter'?"}});
  check_loadgen({"simulate", "--limiter", "fixed-windw"},
                {2, {"--limiter (provider.limiter): ", "did you mean 'fixed-window'?"}});
  const auto provider = run_provider_to_exit({"--limiter", "token-buckt"});
  check_said(provider, {2, {"--limiter (provider.limiter): ", "did you mean 'token-bucket'?"}});
}

TEST_CASE("first hour: simulate --retry-after off points to --provider-retry-after") {
  // The fleet's --retry-after is what clients do with the header; the provider's on|off is
  // --provider-retry-after.
  check_loadgen({"simulate", "--retry-after", "off"},
                {2, {"--retry-after (fleet.retry_after): 'off'", "--provider-retry-after off"}});
}

TEST_CASE("first hour: fakeprovider --port suggests --listen") {
  check_said(run_provider_to_exit({"--port", "9000"}),
             {2, {"unknown flag '--port'", "did you mean '--listen'?"}});
  check_said(run_provider_to_exit({"--admin-port", "9001"}),
             {2, {"did you mean '--admin-listen'?"}});
}

TEST_CASE("first hour: a command's missing flag points to that command's help") {
  check_loadgen({"exec", "--clients", "2", "--url", "http://127.0.0.1:1/", "--", "true"},
                {2, {"--provider-admin", "loadgen exec --help"}, {"'loadgen --help'"}});
}

// A sanitizer reserves terabytes of address space first: under ulimit -v it cannot start.
TEST_CASE("first hour: out of memory is a plain error, never an abort" *
          doctest::skip(support::kSanitized)) {
  // A memory limit far below what a hundred million clients take.
  const auto r = run_program("/bin/sh", {"-c",
                                         "ulimit -v 400000; exec \"$0\" simulate --clients "
                                         "100000000 --quiet",
                                         bin_path("loadgen")});
  check_said(r, {3, {"out of memory", "--clients", "--shard"}});
}

TEST_CASE("first hour: the admin port mistaken, missing, or the data port in its place") {
  FakeProvider p({});
  REQUIRE(p.started());
  const auto data_port = "http://127.0.0.1:" + std::to_string(p.data_port());
  // The data port answers JSON that is not the stats.
  check_loadgen(
      {"run", "--url", p.url(), "--clients", "2", "--provider-admin", data_port, "--no-report"},
      {2,
       {"--provider-admin " + data_port, "not a fakeprovider admin API", "--admin-listen",
        "--listen"}});
  // Nothing listens there: the admin port did not move with --listen.
  const RefusedPort nothing;
  check_loadgen({"run", "--url", p.url(), "--clients", "2", "--provider-admin",
                 "http://127.0.0.1:" + std::to_string(nothing.port()), "--no-report"},
                {3, {"provider admin unreachable", "--admin-listen", "--listen"}});
  check_loadgen({"exec", "--clients", "2", "--url", p.url(), "--provider-admin",
                 "http://127.0.0.1:" + std::to_string(nothing.port()), "--", "true"},
                {3, {"provider admin unreachable", "--admin-listen"}});
}

TEST_CASE("first hour: an exec whose program failed names --logs DIR") {
  FakeProvider p({});
  REQUIRE(p.started());
  check_loadgen({"exec", "--clients", "3", "--url", p.url(), "--provider-admin", p.admin(), "--",
                 "sh", "-c", "echo boom >&2; exit 1"},
                {1, {"3 of 3 processes failed", "--logs DIR"}});
  TempDir logs;
  check_loadgen({"exec", "--clients", "2", "--url", p.url(), "--provider-admin", p.admin(),
                 "--logs", logs.path(), "--", "sh", "-c", "exit 1"},
                {1, {"2 of 2 processes failed", logs.path() + "/client-ID.log"}, {"--logs DIR"}});
}

TEST_CASE("first hour: fakeprovider counts one request in the singular") {
  FakeProvider p({});
  REQUIRE(p.started());
  REQUIRE(http(p.data_port(), "GET", "/v1/messages").status == 200);
  CHECK(p.stop() == 0);
  CAPTURE(p.err());
  CHECK(contains(p.err(), "after 1 request ("));
}

TEST_CASE("first hour: an outage started mid-millisecond is echoed in readable units") {
  FakeProvider p({});
  REQUIRE(p.started());
  const auto r = http(p.admin_port(), "POST", "/admin/outage?for=30s&status=529");
  REQUIRE(r.status == 200);
  const auto echo = nlohmann::json::parse(r.body).at("outage").get<std::string>();
  CAPTURE(echo);
  // "16.768ms-30.016s:529", never "16768.952us-30016768.952us:529".
  CHECK(echo.find("us") == std::string::npos);
  CHECK(echo.ends_with("s:529"));
}
