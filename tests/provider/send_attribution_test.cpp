// Which send an arrival is, as real clients tell it: curl sends the headers the SDKs send, and
// the arrival log and the stats must number them as the SDKs do, or say they could not.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "duration.hpp"
#include "results.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"

using namespace stampede;
using namespace support;

namespace {

constexpr std::size_t kAttempt = 3;
constexpr std::size_t kClientId = 4;
constexpr std::size_t kSendRule = 5;

void require_curl() {
  REQUIRE_MESSAGE(std::system("curl --version >/dev/null 2>&1") == 0,
                  "this test needs the curl CLI (Debian package curl)");
}

// One request by the curl CLI; curl_args are its flags, shell-quoted by the caller.
void curl(const RecordingProvider& p, const std::string& curl_args) {
  // Not -o /dev/null: curl truncates its output file before a retry, which /dev/null refuses.
  const std::string cmd = "curl -s -o " + p.dir().file("body") + " " + curl_args +
                          " http://127.0.0.1:" + std::to_string(p.data_port()) + "/v1/messages";
  CAPTURE(cmd);
  CHECK(std::system(cmd.c_str()) == 0);
}

// The arrival log's rows after the stop, less the header row.
std::vector<std::vector<std::string>> stop_and_read_arrivals(RecordingProvider& p) {
  REQUIRE(p.stop() == 0);
  auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(!rows.empty());
  CHECK(rows[0] == std::vector<std::string>{"t_ns", "tenant", "status", "attempt", "client_id",
                                            "send_rule", "decided_t_ns", "upstream", "stream"});
  rows.erase(rows.begin());
  return rows;
}

struct Numbered {
  std::string attempt;
  std::string rule;
};

void check_numbers(const std::vector<std::vector<std::string>>& rows,
                   const std::vector<Numbered>& want) {
  REQUIRE(rows.size() == want.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(rows[i][kAttempt] == want[i].attempt);
    CHECK(rows[i][kSendRule] == want[i].rule);
  }
}

std::int64_t send_label_total(const nlohmann::json& stats, std::size_t label) {
  std::int64_t n = 0;
  for (const auto& bin : stats.at("arrivals_by_send").at("counts"))
    n += bin.at(label).get<std::int64_t>();
  return n;
}

}  // namespace

TEST_CASE(
    "attribution: X-Stainless-Retry-Count, amz-sdk-request and --attempt-header number sends") {
  require_curl();
  RecordingProvider p({"--attempt-header", "X-Try"});
  REQUIRE(p.started());
  curl(p, "-H 'X-Stainless-Retry-Count: 2'");
  curl(p, "-H 'amz-sdk-request: attempt=3; max=5'");
  curl(p, "-H 'amz-sdk-request: ttl=20250102T030405Z; attempt=1; max=3'");
  curl(p, "-H 'X-Try: 4'");
  // The order of the rules, not of the headers: ours first, then Stainless's, then AWS's.
  curl(p, "-H 'x-stainless-retry-count: 0' -H 'X-Attempt: 2'");
  curl(p, "-H 'X-Try: 9' -H 'amz-sdk-request: attempt=2; max=3'");
  const auto stats = p.stats();
  const auto& sends = stats.at("send_attribution");
  CHECK(sends.at("attributed") == 6);
  CHECK(sends.at("unattributed") == 0);
  CHECK(sends.at("by_rule") == nlohmann::json{{"x-attempt", 1},
                                              {"x-stainless-retry-count", 1},
                                              {"amz-sdk-request", 3},
                                              {"attempt-header", 1},
                                              {"item-header", 0},
                                              {"client-header", 0}});
  CHECK(send_label_total(stats, 0) == 1);  // send 1
  CHECK(send_label_total(stats, 1) == 2);  // send 2
  CHECK(send_label_total(stats, 2) == 2);  // send 3
  CHECK(send_label_total(stats, 3) == 1);  // send 4
  check_numbers(stop_and_read_arrivals(p), {{"3", "x-stainless-retry-count"},
                                            {"3", "amz-sdk-request"},
                                            {"1", "amz-sdk-request"},
                                            {"4", "attempt-header"},
                                            {"2", "x-attempt"},
                                            {"2", "amz-sdk-request"}});
}

