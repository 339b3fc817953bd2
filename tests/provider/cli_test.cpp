#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"

using namespace support;

TEST_CASE("bad flags and values exit 2 with one line naming the problem") {
  struct Row {
    std::vector<std::string> args;
    const char* names;  // what the message must mention
  };
  const std::vector<Row> rows{
      {{"--bogus"}, "--bogus"},
      {{"--allowance", "banana"}, "banana"},
      {{"--limiter", "leaky"}, "leaky"},
      {{"--outage", "30s-10s"}, "30s-10s"},
      {{"--provider-retry-after", "maybe"}, "maybe"},
      {{"--ratelimit-headers", "draft"}, "draft"},
      {{"--error-rate", "2"}, "error_rate"},
      {{"--time-scale", "0"}, "--time-scale"},
      {{"--bin", "0s"}, "--bin"},
      {{"--bin", "1500us"}, "--bin"},
      {{"--bin", "2h"}, "--bin"},  // wider than any histogram may declare
      {{"--listen", "nohost"}, "--listen"},
      {{"--listen", "127.0.0.1:99999"}, "--listen"},
      {{"--admin-listen", "::1:0"}, "--admin-listen"},
      {{"--max-connections", "0"}, "--max-connections"},
      {{"--max-connections", "many"}, "--max-connections"},
      {{"--threads", "0"}, "--threads"},
      {{"--arrival-stamp", "sometimes"}, "--arrival-stamp"},
      {{"--hop-delay", "10ms"}, "hop_delay"},
      {{"--hop-delay", "10ms,often"}, "10ms,often"},
      {{"--scenario", "/nonexistent/scenario.json"}, "scenario"},
      {{"--attempt-header", "X Try"}, "--attempt-header"},
      {{"--attempt-header", "x-stainless-retry-count"}, "read already"},
      {{"--item-header", "X-Request-Id,,X-Job"}, "--item-header"},
      {{"--item-header", "A,B,C,D,E,F,G,H,I"}, "at most 8"},
      {{"--client-header", "X:Client"}, "--client-header"},
      {{"--max-items", "0"}, "--max-items"},
      {{"--max-items", "-1"}, "--max-items"},
      {{"--max-items", "many"}, "--max-items"},
      {{"--hint-tolerance", "0s"}, "--hint-tolerance"},
      {{"--hint-tolerance", "soon"}, "--hint-tolerance"},
      {{"--max-items", "10000001"}, "--max-items"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.args[0]);
    auto args = row.args;
    args.insert(args.end(), {"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"});
    if (row.args[0] == "--listen" || row.args[0] == "--admin-listen") args = row.args;
    const auto e = run_provider_to_exit(args);
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(e.err.rfind("fakeprovider: ", 0) == 0);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    CHECK(e.err.find(row.names) != std::string::npos);
  }
}

TEST_CASE("several bad flags at once: every one is named, a line each, before anything is bound") {
  // The data port is one a server holds: a provider that bound it before checking the rest
  // would say so (exit 1), not list the flags.
  RecordingProvider held({});
  REQUIRE(held.started());
  const auto e = run_provider_to_exit(
      {"--allowance", "banana", "--bin", "0s", "--threads", "0", "--arrival-stamp", "sometimes",
       "--max-items", "0", "--listen", "127.0.0.1:" + std::to_string(held.data_port()),
       "--admin-listen", "127.0.0.1:0", "--stats-out", "/nonexistent/stats.json"});
  CAPTURE(e.err);
  CHECK(e.code == 2);
  CHECK(e.out.empty());
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = e.err.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(e.err.substr(at, nl - at));
  const std::vector<std::string> wanted{
      "banana", "--bin:", "--threads:", "--arrival-stamp:", "--max-items:", "--stats-out:"};
  REQUIRE(lines.size() == wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    CHECK(lines[i].rfind("fakeprovider: ", 0) == 0);
    CHECK(lines[i].find(wanted[i]) != std::string::npos);
  }
  CHECK(held.stop() == 0);
}

TEST_CASE("--help ends with an example and --version names the binary") {
  const auto help = run_provider_to_exit({"--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("Example:\n  fakeprovider ") != std::string::npos);
  const auto version = run_provider_to_exit({"--version"});
  CHECK(version.code == 0);
  CHECK(version.out.rfind("fakeprovider ", 0) == 0);
}

TEST_CASE("a port already taken is a clear runtime error") {
  RecordingProvider first({});
  REQUIRE(first.started());
  const auto e = run_provider_to_exit({"--listen", "127.0.0.1:" + std::to_string(first.data_port()),
                                       "--admin-listen", "127.0.0.1:0"});
  CHECK(e.code == 1);
  CHECK(e.err.find("--listen") != std::string::npos);
  CHECK(first.stop() == 0);
}
