// loadgen run --dashboard's refusals: a bad address or a port in use, each one line naming the
// flag and exit 2, before any load reaches the target.
#include <doctest/doctest.h>

#include <string>

#include "support/fake_provider.hpp"
#include "support/process.hpp"

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
