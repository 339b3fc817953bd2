// Proxy mode's dashboard: what the upstream answered the requests the provider forwarded, apart
// from the provider's own refusals, in the events of GET /admin/live that the page shows.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "proxy_support.hpp"
#include "support/event_stream.hpp"
#include "support/fake_provider.hpp"

using namespace support;

namespace {

// Events until one shows every forward's answer counted (each is counted when it is over,
// which may be just after its client read it); none if the stream ends first.
std::optional<nlohmann::json> event_with_upstream_answers(EventStream& stream, int answers) {
  for (int i = 0; i < 30; ++i) {
    auto e = stream.next();
    if (!e) return std::nullopt;
    const auto& u = (*e)["upstream"];
    if (!u.is_object()) return e;  // not proxy mode's event: the test says so
    if (u.at("upstream_429").get<int>() + u.at("upstream_5xx").get<int>() >= answers) return e;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("proxy: the dashboard shows the upstream's answers apart from the provider's refusals") {
  UpstreamServer up;
  REQUIRE(up.started());
  FakeProvider p({"--upstream", up.url()});
  REQUIRE(p.started());
  Connection c(p.data_port());
  // Four forwarded: the upstream answers 200, 429, 503 and 404.
  for (const char* path : {"/status/200", "/status/429", "/status/503", "/status/404"}) {
    CAPTURE(path);
    CHECK(c.request("GET", path).status == std::stoi(std::string(path).substr(8)));
  }
  // Then the provider's own outage: two refused here, never forwarded.
  REQUIRE(http(p.admin_port(), "POST", "/admin/outage?for=1h&status=503").status == 200);
  CHECK(c.request("GET", "/status/200").status == 503);
  CHECK(c.request("GET", "/status/200").status == 503);
  CHECK(up.served() == 4);

  EventStream stream(p.admin_port(), "/admin/live");
  const auto e = event_with_upstream_answers(stream, 2);
  REQUIRE(e);
  CAPTURE(e->dump());
  CHECK(e->at("requests") == 6);
  CHECK(e->at("refused") == 2);  // the provider's own 503s
  const auto& u = e->at("upstream");
  REQUIRE(u.is_object());
  CHECK(u.at("forwarded") == 4);
  CHECK(u.at("upstream_429") == 1);
  CHECK(u.at("upstream_5xx") == 1);
  CHECK(u.at("upstream_error") == 0);
  // The page's section, shown, in words.
  CHECK(e->at("hidden").at("upstream") == false);
  const auto figures = e->at("panels").at("upstream-figures").get<std::string>();
  CHECK(figures.find("forwarded to it<b id=\"upstream-forwarded\">4</b>") != std::string::npos);
  CHECK(figures.find("answered 429 by it<b id=\"upstream-429\">1</b>") != std::string::npos);
  CHECK(figures.find("answered 5xx by it<b id=\"upstream-5xx\">1</b>") != std::string::npos);
  CHECK(figures.find("or not over yet<b id=\"upstream-other\">2</b>") != std::string::npos);
}
