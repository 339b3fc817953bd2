#include <doctest/doctest.h>

#include <map>

#include "policy/source_addresses.hpp"

using namespace stampede;

TEST_CASE("source addresses: a client's address, by table") {
  const PortRange range;  // 32768-60999
  struct Row {
    std::int64_t connections, per_source;
    Shard group;
    std::int64_t client;
    const char* address;  // "" the kernel's choice: no bind
  };
  for (const Row row : {
           Row{600, 1000, {0, 1}, 599, ""},                // fits one address: no bind
           Row{600, 600, {0, 1}, 599, ""},                 // exactly fits
           Row{601, 600, {0, 1}, 0, "127.0.0.1"},          // spread: from .1 up
           Row{601, 600, {0, 1}, 599, "127.0.0.1"},        // the first 600 on .1
           Row{601, 600, {0, 1}, 600, "127.0.0.2"},        // the 601st on .2
           Row{50000, 12705, {0, 1}, 12704, "127.0.0.1"},  // the default at 32768-60999
           Row{50000, 12705, {0, 1}, 12705, "127.0.0.2"},
           Row{50000, 12705, {0, 1}, 49999, "127.0.0.4"},
           Row{1000, 100, {0, 1}, 999, "127.0.0.10"},
           Row{70000, 254, {0, 1}, 254 * 255, "127.0.1.0"},  // past .255 into the next octet
           // A shard's clients rank within it: client 1 + 3k is its k-th.
           Row{300, 100, {1, 3}, 1, "127.0.0.1"},
           Row{300, 100, {1, 3}, 1 + 3 * 99, "127.0.0.1"},
           Row{300, 100, {1, 3}, 1 + 3 * 100, "127.0.0.2"},
       }) {
    CAPTURE(row.connections);
    CAPTURE(row.per_source);
    CAPTURE(row.client);
    const auto plan = plan_sources(row.connections, {row.per_source, row.per_source}, "127.0.0.1",
                                   row.group, range);
    REQUIRE(plan);
    const auto source = source_of(*plan, row.client);
    CHECK((source ? ipv4_text(*source) : std::string()) == row.address);
  }
}

TEST_CASE("source addresses: every address takes at most per_source of the group's clients") {
  const auto plan = plan_sources(1000, {300, 300}, "127.0.0.5", {0, 1}, PortRange{});
  REQUIRE(plan);
  CHECK(plan->count == 4);
  std::map<std::uint32_t, int> per;
  for (std::int64_t c = 0; c < 1000; ++c) ++per[*source_of(*plan, c)];
  CHECK(per.size() == 4);
  for (const auto& [address, n] : per) CHECK(n <= 300);
}

TEST_CASE("source addresses: spreading needs an IPv4 loopback target, and says what to do") {
  const PortRange range{32768, 60999};
  const auto share = source_share(range, 0);
  CHECK(plan_sources(60000, share, "10.0.0.7", {0, 1}, range)
            .error()
            .find("only for an IPv4 loopback target") != std::string::npos);
  const auto v6 = plan_sources(50000, share, "::1", {0, 1}, range);
  REQUIRE_FALSE(v6);
  CHECK(v6.error().find("2 source addresses") != std::string::npos);
  CHECK(v6.error().find("32768-60999") != std::string::npos);
  CHECK(v6.error().find("run at most 25409 clients") != std::string::npos);
  // A fleet one address carries needs no loopback: nothing is bound, past the half the
  // loopback would spread at.
  const auto remote = plan_sources(20000, share, "10.0.0.7", {0, 1}, range);
  REQUIRE(remote);
  CHECK_FALSE(remote->spread());
  const auto loopback = plan_sources(20000, share, "127.0.0.1", {0, 1}, range);
  REQUIRE(loopback);
  CHECK(loopback->count == 2);
  // A chosen share is both figures.
  CHECK(plan_sources(20000, source_share(range, 19000), "10.0.0.7", {0, 1}, range)
            .error()
            .find("run at most 19000 clients") != std::string::npos);
}

TEST_CASE("source addresses: the kernel's port range, and the default shares of it") {
  const auto range = parse_port_range("32768\t60999\n");
  REQUIRE(range);
  CHECK(range->size() == 28232);
  // Half the range less a tenth spread over loopback; the whole less a tenth from one address.
  CHECK(source_share(*range, 0).spread_past == 14116 - 1411);
  CHECK(source_share(*range, 0).at_most == 28232 - 2823);
  CHECK(source_share(*range, 300).spread_past == 300);
  CHECK(source_share(*range, 300).at_most == 300);
  CHECK(parse_port_range("1024 65535")->size() == 64512);
  CHECK_FALSE(parse_port_range(""));
  CHECK_FALSE(parse_port_range("60999 32768"));
  CHECK_FALSE(parse_port_range("0 100"));
  CHECK_FALSE(parse_port_range("32768"));
}
