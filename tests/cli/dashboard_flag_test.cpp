// loadgen run --dashboard's refusals: a bad address, a port in use, an address beyond loopback
// without a token, each one line naming the flag and exit 2, before any load reaches the
// target; and with a token, what it opens.
#include <doctest/doctest.h>

#include <signal.h>

#include <string>
#include <vector>

#include "support/event_stream.hpp"
#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/loadgen_run.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

using namespace support;

TEST_CASE("loadgen run --dashboard: a bad address or a port in use is refused before any load") {
  FakeProvider p({});
  REQUIRE(p.started());
  struct Row {
    std::string dashboard;
    std::string says;
  };
  for (const Row& row : {Row{"nope", "--dashboard: 'nope' is not a listen address"},
                         Row{"127.0.0.1:99999", "--dashboard: "},
                         Row{"127.0.0.1:" + std::to_string(p.admin_port()),
                             "--dashboard: cannot listen on 127.0.0.1:" +
                                 std::to_string(p.admin_port()) + ": Address already in use"}}) {
    CAPTURE(row.dashboard);
    const auto r = run_binary("loadgen", {"run", "--url", p.url(), "--clients", "5", "--dashboard",
                                          row.dashboard, "--quiet"});
    CHECK(r.code == 2);
    CHECK(r.err.find(row.says) != std::string::npos);
    CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  }
  CHECK(p.stats().at("requests") == 0);
}

TEST_CASE("loadgen --dashboard beyond loopback needs --dashboard-token, as the admin port does") {
  FakeProvider p({});
  REQUIRE(p.started());
  for (const std::string address : {"0.0.0.0:0", "[::]:0"}) {
    for (const std::string command : {"run", "exec"}) {
      CAPTURE(address);
      CAPTURE(command);
      std::vector<std::string> args = {command, "--url",       p.url(), "--clients",
                                       "5",     "--dashboard", address, "--quiet"};
      if (command == "exec") {
        for (const auto& more :
             std::vector<std::string>{"--provider-admin", p.admin(), "--no-report", "--", "true"})
          args.push_back(more);
      }
      const auto r = run_binary("loadgen", args);
      CAPTURE(r.err);
      CHECK(r.code == 2);
      CHECK(r.err.find("--dashboard: '" + address +
                       "' is reachable beyond this machine; give --dashboard-token TOKEN (or "
                       "LOADGEN_DASHBOARD_TOKEN)") != std::string::npos);
    }
  }
  CHECK(p.stats().at("requests") == 0);
}

TEST_CASE("loadgen --dashboard-token: the page, its stream and its save need the token or cookie") {
  TempDir dir;
  FakeProvider p({});
  REQUIRE(p.started());
  Process run(kLoadgenBin,
              {"run", "--url", p.url(), "--workload", "steady", "--rate", "5/s", "--duration",
               "60s", "--clients", "5", "--quiet", "--no-report", "--dashboard", "127.0.0.1:0",
               "--dashboard-token", "s3cret"},
              dir, "loadgen", kNoProxyForLoopback);
  REQUIRE(run.started());
  const int port = dashboard_port(dashboard_url(run));
  for (const char* route : {"/dashboard", "/live", "/dashboard/report"}) {
    CAPTURE(route);
    CHECK(http(port, "GET", route).status == 401);
    CHECK(http(port, "GET", route,
               {{"Cookie", "stampede_dashboard_" + std::to_string(port) + "=s3cret"}})
              .status == 401);
  }
  CHECK(http(port, "GET", "/dashboard?token=wrong").status == 401);
  const auto page = http(port, "GET", "/dashboard?token=s3cret");
  REQUIRE(page.status == 200);
  const auto set = page.header("set-cookie");
  const std::string cookie = set.substr(0, set.find(';'));
  CHECK(cookie.starts_with("stampede_dashboard_" + std::to_string(port) + "="));
  CHECK(cookie.find("s3cret") == std::string::npos);
  CHECK(EventStream(port, "/live", {.headers = {{"Cookie", cookie}}, .receive_buffer = 0})
            .head()
            .status == 200);
  CHECK(http(port, "GET", "/dashboard", {{"Authorization", "Bearer s3cret"}}).status == 200);
  run.signal(SIGINT);
  CHECK(run.wait() >= 0);
}
