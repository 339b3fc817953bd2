#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/attempt_header.hpp"
#include "model/credential_key.hpp"
#include "model/send_attribution.hpp"

using namespace stampede;

namespace doctest {
template <>
struct StringMaker<SendAttribution> {
  static String convert(const SendAttribution& a) {
    return (send_rule_label(a) + " " + std::to_string(a.send)).c_str();
  }
};
}  // namespace doctest

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
using Parse = std::optional<std::int64_t> (*)(std::string_view);
using HeaderList = std::vector<std::pair<std::string, std::string>>;

void check_parser(Parse parse, const std::vector<std::pair<std::string, std::int64_t>>& good,
                  const std::vector<std::string>& bad) {
  for (const auto& [text, n] : good) {
    CAPTURE(text);
    CHECK(parse(text) == n);
  }
  for (const auto& text : bad) {
    CAPTURE(text);
    CHECK(parse(text) == std::nullopt);
  }
}

// Malformed in every numeric header: not a number, negative, beyond an int64, a list.
const std::vector<std::string> kBadNumbers{"",
                                           " ",
                                           "abc",
                                           "-1",
                                           "-0",
                                           "+2",
                                           "3x",
                                           "1e3",
                                           "0x10",
                                           "2.0",
                                           "1, 2",
                                           "1 2",
                                           "99999999999999999999",
                                           "9223372036854775808",
                                           "١"};

SendAttribution attribute(const HeaderList& headers, ItemCounts& counts,
                          const SendRules& rules = {}) {
  SendHeaders h;
  for (const auto& [name, value] : headers) offer_send_header(rules, h, name, value);
  return attribute_send(h, counts);
}

SendAttribution attributed(SendRule rule, std::int64_t send) {
  return {SendStatus::kAttributed, rule, send};
}

}  // namespace

TEST_CASE("parse_send_number: X-Attempt is a whole number from 1; anything else is malformed") {
  auto bad = kBadNumbers;
  bad.push_back("0");
  check_parser(parse_send_number,
               {{"1", 1}, {"7", 7}, {" 7\t", 7}, {"007", 7}, {"9223372036854775807", kMax}}, bad);
}

TEST_CASE("parse_retry_count: X-Stainless-Retry-Count 0 is the first send") {
  auto bad = kBadNumbers;
  bad.push_back("9223372036854775807");  // its send number is past an int64
  check_parser(parse_retry_count, {{"0", 1}, {"2", 3}, {"9223372036854775806", kMax}}, bad);
}

TEST_CASE("parse_amz_sdk_request: attempt=N; max=M, as the AWS SDKs send it") {
  check_parser(parse_amz_sdk_request,
               {{"attempt=1; max=3", 1},
                {"attempt=3; max=5", 3},
                {"attempt=3; max=3", 3},
                {"attempt=2", 2},
                {"max=5; attempt=4", 4},
                {"attempt=1;max=3", 1},
                {" attempt = 2 ; max = 3 ", 2},
                {"Attempt=2; MAX=3", 2},
                {"ttl=20250102T030405Z; attempt=2; max=3", 2},
                {"attempt=2; max=3;", 2},
                {"attempt=2; retry; max=3", 2}},
               {"", "max=3", "attempt", "attempt=", "attempt=0; max=3", "attempt=-1; max=3",
                "attempt=abc; max=3", "attempt=4; max=3", "attempt=1; attempt=2; max=3",
                "attempt=1; max=3; max=4", "attempt=1; max=abc", "attempt=1; max=0",
                "attempt=99999999999999999999; max=3", "attempt=2, max=3", "attempt 2; max 3"});
}

