// One truth about the provider: with --provider-admin, run and exec describe the limits the
// fakeprovider enforces (GET /admin/settings), refuse a scenario that says otherwise, and refuse
// an admin API whose data plane is not --url's. The real fakeprovider and the real loadgen.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/scripted_server.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

struct Finished {
  int code = -1;
  std::string out, err;
  nlohmann::json results;  // --out, parsed; null when none was written
};

// loadgen with the summary on stdout and the results in dir, to its exit.
Finished loadgen(const TempDir& dir, std::vector<std::string> args) {
  const std::string out = dir.file("results.json");
  const bool exec = args.front() == "exec";
  const auto at = exec ? std::find(args.begin(), args.end(), "--") : args.end();
  args.insert(at, {"--out", out, "--no-report"});
  Process p(bin_path("loadgen"), args, dir, "loadgen", kNoProxyForLoopback);
  Finished f;
  f.code = p.wait();
  f.out = p.out();
  f.err = p.err();
  if (std::filesystem::exists(out)) f.results = nlohmann::json::parse(read_file(out));
  return f;
}

std::vector<std::string> small_run(const FakeProvider& p) {
  return {"run", "--url", p.url(), "--provider-admin", p.admin(), "--clients", "5"};
}

std::vector<std::string> small_exec(const FakeProvider& p) {
  return {"exec",    "--clients", "2",        "--url", p.url(), "--provider-admin",
          p.admin(), "--",        "/bin/true"};
}

std::vector<std::string> plus_flags(std::vector<std::string> args,
                                    const std::vector<std::string>& more) {
  const auto at = args.front() == "exec" ? std::find(args.begin(), args.end(), "--") : args.end();
  args.insert(at, more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("live: a scenario that says other limits than the provider enforces is refused") {
  FakeProvider p({"--allowance", "1000/s"});
  REQUIRE(p.started());
  const std::string expected =
      "loadgen: loadgen's scenario says allowance 4000/min, outages 0s-20s:503, the provider at " +
      p.admin() +
      " enforces allowance 1000/s, outages none: start fakeprovider with the same --scenario and "
      "flags, or drop --allowance and --outage (loadgen then takes the provider's)\n";
  for (const auto& base : {small_run(p), small_exec(p)}) {
    CAPTURE(base.front());
    TempDir dir;
    const auto r =
        loadgen(dir, plus_flags(base, {"--allowance", "4000/min", "--outage", "0s-20s:503"}));
    CHECK(r.code == 2);
    CHECK(r.err == expected);
    CHECK(r.results.is_null());
  }
  // Nothing was sent: the refusal came before any load.
  CHECK(p.stats().at("requests") == 0);
}

TEST_CASE("live: without an allowance of its own, loadgen describes the provider's") {
  FakeProvider p({"--allowance", "1000/s", "--limiter", "token-bucket"});
  REQUIRE(p.started());
  for (const auto& base : {small_run(p), small_exec(p)}) {
    CAPTURE(base.front());
    TempDir dir;
    const auto r = loadgen(dir, base);
    INFO("stderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "provider: allowance 1000/s (token-bucket)\n"));
    CHECK_FALSE(contains(r.out, "unlimited"));
    REQUIRE(r.results.is_object());
    CHECK(r.results.at("scenario").at("provider").at("allowance") == "1000/s");
    CHECK(r.results.at("scenario").at("provider").at("limiter") == "token-bucket");
    CHECK(r.results.at("provider").at("settings").at("provider").at("allowance") == "1000/s");
    CHECK(r.results.at("provider").at("settings").at("port") == p.data_port());
  }
  // The same allowance given is no disagreement.
  TempDir dir;
  const auto same = loadgen(dir, plus_flags(small_run(p), {"--allowance", "1000/s"}));
  CHECK(same.code == 0);
  CHECK(contains(same.out, "provider: allowance 1000/s (token-bucket)\n"));
}

TEST_CASE("live: an admin API whose data plane is not --url's port is refused") {
  // Two fakeproviders: the fleet would load one and read the other's record.
  FakeProvider loaded({"--allowance", "1000/s"});
  FakeProvider other({"--allowance", "1000/s"});
  REQUIRE(loaded.started());
  REQUIRE(other.started());
  const std::string expected =
      "loadgen: --url " + loaded.url() + " is port " + std::to_string(loaded.data_port()) +
      ", but the provider at " + other.admin() +
      " serves its data plane at http://127.0.0.1:" + std::to_string(other.data_port()) +
      ": point --url at that port, or --provider-admin at the admin API of the fakeprovider on "
      "port " +
      std::to_string(loaded.data_port()) + "\n";
  for (const std::string command : {"run", "exec"}) {
    CAPTURE(command);
    TempDir dir;
    std::vector<std::string> args = {command,       "--url",     loaded.url(), "--provider-admin",
                                     other.admin(), "--clients", "2"};
    if (command == "exec") args.insert(args.end(), {"--", "/bin/true"});
    const auto r = loadgen(dir, args);
    CHECK(r.code == 2);
    CHECK(r.err == expected);
    CHECK(r.results.is_null());
  }
  CHECK(loaded.stats().at("requests") == 0);
}

TEST_CASE("live: a check on the allowance is held to the provider's, given none to loadgen") {
  FakeProvider limited({"--allowance", "1000/s"});
  FakeProvider unlimited({});
  REQUIRE(limited.started());
  REQUIRE(unlimited.started());
  for (const auto& base : {small_run(limited), small_exec(limited)}) {
    CAPTURE(base.front());
    TempDir dir;
    const auto r = loadgen(dir, plus_flags(base, {"--assert", "peak_ratio <= 2"}));
    INFO("stderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "PASS  peak_ratio <= 2"));
  }
  // A provider without one leaves the check meaningless: refused before any load.
  for (const auto& base : {small_run(unlimited), small_exec(unlimited)}) {
    CAPTURE(base.front());
    TempDir dir;
    const auto r = loadgen(dir, plus_flags(base, {"--assert", "peak_ratio <= 2"}));
    CHECK(r.code == 2);
    CHECK(contains(r.err, "peak_ratio"));
    CHECK(contains(r.err, "allowance"));
    CHECK(r.results.is_null());
  }
  CHECK(unlimited.stats().at("requests") == 0);
}

TEST_CASE("live: a provider that does not say what it enforces is refused, not described") {
  // A fakeprovider from before GET /admin/settings: its stats answer, its settings are a 404.
  FakeProvider p({"--allowance", "1000/s"});
  REQUIRE(p.started());
  const auto stats = http(p.admin_port(), "GET", "/admin/stats");
  REQUIRE(stats.status == 200);
  const auto answer = [](const std::string& status, const std::string& body) {
    return Answer{"HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body,
                  true};
  };
  ScriptedServer old({answer("200 OK", stats.body), answer("404 Not Found", "{}")});
  const std::string admin =
      "http://127.0.0.1:" + old.url().substr(17, old.url().find('/', 17) - 17);
  TempDir dir;
  const auto r =
      loadgen(dir, {"run", "--url", p.url(), "--provider-admin", admin, "--clients", "2"});
  CHECK(r.code == 2);
  CHECK(r.err == "loadgen: --provider-admin " + admin +
                     " does not say which settings it enforces (GET /admin/settings answered 404): "
                     "a fakeprovider older than this loadgen; run one of the same version\n");
  CHECK(r.results.is_null());
  CHECK(p.stats().at("requests") == 0);
}
