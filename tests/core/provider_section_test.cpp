// The results' provider section as a type: each form it takes (read, unread, a shard's, a
// merged fleet's) is written and read back as it was, and a malformed one is refused.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "provider_section.hpp"
#include "results.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

ProviderSection read_one() {
  ProviderSection p;
  p.admin = "http://127.0.0.1:8081";
  p.requests = 120;
  p.bin_ns = kNsPerSec;
  p.time_scale = 0.5;
  p.reasons = {{"allowance", 20}};
  p.connections_refused = 3;
  p.settings = {{"port", 8080}};
  return p;
}

}  // namespace

TEST_CASE("provider section: every form is written and read back as it was") {
  ProviderSection shard = read_one();
  BinnedCounts by_outcome(kNsPerSec, kOutcomeCount);
  by_outcome.add(0, 0);
  BinnedCounts by_send(kNsPerSec, kSendLabels);
  by_send.add(0, 1);
  shard.arrivals_by_outcome = by_outcome;
  shard.arrivals_by_send = by_send;
  ProviderSection unread;
  unread.admin = "http://127.0.0.1:8081";
  unread.error = "connection refused";
  unread.settings = {{"port", 8080}};
  ProviderSection exec = read_one();
  exec.results = {{"hint_waits", {{"retries", 4}}}};
  exec.models = {{"small", {{"requests", 2}}}, {"other", {{"requests", 1}}}};
  ProviderSection exec_without = read_one();
  exec_without.results_error = "no provider_results section";
  ProviderSection merged;
  merged.replicas = {{"http://a:1", 60}, {"http://b:1", 60}};
  merged.requests = 120;
  merged.connections_refused = 0;
  for (const auto* p : {&shard, &unread, &exec, &exec_without, &merged}) {
    const json written = to_json(*p);
    CAPTURE(written.dump());
    const auto read = provider_section_from_json(written);
    REQUIRE(read);
    CHECK(to_json(*read) == written);
  }
  CHECK(to_json(unread) ==
        json{{"admin", unread.admin}, {"error", *unread.error}, {"settings", unread.settings}});
  CHECK_FALSE(to_json(merged).contains("admin"));
  CHECK_FALSE(to_json(read_one()).contains("upstream"));  // not counted: left out
  CHECK_FALSE(to_json(read_one()).contains("models"));
  CHECK(to_json(exec).at("models") == exec.models);
}

TEST_CASE("provider section: a malformed one is refused, naming the field") {
  json no_requests = to_json(read_one());
  no_requests.erase("requests");
  const auto read = provider_section_from_json(no_requests);
  REQUIRE_FALSE(read);
  CHECK(read.error().find("requests") != std::string::npos);
  json fractional = to_json(read_one());
  fractional["connections_refused"] = 1.5;
  CHECK_FALSE(provider_section_from_json(fractional));
  CHECK_FALSE(provider_section_from_json(json{{"replicas", {{{"admin", "x"}}}}, {"requests", 1}}));
}
