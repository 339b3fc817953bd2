// loadgen exec against a provider that turns most of the fleet's connections away: a harness
// failure, judged by the provider's own count, since CMD's connection errors are its own.
#include <doctest/doctest.h>

#include <string>

#include "exec_support.hpp"
#include "support/fake_provider.hpp"
#include "support/loadgen_run.hpp"
#include "support/temp_dir.hpp"

using support::FakeProvider;
using support::run_exec;
using support::TempDir;

namespace {

// Each process opens its connection, holds it a while, then sends one request and exits 0 on
// a 200. The provider holds two connections: the others, opened meanwhile, are turned away.
constexpr const char* kHoldThenSend = R"(import socket, sys, time, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
try:
    s = socket.create_connection((u.hostname, u.port))
    time.sleep(3)
    s.sendall(b"GET " + u.path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    ok = s.recv(100).startswith(b"HTTP/1.1 200")
except OSError:
    ok = False
sys.exit(0 if ok else 1)
)";

}  // namespace

TEST_CASE("exec: a fleet the provider mostly turned away is a harness failure, exit 3") {
  FakeProvider provider({"--max-connections", "2"});
  REQUIRE(provider.started());
  TempDir dir;
  const auto r = run_exec(dir,
                          {"--clients", "20", "--url", provider.url(), "--provider-admin",
                           provider.admin(), "--max-duration", "60s"},
                          {exec_test::kPython, "-c", kHoldThenSend, "{url}"});
  INFO(r.err);
  CHECK(r.code == 3);
  CHECK(r.err.find("found the provider full") != std::string::npos);
  CHECK(r.err.find("fakeprovider --processes N") != std::string::npos);
  REQUIRE(r.results.is_object());
  CHECK(r.results["provider"]["connections_refused"].get<std::int64_t>() >= 11);
}