TEST_CASE("attribution: the n-th arrival of one item, or of one client, is its n-th send") {
  require_curl();
  // Decided on arrival, and a hop later on the timer's thread: both count in decision order.
  for (const bool hop : {false, true}) {
    CAPTURE(hop);
    std::vector<std::string> args;
    if (hop) args = {"--hop-delay", "1ms,0ms"};
    RecordingProvider p(args);
    REQUIRE(p.started());
    for (int i = 0; i < 3; ++i) curl(p, "-H 'X-Request-Id: r1'");
    curl(p, "-H 'X-Request-Id: r2' -H 'X-Client-Id: c1'");  // the item header first
    curl(p, "-H 'amz-sdk-invocation-id: inv-1'");           // an AWS SDK's call
    curl(p, "-H 'Idempotency-Key: inv-1'");                 // another header, the same item
    curl(p, "-H 'X-Client-Id: c1'");                        // one item per client
    curl(p, "-H 'X-Client-Id: c1'");
    const auto stats = p.stats();
    CHECK(stats.at("send_attribution").at("items") == 4);  // r1, r2, inv-1 and the client c1
    CHECK(stats.at("send_attribution").at("by_rule").at("item-header") == 6);
    CHECK(stats.at("send_attribution").at("by_rule").at("client-header") == 2);
    const auto rows = stop_and_read_arrivals(p);
    check_numbers(rows, {{"1", "item-header"},
                         {"2", "item-header"},
                         {"3", "item-header"},
                         {"1", "item-header"},
                         {"1", "item-header"},
                         {"2", "item-header"},
                         {"1", "client-header"},
                         {"2", "client-header"}});
    CHECK(rows[6][kClientId] == "c1");
  }
}

TEST_CASE("attribution: malformed values are unattributed, never a crash or a send number") {
  require_curl();
  RecordingProvider p({"--attempt-header", "X-Try"});
  REQUIRE(p.started());
  const std::vector<std::pair<std::string, std::string>> bad{
      {"-H 'X-Attempt: abc'", "malformed:x-attempt"},
      {"-H 'X-Attempt: -1'", "malformed:x-attempt"},
      {"-H 'X-Attempt: 0'", "malformed:x-attempt"},
      {"-H 'X-Attempt: 99999999999999999999'", "malformed:x-attempt"},
      {"-H 'X-Attempt: 2' -H 'X-Attempt: 3'", "malformed:x-attempt"},
      {"-H 'X-Stainless-Retry-Count: -1'", "malformed:x-stainless-retry-count"},
      {"-H 'X-Stainless-Retry-Count: 9223372036854775807'", "malformed:x-stainless-retry-count"},
      {"-H 'X-Stainless-Retry-Count: 0' -H 'X-Stainless-Retry-Count: 1'",
       "malformed:x-stainless-retry-count"},
      {"-H 'amz-sdk-request: attempt=abc; max=3'", "malformed:amz-sdk-request"},
      {"-H 'amz-sdk-request: attempt=4; max=3'", "malformed:amz-sdk-request"},
      {"-H 'amz-sdk-request: attempt=1; attempt=2'", "malformed:amz-sdk-request"},
      {"-H 'X-Try: 1.5'", "malformed:attempt-header"},
      // A bad deciding header is not passed over for a guess from a later rule.
      {"-H 'X-Attempt: two' -H 'X-Client-Id: c'", "malformed:x-attempt"},
      {"-H 'X-Request-Id: a' -H 'X-Request-Id: b'", "malformed:item-header"},
      {"", "none"},
  };
  for (const auto& [flags, rule] : bad) curl(p, flags);
  curl(p, "-H 'X-Attempt: 2'");  // and the next good one is numbered as ever
  const auto stats = p.stats();
  const auto& sends = stats.at("send_attribution");
  CHECK(stats.at("requests") == bad.size() + 1);
  CHECK(stats.at("totals").at("ok") == bad.size() + 1);
  CHECK(sends.at("attributed") == 1);
  CHECK(sends.at("unattributed") == bad.size());
  CHECK(sends.at("unattributed_by_cause").at("malformed") == bad.size() - 1);
  CHECK(sends.at("unattributed_by_cause").at("none") == 1);
  // None of them is in the by-send histogram: only the good one, as send 2.
  for (std::size_t label = 0; label < kSendLabels; ++label) {
    CAPTURE(label);
    CHECK(send_label_total(stats, label) == (label == 1 ? 1 : 0));
  }
  std::vector<Numbered> want;
  for (const auto& [flags, rule] : bad) want.push_back({"", rule});
  want.push_back({"2", "x-attempt"});
  check_numbers(stop_and_read_arrivals(p), want);
}

