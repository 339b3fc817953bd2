// The TLS flags and variables of `loadgen run` that cannot work are refused before any load:
// exit 2 and one line naming the flag or variable. The target is a port nothing listens on,
// so a check that let one through shows as exit 3 instead.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/nginx.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using support::contains;
using support::EnvChanges;
using support::lines;
using support::run_loadgen;

namespace {

const EnvChanges kNoCaVariables{{"CURL_CA_BUNDLE", std::nullopt},
                                {"SSL_CERT_DIR", std::nullopt},
                                {"SSL_CERT_FILE", std::nullopt}};

EnvChanges with_variable(const std::string& name, const std::string& value) {
  EnvChanges env;
  for (const auto& e : kNoCaVariables) {
    if (e.first != name) env.push_back(e);
  }
  env.emplace_back(name, value);
  return env;
}

struct Refusal {
  std::string what;
  std::vector<std::string> args;
  EnvChanges env;
  std::string names;  // the flag or variable the line starts with
};

}  // namespace

TEST_CASE(
    "TLS flags and variables that cannot work: exit 2 before any load, one line naming "
    "them") {
  if (access("/usr/bin/openssl", X_OK) != 0) {
    MESSAGE("skipped: openssl is not installed");
    return;
  }
  support::TempDir dir;
  const support::TestPki pki(dir.file(""));
  INFO(pki.error());
  REQUIRE(pki.ok());
  support::write_file(dir.file("not-pem.txt"), "no certificate here\n");
  support::write_file(dir.file("encrypted.key"),
                      "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n"
                      "-----END ENCRYPTED PRIVATE KEY-----\n");
  const std::string https = "https://127.0.0.1:" + std::to_string(support::unused_port()) + "/v1";
  const std::string http = "http://127.0.0.1:" + std::to_string(support::unused_port()) + "/v1";
  const std::string missing = dir.file("missing.pem");
  const std::vector<Refusal> refusals{
      {"a CA file that is not there", {"--url", https, "--cacert", missing}, {}, "--cacert"},
      {"a CA file that is a directory", {"--url", https, "--cacert", dir.file("")}, {}, "--cacert"},
      {"a CA file without a certificate",
       {"--url", https, "--cacert", dir.file("not-pem.txt")},
       {},
       "--cacert"},
      {"a CA directory that is not there",
       {"--url", https, "--capath", pki.ca_dir() + ":" + dir.file("missing")},
       {},
       "--capath"},
      {"a client certificate without its key",
       {"--url", https, "--cert", pki.client_cert()},
       {},
       "--cert"},
      {"a client certificate that is not one",
       {"--url", https, "--cert", pki.client_key(), "--key", pki.client_key()},
       {},
       "--cert"},
      {"a key without a certificate", {"--url", https, "--key", pki.client_key()}, {}, "--key"},
      {"an encrypted key",
       {"--url", https, "--cert", pki.client_cert(), "--key", dir.file("encrypted.key")},
       {},
       "--key"},
      {"--insecure with --cacert",
       {"--url", https, "--insecure", "--cacert", pki.ca_cert()},
       {},
       "--insecure"},
      {"--insecure over http", {"--url", http, "--insecure"}, {}, "--insecure"},
      {"--cacert over http", {"--url", http, "--cacert", pki.ca_cert()}, {}, "--cacert"},
      {"--cert with the native client",
       {"--url", http, "--http-client", "native", "--cert", pki.client_cert()},
       {},
       "--cert"},
      {"SSL_CERT_FILE not there",
       {"--url", https},
       with_variable("SSL_CERT_FILE", missing),
       "SSL_CERT_FILE"},
      {"CURL_CA_BUNDLE without a certificate",
       {"--url", https},
       with_variable("CURL_CA_BUNDLE", dir.file("not-pem.txt")),
       "CURL_CA_BUNDLE"},
      {"SSL_CERT_DIR not a directory",
       {"--url", https},
       with_variable("SSL_CERT_DIR", pki.ca_cert()),
       "SSL_CERT_DIR"},
  };
  for (const auto& refusal : refusals) {
    CAPTURE(refusal.what);
    auto args = refusal.args;
    args.insert(args.end(), {"--clients", "2", "--max-duration", "10s"});
    const auto r = run_loadgen(args, refusal.env.empty() ? kNoCaVariables : refusal.env);
    INFO("stderr: " << r.err);
    CHECK(r.code == 2);
    const auto lines = support::lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind("loadgen: " + refusal.names + ":", 0) == 0);
    // Paths, never what is in the files (PEM bodies start "MII").
    CHECK_FALSE(contains(r.err, "-----END"));
    CHECK_FALSE(contains(r.err, "MII"));
  }
}

TEST_CASE("the CA variables are read for https only, as curl reads them") {
  const support::RefusedPort dead;
  const std::string http = dead.url("/v1");
  // Not read over http: the run goes on to find nothing listening.
  const auto r = run_loadgen({"--url", http, "--clients", "2", "--max-duration", "10s"},
                             with_variable("SSL_CERT_FILE", "/nonexistent.pem"));
  INFO("stderr: " << r.err);
  CHECK(r.code == 3);
  CHECK(contains(r.err, "target unreachable"));
}
