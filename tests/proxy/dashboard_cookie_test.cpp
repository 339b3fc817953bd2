// A browser sends a dashboard's cookie to every port of its host, the data plane's too: proxy
// mode must not hand it to the upstream (a raw upstream here, recording the heads it read).
#include <doctest/doctest.h>

#include <string>

#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/scripted_server.hpp"

using namespace support;

TEST_CASE("proxy: the dashboards' cookies never reach the upstream, the client's others do") {
  ScriptedServer up({{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false}});
  const std::string upstream = up.url().substr(0, up.url().find('?'));  // a prefix, no query
  FakeProvider p({"--upstream", upstream, "--admin-token", "s3cret"});
  REQUIRE(p.started());
  const auto page = http(p.admin_port(), "GET", "/dashboard?token=s3cret");
  REQUIRE(page.status == 200);
  const auto set = page.header("set-cookie");
  const std::string cookie = set.substr(0, set.find(';'));
  CHECK(cookie.starts_with("stampede_dashboard_"));

  Connection c(p.data_port());
  CHECK(c.request("GET", "/a", {{"Cookie", cookie + "; session=s1"}}).status == 200);
  CHECK(c.request("GET", "/b", {{"Cookie", cookie}}).status == 200);
  CHECK(c.request("GET", "/c", {{"Cookie", "stampede_dashboard_1=x; lang=en"}}).status == 200);
  const auto seen = up.requests();
  REQUIRE(seen.size() == 3);
  for (const auto& r : seen) {
    CAPTURE(r.text);
    CHECK(r.text.find("stampede_dashboard") == std::string::npos);
    CHECK(r.text.find(cookie.substr(cookie.find('=') + 1)) == std::string::npos);
  }
  CHECK(seen[0].text.find("\r\nCookie: session=s1\r\n") != std::string::npos);
  CHECK(seen[1].text.find("Cookie:") == std::string::npos);  // nothing left: no field
  CHECK(seen[2].text.find("\r\nCookie: lang=en\r\n") != std::string::npos);
}