TEST_CASE("attribution: --max-items bounds the counting; beyond it an item is unattributed") {
  require_curl();
  RecordingProvider p({"--max-items", "2"});
  REQUIRE(p.started());
  for (const char* item : {"a", "b", "c", "a", "c"})
    curl(p, std::string("-H 'X-Request-Id: ") + item + "'");
  const auto sends = p.stats().at("send_attribution");
  CHECK(sends.at("items") == 2);
  CHECK(sends.at("max_items") == 2);
  CHECK(sends.at("unattributed_by_cause").at("item_limit") == 2);
  check_numbers(stop_and_read_arrivals(p), {{"1", "item-header"},
                                            {"1", "item-header"},
                                            {"", "item_limit:item-header"},
                                            {"2", "item-header"},
                                            {"", "item_limit:item-header"}});
}

TEST_CASE("--tenant-header Authorization: the bearer token (or SigV4 key id) is the tenant") {
  require_curl();
  RecordingProvider p({"--allowance", "1/min", "--tenant-header", "Authorization"});
  REQUIRE(p.started());
  curl(p, "-H 'Authorization: Bearer sk-a'");
  curl(p, "-H 'Authorization: bearer  sk-a'");  // the same key: its allowance is used up
  curl(p, "-H 'Authorization: Bearer sk-b'");
  curl(p,
       "-H 'Authorization: AWS4-HMAC-SHA256 "
       "Credential=AKIDEXAMPLE/20250102/us-east-1/dynamodb/aws4_request, "
       "SignedHeaders=host;x-amz-date, Signature=0123'");
  curl(p, "-H 'Authorization: Basic dXNlcjpwYXNz'");
  const auto stats = p.stats();
  const auto& tenants = stats.at("tenants");
  CHECK(tenants.size() == 4);
  CHECK(tenants.at("sk-a").at("requests") == 2);
  CHECK(tenants.at("sk-a").at("totals").at("429") == 1);
  CHECK(tenants.at("sk-b").at("totals").at("ok") == 1);
  CHECK(tenants.at("AKIDEXAMPLE").at("totals").at("ok") == 1);
  CHECK(tenants.at("Basic dXNlcjpwYXNz").at("totals").at("ok") == 1);
  const auto rows = stop_and_read_arrivals(p);
  REQUIRE(rows.size() == 5);
  CHECK(rows[1][1] == "sk-a");
}

TEST_CASE("curl --retry 2 against an outage: --client-header Authorization numbers its sends") {
  require_curl();
  // No Retry-After, so curl keeps its own schedule: 1 s, 2 s.
  RecordingProvider p({"--outage", "0s-1h:503", "--retry-after", "off", "--client-header",
                       "Authorization", "--tenant-header", "Authorization"});
  REQUIRE(p.started());
  curl(p, "--retry 2 -H 'Authorization: Bearer sk-1'");
  const auto stats = p.stats();
  CHECK(stats.at("send_attribution").at("by_rule").at("client-header") == 3);
  CHECK(stats.at("tenants").at("sk-1").at("totals").at("503") == 3);
  const auto rows = stop_and_read_arrivals(p);
  check_numbers(rows, {{"1", "client-header"}, {"2", "client-header"}, {"3", "client-header"}});
  for (const auto& row : rows) {
    CHECK(row[2] == "503");
    CHECK(row[kClientId] == "sk-1");
  }
}

TEST_CASE("attribution: POST /admin/reset starts every item's count again") {
  require_curl();
  RecordingProvider p({"--max-items", "1"});
  REQUIRE(p.started());
  curl(p, "-H 'X-Request-Id: a'");
  curl(p, "-H 'X-Request-Id: a'");
  CHECK(p.stats().at("send_attribution").at("items") == 1);
  REQUIRE(http(p.admin_port(), "POST", "/admin/reset").status == 200);
  CHECK(p.stats().at("send_attribution").at("items") == 0);
  curl(p, "-H 'X-Request-Id: b'");  // room again, since the table was emptied
  curl(p, "-H 'X-Request-Id: a'");  // and a is new again, beyond the one item: not counted
  check_numbers(stop_and_read_arrivals(p), {{"1", "item-header"}, {"", "item_limit:item-header"}});
}
