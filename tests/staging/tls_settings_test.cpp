// resolve_tls: which CAs a run trusts, from the flags and the environment, as curl 7.88's tool
// picks them (the end-to-end check against curl itself is in tls_staging_test.cpp).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "live/http/tls_settings.hpp"

using stampede::resolve_tls;
using stampede::TlsFlags;

namespace {

stampede::EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("resolve_tls: the flags, else one CA variable, the first set of three") {
  struct Row {
    std::string what;
    TlsFlags flags;
    std::map<std::string, std::string> env;
    std::string ca_file, ca_path, ca_from;
  };
  const std::map<std::string, std::string> all{
      {"CURL_CA_BUNDLE", "/b.pem"}, {"SSL_CERT_DIR", "/d"}, {"SSL_CERT_FILE", "/f.pem"}};
  const Row rows[] = {
      {"nothing: libcurl's", {}, {}, "", "", ""},
      {"all three: CURL_CA_BUNDLE", {}, all, "/b.pem", "", "CURL_CA_BUNDLE"},
      {"then SSL_CERT_DIR, alone",
       {},
       {{"SSL_CERT_DIR", "/d"}, {"SSL_CERT_FILE", "/f.pem"}},
       "",
       "/d",
       "SSL_CERT_DIR"},
      {"then SSL_CERT_FILE", {}, {{"SSL_CERT_FILE", "/f.pem"}}, "/f.pem", "", "SSL_CERT_FILE"},
      {"empty is unset",
       {},
       {{"CURL_CA_BUNDLE", ""}, {"SSL_CERT_DIR", ""}, {"SSL_CERT_FILE", "/f.pem"}},
       "/f.pem",
       "",
       "SSL_CERT_FILE"},
      {"--cacert: no variable", {.cacert = "/c.pem"}, all, "/c.pem", "", "--cacert"},
      {"--capath: no variable", {.capath = "/p"}, all, "", "/p", "--capath"},
      {"both flags", {.cacert = "/c.pem", .capath = "/p"}, all, "/c.pem", "/p", "--cacert"},
      {"--insecure: no variable", {.insecure = true}, all, "", "", ""},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    const auto tls = resolve_tls(row.flags, env_of(row.env));
    REQUIRE(tls);
    CHECK(tls->ca_file == row.ca_file);
    CHECK(tls->ca_path == row.ca_path);
    CHECK(tls->ca_from == row.ca_from);
    CHECK(tls->verify_peer == !row.flags.insecure);
  }
}

TEST_CASE("resolve_tls: the client certificate as given; refuses what it would ignore") {
  const auto env = env_of({});
  const auto mtls = resolve_tls({.cert = "/c.pem", .key = "/k.pem"}, env);
  REQUIRE(mtls);
  CHECK(mtls->cert_file == "/c.pem");
  CHECK(mtls->key_file == "/k.pem");
  const auto key_only = resolve_tls({.key = "/k.pem"}, env);
  REQUIRE_FALSE(key_only);
  CHECK(key_only.error().rfind("--key:", 0) == 0);
  const auto both = resolve_tls({.cacert = "/c.pem", .insecure = true}, env);
  REQUIRE_FALSE(both);
  CHECK(both.error().rfind("--insecure:", 0) == 0);
  // mTLS without verifying the server is a choice, not a contradiction.
  CHECK(resolve_tls({.insecure = true, .cert = "/c.pem"}, env));
}
