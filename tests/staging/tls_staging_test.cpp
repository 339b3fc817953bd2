// `loadgen run` against nginx on loopback as the stand-in staging API: https with a private
// CA the test makes (--cacert, the environment as curl reads it, --insecure), mutual TLS
// (ssl_verify_client on), and plain http behind limit_req.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/nginx.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using nlohmann::json;
using support::contains;
using support::count_status;
using support::EnvChanges;
using support::lines;
using support::NginxOptions;
using support::NginxStaging;
using support::run_loadgen;
using support::start_nginx;

namespace {

constexpr const char* kCurl = "/usr/bin/curl";

// This machine, like many CI images, sets all three for other programs: every run here
// starts without them, and a case adds the ones it is about.
EnvChanges without_ca_variables(const EnvChanges& more = {}) {
  EnvChanges env{{"CURL_CA_BUNDLE", std::nullopt},
                 {"SSL_CERT_DIR", std::nullopt},
                 {"SSL_CERT_FILE", std::nullopt}};
  for (const auto& change : more) {
    std::erase_if(env, [&](const auto& e) { return e.first == change.first; });
    env.push_back(change);
  }
  return env;
}

// A small fleet, bounded: a few seconds at most.
std::vector<std::string> fleet(const std::string& url, std::vector<std::string> more = {}) {
  std::vector<std::string> args{"--url",          url,      "--clients",      "20",    "--strategy",
                                "full-jitter",    "--base", "100ms",          "--cap", "1s",
                                "--max-attempts", "20",     "--max-duration", "20s"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::int64_t count(const json& r, const char* name) {
  return r["counts"][name].get<std::int64_t>();
}

std::string port_of(const std::string& url) {
  const auto colon = url.rfind(':');
  return url.substr(colon + 1, url.find('/', colon) - colon - 1);
}

// nginx over https with the test's certificates; a case skips itself without nginx.
NginxOptions https_options(bool verify_client = false) {
  return {.http = false, .https = true, .verify_client = verify_client};
}

// A run that was stopped before any load: exit 3, one line naming the host (and port) and
// the reason, no results, and nothing in nginx's access log.
void check_stopped_before_load(const support::Run& r, NginxStaging& nginx, const std::string& url,
                               const std::string& reason) {
  INFO("stderr: " << r.err);
  CHECK(r.code == 3);
  const auto lines = support::lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(contains(lines[0], "127.0.0.1:" + port_of(url)));
  CHECK(contains(lines[0], reason));
  CHECK(r.results.is_null());
  CHECK(nginx.stop_and_read_log().empty());
}

}  // namespace

TEST_CASE("https with --cacert: the fleet goes through nginx, its certificate verified") {
  const auto started = start_nginx(https_options());
  if (!started) return;
  NginxStaging& nginx = *started;
  // The certificate names both: each is checked against its subjectAltName.
  std::string host = "127.0.0.1";
  SUBCASE("an address") {}
  SUBCASE("a name") {
    host = "localhost";
  }
  const auto url = nginx.https_url("/v1", host);
  const auto r =
      run_loadgen(fleet(url, {"--cacert", nginx.pki().ca_cert()}), without_ca_variables());
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  CHECK(count(r.results, "delivered") == 20);
  CHECK(r.results["live"]["http_client"] == "libcurl");
  CHECK(r.results["live"]["tls"]["verify_peer"] == true);
  CHECK(r.results["live"]["tls"]["ca_from"] == "--cacert");
  CHECK(r.results["live"]["tls"]["ca_file"] == nginx.pki().ca_cert());
  const auto log = nginx.stop_and_read_log();
  CHECK(count_status(log, 200) == 20);
  CHECK(std::all_of(log.begin(), log.end(), [](const auto& l) { return l.scheme == "https"; }));
}

TEST_CASE("https without the CA: exit 3 before any load, one line naming the host and why") {
  const auto started = start_nginx(https_options());
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto url = nginx.https_url();
  const auto r = run_loadgen(fleet(url), without_ca_variables());
  // libcurl's reason, as curl says it.
  check_stopped_before_load(r, nginx, url, "unable to get local issuer certificate");
  CHECK(contains(r.err, "--cacert"));
}

TEST_CASE("the environment names the CA as curl 7.88 reads it, and curl agrees on each case") {
  const auto started = start_nginx(https_options());
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto& pki = nginx.pki();
  const std::string empty_dir = nginx.file("no-cas");
  std::filesystem::create_directory(empty_dir);
  // A PEM certificate that did not sign the server's.
  const std::string other = pki.client_cert();
  struct Case {
    std::string what;
    EnvChanges env;
    std::vector<std::string> flags;  // loadgen's, and curl's too: they are curl's
    bool through;                    // else exit 3 before any load
  };
  const std::vector<Case> cases{
      {"CURL_CA_BUNDLE", {{"CURL_CA_BUNDLE", pki.ca_cert()}}, {}, true},
      {"SSL_CERT_FILE", {{"SSL_CERT_FILE", pki.ca_cert()}}, {}, true},
      {"SSL_CERT_DIR", {{"SSL_CERT_DIR", pki.ca_dir()}}, {}, true},
      {"CURL_CA_BUNDLE before SSL_CERT_FILE",
       {{"CURL_CA_BUNDLE", other}, {"SSL_CERT_FILE", pki.ca_cert()}},
       {},
       false},
      {"SSL_CERT_DIR before SSL_CERT_FILE",
       {{"SSL_CERT_DIR", empty_dir}, {"SSL_CERT_FILE", pki.ca_cert()}},
       {},
       false},
      {"an empty CURL_CA_BUNDLE is unset",
       {{"CURL_CA_BUNDLE", ""}, {"SSL_CERT_FILE", pki.ca_cert()}},
       {},
       true},
      {"--cacert over the environment",
       {{"CURL_CA_BUNDLE", other}},
       {"--cacert", pki.ca_cert()},
       true},
      {"--capath over the environment",
       {{"CURL_CA_BUNDLE", pki.ca_cert()}},
       {"--capath", empty_dir},
       false},
      {"--capath, two directories", {}, {"--capath", empty_dir + ":" + pki.ca_dir()}, true},
      {"--insecure reads none", {{"SSL_CERT_FILE", "/nonexistent.pem"}}, {"--insecure"}, true},
  };
  const auto url = nginx.https_url();
  const bool have_curl = access(kCurl, X_OK) == 0;
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto env = without_ca_variables(c.env);
    const auto r = run_loadgen(fleet(url, c.flags), env);
    INFO("stderr: " << r.err);
    CHECK(r.code == (c.through ? 0 : 3));
    if (!have_curl) continue;
    // The reference: curl itself, with the same environment and flags.
    support::TempDir dir;
    auto args = c.flags;
    args.insert(args.end(), {"-sS", "-o", dir.file("body"), url});
    support::Process curl(kCurl, args, dir, "curl", env);
    const int curl_code = curl.wait(20'000);
    INFO("curl stderr: " << curl.err());
    CHECK((curl_code == 0) == c.through);
  }
  if (!have_curl) MESSAGE("curl is not installed: loadgen was not compared with it");
}

TEST_CASE("--insecure reaches a server whose CA it was not given, and the results say so") {
  const auto started = start_nginx(https_options());
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto r = run_loadgen(fleet(nginx.https_url(), {"-k"}), without_ca_variables());
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  CHECK(count(r.results, "delivered") == 20);
  CHECK(r.results["live"]["tls"]["verify_peer"] == false);
  CHECK(count_status(nginx.stop_and_read_log(), 200) == 20);
}

TEST_CASE("mTLS: nginx with ssl_verify_client on sees the client certificate of --cert") {
  const auto started = start_nginx(https_options(true));
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto& pki = nginx.pki();
  std::vector<std::string> client;
  SUBCASE("--cert and --key") {
    client = {"--cert", pki.client_cert(), "--key", pki.client_key()};
  }
  SUBCASE("--cert holding the key too") {
    client = {"--cert", pki.client_cert_and_key()};
  }
  client.insert(client.end(), {"--cacert", pki.ca_cert()});
  const auto r = run_loadgen(fleet(nginx.https_url(), client), without_ca_variables());
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  CHECK(count(r.results, "delivered") == 20);
  CHECK(r.results["live"]["tls"]["client_cert"] == client[1]);
  const auto log = nginx.stop_and_read_log();
  REQUIRE(log.size() == 20);
  for (const auto& line : log) {
    CAPTURE(line.client_dn);
    CHECK(line.status == 200);
    CHECK(line.client_verify == "SUCCESS");
    CHECK(contains(line.client_dn, std::string("CN=") + support::TestPki::kClientName));
  }
}

TEST_CASE("mTLS without a client certificate: exit 3 before any load, one line") {
  const auto started = start_nginx(https_options(true));
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto url = nginx.https_url();
  // nginx finishes the handshake without one and would answer every request 400.
  const auto r =
      run_loadgen(fleet(url, {"--cacert", nginx.pki().ca_cert()}), without_ca_variables());
  check_stopped_before_load(r, nginx, url, "asks for a client certificate");
  CHECK(contains(r.err, "--cert"));
}

TEST_CASE("mTLS with a certificate and a key that do not match: exit 3, one line") {
  const auto started = start_nginx(https_options(true));
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto& pki = nginx.pki();
  const auto url = nginx.https_url();
  const auto r = run_loadgen(fleet(url, {"--cacert", pki.ca_cert(), "--cert", pki.client_cert(),
                                         "--key", pki.server_key()}),
                             without_ca_variables());
  check_stopped_before_load(r, nginx, url, "client certificate");
  // The key's path, never what is in it.
  CHECK(contains(r.err, pki.server_key()));
  CHECK_FALSE(contains(r.err, "PRIVATE KEY"));
}

TEST_CASE("plain http against nginx limit_req: 429s with Retry-After: 1, retried until through") {
  const auto started = start_nginx({.limit_rate = "20r/s", .burst = 5});
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto r = run_loadgen(
      fleet(nginx.http_url(), {"--retry-after", "jittered", "--assert", "delivered == items"}));
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  REQUIRE(r.results.is_object());
  CHECK(count(r.results, "delivered") == 20);
  // The first wave of 20 meets a burst of 5: most are refused, and retried.
  CHECK(count(r.results, "requests") > 20);
  const auto limited = std::count_if(r.attempts.begin(), r.attempts.end(),
                                     [](const json& a) { return a["status"] == 429; });
  CHECK(limited > 0);
  for (const auto& a : r.attempts) {
    if (a["status"] == 429) CHECK(a["retry_after_s"] == 1.0);
  }
  const auto log = nginx.stop_and_read_log();
  CHECK(count_status(log, 429) == limited);
  CHECK(count_status(log, 200) == 20);
  CHECK(static_cast<std::int64_t>(log.size()) == count(r.results, "requests"));
}

TEST_CASE("nginx's 404 location: not retried, every item dead-lettered, exit 1 saying why") {
  const auto started = start_nginx({.limit_rate = "20r/s", .burst = 5});
  if (!started) return;
  NginxStaging& nginx = *started;
  const auto r = run_loadgen(fleet(nginx.http_url(NginxStaging::kMissingPath)));
  INFO("stderr: " << r.err);
  // The default expectation of every staging run, delivered > 0, failed, and says what came
  // back.
  CHECK(r.code == 1);
  const auto lines = support::lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(contains(lines[0],
                 "no item was delivered: the target answered only statuses that are not "
                 "retryable, 404 to 20 of 20 requests; check the URL"));
  REQUIRE(r.results.is_object());
  CHECK(count(r.results, "dead_lettered") == 20);
  CHECK(count(r.results, "requests") == 20);
  CHECK(count_status(nginx.stop_and_read_log(), 404) == 20);
}
