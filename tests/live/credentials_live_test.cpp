// Credentials given to loadgen run (a password in --url, --api-key) reach the target and
// nothing else: not the results, the report, JUnit, the dead letters, the attempts, stdout or
// stderr. The report still says which target the fleet ran against.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

constexpr const char* kPassword = "pa55-in-url";
constexpr const char* kApiKey = "key-given-by-flag";
constexpr const char* kQueryKey = "key-in-query";

// http://127.0.0.1:PORT/v1 -> http://user:PASSWORD@127.0.0.1:PORT/v1?api_key=KEY
std::string with_credentials(const std::string& url) {
  const auto authority = url.find("://") + 3;
  return url.substr(0, authority) + "user:" + kPassword + "@" + url.substr(authority) +
         "?api_key=" + kQueryKey;
}

void check_no_secret(const std::string& what, const std::string& text) {
  CAPTURE(what);
  for (const char* secret : {kPassword, kApiKey, kQueryKey}) {
    CAPTURE(secret);
    CHECK(text.find(secret) == std::string::npos);
  }
}

}  // namespace

TEST_CASE("live: credentials in --url and --api-key appear in no output of loadgen run") {
  FakeProvider p({"--allowance", "10/min", "--limiter", "fixed-window", "--time-scale", "0.1"});
  REQUIRE(p.started());
  TempDir dir;
  const std::vector<std::string> outputs{"results.json", "report.html", "junit.xml", "dead.jsonl",
                                         "attempts.jsonl"};
  // Three retries a second or so apart against 10 a minute for 40 clients at once: 30 are
  // dead-lettered, so the dead letters are not empty. (At 10/s a loaded machine spread the
  // sends over several 100 ms windows at --time-scale 0.1, every client got through and the
  // dead letters were empty; a minute's window is 6 s of wall time.)
  Process run(bin_path("loadgen"),
              {"run",
               "--url",
               with_credentials(p.url()),
               "--api-key",
               kApiKey,
               "--clients",
               "40",
               "--allowance",
               "10/min",
               "--max-attempts",
               "3",
               "--base",
               "1s",
               "--time-scale",
               "0.1",
               "--allow-time-scale",
               "--expect-none",
               "--out",
               dir.file("results.json"),
               "--report",
               dir.file("report.html"),
               "--junit",
               dir.file("junit.xml"),
               "--dead-letter",
               dir.file("dead.jsonl"),
               "--attempts-out",
               dir.file("attempts.jsonl")},
              dir, "loadgen");
  const int code = run.wait(120'000);
  INFO(run.err());
  CHECK(code == 0);
  for (const auto& name : outputs) {
    const auto text = read_file(dir.file(name));
    CAPTURE(name);
    CHECK(!text.empty());
    check_no_secret(name, text);
  }
  check_no_secret("stdout", run.out());
  check_no_secret("stderr", run.err());
  CHECK(!read_json_lines(dir.file("dead.jsonl")).empty());
  // The fleet did send the key: the provider counted the requests as that tenant's.
  CHECK(p.stats()["tenants"].contains(kApiKey));

  const auto results = nlohmann::json::parse(read_file(dir.file("results.json")));
  const std::string target = p.url() + "?api_key=REDACTED";
  CHECK(results["context"]["target"] == target);
  CHECK(results["live"]["url"] == target);
  CHECK(results["context"]["time_scale"] == 0.1);
  CHECK(results["context"]["stopped_by"] == "");
  const auto report = read_file(dir.file("report.html"));
  CHECK(report.find("<td>" + target + "</td>") != std::string::npos);
}

TEST_CASE("live: a target that cannot be reached is named without its credentials") {
  TempDir dir;
  const RefusedPort dead;
  const std::string url = dead.url("/v1");
  Process run(bin_path("loadgen"),
              {"run", "--url", with_credentials(url), "--api-key", kApiKey, "--clients", "2",
               "--junit", dir.file("junit.xml")},
              dir, "loadgen");
  CHECK(run.wait(60'000) == 3);
  CHECK(run.err().find("cannot connect to " + url + "?api_key=REDACTED") != std::string::npos);
  check_no_secret("stderr", run.err());
  check_no_secret("junit", read_file(dir.file("junit.xml")));
  // A malformed --api-key is refused without being echoed.
  Process bad(
      bin_path("loadgen"),
      {"run", "--url", url, "--api-key", std::string(kApiKey) + "\nsecond", "--clients", "1"}, dir,
      "bad");
  CHECK(bad.wait(60'000) == 2);
  CHECK(bad.err().find("--api-key") != std::string::npos);
  check_no_secret("stderr", bad.err());
}