TEST_CASE("credential_key: Authorization gives its credential, any other header its value") {
  const std::vector<std::pair<std::pair<std::string, std::string>, std::string>> cases{
      {{"Authorization", "Bearer sk-abc"}, "sk-abc"},
      {{"authorization", "bearer  sk-abc "}, "sk-abc"},
      {{"Authorization", "BEARER\tsk-abc"}, "sk-abc"},
      {{"Authorization",
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250102/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb"},
       "AKIDEXAMPLE"},
      {{"Authorization", "Basic dXNlcjpwYXNz"}, "Basic dXNlcjpwYXNz"},  // another scheme
      {{"Authorization", "Bearer"}, "Bearer"},                          // no token: the value
      {{"Authorization", "Bearer "}, "Bearer"},
      {{"Authorization", "Bearersk-abc"}, "Bearersk-abc"},
      {{"Authorization", "AWS4-HMAC-SHA256 SignedHeaders=host"},
       "AWS4-HMAC-SHA256 SignedHeaders=host"},
      {{"Authorization", ""}, ""},
      {{"X-Api-Key", "Bearer sk-abc"}, "Bearer sk-abc"},  // only Authorization has schemes
      // RFC 9110 OWS around a value is not part of it: "k " is the tenant "k".
      {{"X-Api-Key", "k "}, "k"},
      {{"X-Api-Key", "\tk\t"}, "k"},
      {{"X-Api-Key", "a b "}, "a b"},
      {{"Authorization", " Basic dXNlcjpwYXNz\t"}, "Basic dXNlcjpwYXNz"},
      {{"Authorization", "Bearer sk-abc\t"}, "sk-abc"},
  };
  for (const auto& [header, key] : cases) {
    CAPTURE(header.first);
    CAPTURE(header.second);
    CHECK(credential_key(header.first, header.second) == key);
  }
}

TEST_CASE("attribute_send: each header form, in order, the first present deciding") {
  SendRules custom;
  custom.attempt_header = "X-Try";
  const std::vector<std::pair<HeaderList, SendAttribution>> cases{
      {{{"X-Attempt", "3"}}, attributed(SendRule::kXAttempt, 3)},
      {{{"X-Stainless-Retry-Count", "0"}}, attributed(SendRule::kStainlessRetryCount, 1)},
      {{{"x-stainless-retry-count", "2"}}, attributed(SendRule::kStainlessRetryCount, 3)},
      {{{"amz-sdk-request", "attempt=3; max=5"}}, attributed(SendRule::kAmzSdkRequest, 3)},
      {{{"Amz-Sdk-Request", "attempt=1; max=3"}}, attributed(SendRule::kAmzSdkRequest, 1)},
      {{{"X-Try", "4"}}, attributed(SendRule::kAttemptHeader, 4)},
      {{{"x-try", "4"}, {"X-Client-Id", "c"}}, attributed(SendRule::kAttemptHeader, 4)},
      // Order: ours, Stainless, AWS, the custom one, whatever order the request has them in.
      {{{"X-Stainless-Retry-Count", "1"}, {"X-Attempt", "5"}}, attributed(SendRule::kXAttempt, 5)},
      {{{"amz-sdk-request", "attempt=3"}, {"X-Stainless-Retry-Count", "0"}},
       attributed(SendRule::kStainlessRetryCount, 1)},
      {{{"X-Try", "9"}, {"amz-sdk-request", "attempt=2"}}, attributed(SendRule::kAmzSdkRequest, 2)},
      // A repeat with the same value is the same header; with another, nobody knows which.
      {{{"X-Attempt", "2"}, {"X-Attempt", "2"}}, attributed(SendRule::kXAttempt, 2)},
      {{{"X-Attempt", "2"}, {"x-attempt", "3"}}, {SendStatus::kMalformed, SendRule::kXAttempt}},
      {{{"X-Stainless-Retry-Count", "0"}, {"X-Stainless-Retry-Count", "1"}},
       {SendStatus::kMalformed, SendRule::kStainlessRetryCount}},
      // A malformed deciding header is not passed over for a later rule's guess.
      {{{"X-Attempt", "abc"}, {"X-Stainless-Retry-Count", "1"}},
       {SendStatus::kMalformed, SendRule::kXAttempt}},
      {{{"X-Stainless-Retry-Count", "-1"}, {"X-Request-Id", "r"}},
       {SendStatus::kMalformed, SendRule::kStainlessRetryCount}},
      {{{"amz-sdk-request", "attempt=4; max=3"}},
       {SendStatus::kMalformed, SendRule::kAmzSdkRequest}},
      {{{"X-Try", "0"}}, {SendStatus::kMalformed, SendRule::kAttemptHeader}},
      // Huge but whole: a send number it is (the stats put it in the last label).
      {{{"X-Attempt", "1000000000000"}}, attributed(SendRule::kXAttempt, 1'000'000'000'000)},
      {{}, {}},
      {{{"X-Other", "3"}}, {}},
      // Named items and clients must be named by something.
      {{{"X-Request-Id", ""}}, {SendStatus::kMalformed, SendRule::kItemHeader}},
      {{{"X-Client-Id", ""}}, {SendStatus::kMalformed, SendRule::kClientHeader}},
      {{{"X-Request-Id", "a"}, {"X-Request-Id", "b"}},
       {SendStatus::kMalformed, SendRule::kItemHeader}},
      // Spaces and tabs around a value are not part of it (RFC 9110 OWS): "3 " is 3, a
      // repeat that differs only in them agrees, and a blank name names nothing.
      {{{"X-Attempt", "3 "}}, attributed(SendRule::kXAttempt, 3)},
      {{{"X-Attempt", "2"}, {"X-Attempt", "2\t"}}, attributed(SendRule::kXAttempt, 2)},
      {{{"X-Stainless-Retry-Count", " 1 "}}, attributed(SendRule::kStainlessRetryCount, 2)},
      {{{"amz-sdk-request", "attempt=2; max=3 "}}, attributed(SendRule::kAmzSdkRequest, 2)},
      {{{"X-Try", "\t4\t"}}, attributed(SendRule::kAttemptHeader, 4)},
      {{{"X-Client-Id", " \t"}}, {SendStatus::kMalformed, SendRule::kClientHeader}},
  };
  for (const auto& [headers, want] : cases) {
    std::string shown;
    for (const auto& [name, value] : headers) shown += name + ": " + value + "; ";
    CAPTURE(shown);
    ItemCounts counts(10);
    const auto got = attribute(headers, counts, custom);
    CHECK(got == want);
    CHECK(got.attributed() == (got.send >= 1));
  }
  // Without --attempt-header, X-Try is just a header.
  ItemCounts counts(10);
  CHECK(attribute({{"X-Try", "4"}}, counts) == SendAttribution{});
}

TEST_CASE("attribute_send: the n-th arrival of an item is its n-th send") {
  ItemCounts counts(100);
  const auto item = [&](const HeaderList& h) { return attribute(h, counts); };
  CHECK(item({{"X-Request-Id", "r1"}}) == attributed(SendRule::kItemHeader, 1));
  CHECK(item({{"X-Request-Id", "r1"}}) == attributed(SendRule::kItemHeader, 2));
  CHECK(item({{"X-Request-Id", "r2"}}) == attributed(SendRule::kItemHeader, 1));
  CHECK(item({{"x-request-id", "r1"}, {"X-Client-Id", "c"}}) ==
        attributed(SendRule::kItemHeader, 3));
  // The item headers in order; an AWS SDK's invocation id names its call.
  CHECK(item({{"amz-sdk-invocation-id", "inv"}}) == attributed(SendRule::kItemHeader, 1));
  CHECK(item({{"Idempotency-Key", "inv"}, {"amz-sdk-invocation-id", "inv"}}) ==
        attributed(SendRule::kItemHeader, 2));
  CHECK(item({{"Idempotency-Key", "k"}}) == attributed(SendRule::kItemHeader, 1));
  // A declared number stands and does not count: the item's next counted arrival is its 4th.
  CHECK(item({{"X-Request-Id", "r1"}, {"X-Attempt", "9"}}) == attributed(SendRule::kXAttempt, 9));
  CHECK(item({{"X-Request-Id", "r1"}}) == attributed(SendRule::kItemHeader, 4));
  // One item per client: the client header, when no item header is sent.
  CHECK(item({{"X-Client-Id", "c1"}}) == attributed(SendRule::kClientHeader, 1));
  CHECK(item({{"X-Client-Id", "c1"}}) == attributed(SendRule::kClientHeader, 2));
  // A client and an item of one name are two keys.
  CHECK(item({{"X-Client-Id", "r1"}}) == attributed(SendRule::kClientHeader, 1));
  // A trailing space does not make another item or client.
  CHECK(item({{"X-Request-Id", "r2 "}}) == attributed(SendRule::kItemHeader, 2));
  CHECK(item({{"X-Client-Id", "c1\t"}}) == attributed(SendRule::kClientHeader, 3));
  CHECK(counts.items() == 6);
}

TEST_CASE("attribute_send: --item-header, --client-header Authorization, and rules off") {
  SendRules rules;
  rules.item_headers = {"X-Job"};
  rules.client_header = "Authorization";
  ItemCounts counts(100);
  const auto at = [&](const HeaderList& h) { return attribute(h, counts, rules); };
  CHECK(at({{"X-Request-Id", "r"}}) == SendAttribution{});  // no longer an item header
  CHECK(at({{"X-Job", "j"}}) == attributed(SendRule::kItemHeader, 1));
  CHECK(at({{"Authorization", "Bearer sk-1"}}) == attributed(SendRule::kClientHeader, 1));
  CHECK(at({{"authorization", "bearer  sk-1"}}) == attributed(SendRule::kClientHeader, 2));
  CHECK(at({{"Authorization", "Bearer sk-2"}}) == attributed(SendRule::kClientHeader, 1));
  SendHeaders h;
  offer_send_header(rules, h, "Authorization", "Bearer sk-1");
  CHECK(h.client.value == "sk-1");  // the arrival log's client_id

  rules.item_headers.clear();
  rules.client_header.clear();
  CHECK(at({{"X-Job", "j"}, {"Authorization", "Bearer sk-1"}, {"X-Client-Id", "c"}}) ==
        SendAttribution{});
}

TEST_CASE("ItemCounts: at most max_items keys; a new one beyond them is not counted") {
  ItemCounts counts(2);
  const auto a = item_key(SendRule::kItemHeader, "a");
  const auto b = item_key(SendRule::kItemHeader, "b");
  const auto c = item_key(SendRule::kItemHeader, "c");
  CHECK(counts.arrive(a) == 1);
  CHECK(counts.arrive(b) == 1);
  CHECK(counts.arrive(c) == std::nullopt);
  CHECK(counts.arrive(c) == std::nullopt);  // still not counted: never a wrong number later
  CHECK(counts.arrive(a) == 2);             // the counted ones go on
  CHECK(counts.items() == 2);
  counts.clear();
  CHECK(counts.items() == 0);
  CHECK(counts.arrive(c) == 1);
  CHECK(ItemCounts(0).max_items() == 1);

  // Through attribute_send: the arrival is unattributed, by cause.
  ItemCounts one(1);
  CHECK(attribute({{"X-Client-Id", "x"}}, one) == attributed(SendRule::kClientHeader, 1));
  CHECK(attribute({{"X-Client-Id", "y"}}, one) ==
        SendAttribution{SendStatus::kItemLimit, SendRule::kClientHeader});

  // Many keys: each counted once, then twice, in a table half full at most.
  ItemCounts many(5000);
  for (int round = 1; round <= 2; ++round) {
    for (int i = 0; i < 5000; ++i) {
      CAPTURE(i);
      REQUIRE(many.arrive(item_key(SendRule::kItemHeader, std::to_string(i))) == round);
    }
  }
  CHECK(many.arrive(item_key(SendRule::kItemHeader, "one more")) == std::nullopt);
  CHECK(item_key(SendRule::kItemHeader, "a") != item_key(SendRule::kClientHeader, "a"));
}

TEST_CASE("send_rule_label: the rule, or why there is no number") {
  CHECK(send_rule_label(attributed(SendRule::kStainlessRetryCount, 2)) ==
        "x-stainless-retry-count");
  CHECK(send_rule_label(attributed(SendRule::kAmzSdkRequest, 2)) == "amz-sdk-request");
  CHECK(send_rule_label(attributed(SendRule::kClientHeader, 2)) == "client-header");
  CHECK(send_rule_label({}) == "none");
  CHECK(send_rule_label({SendStatus::kMalformed, SendRule::kXAttempt}) == "malformed:x-attempt");
  CHECK(send_rule_label({SendStatus::kItemLimit, SendRule::kItemHeader}) ==
        "item_limit:item-header");
}
