#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "results.hpp"
#include "sim/sim_engine.hpp"
#include "support/process.hpp"
#include "token_recording.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

ExhaustedLimits exhausted(std::initializer_list<TokenLimit> limits) {
  ExhaustedLimits set = 0;
  for (const TokenLimit l : limits) set = with_limit(set, l);
  return set;
}

}  // namespace

TEST_CASE("a refusal's limit: the body's reason, else the most specific header at 0, else other") {
  struct Row {
    std::string_view reason;
    ExhaustedLimits headers;
    TokenLimit limit;
  };
  using L = TokenLimit;
  const std::vector<Row> rows{
      {"request_rate_exceeded", 0, L::kRequests},
      {"token_rate_exceeded", 0, L::kTokens},
      {"input_token_rate_exceeded", 0, L::kInputTokens},
      {"output_token_rate_exceeded", exhausted({L::kRequests}), L::kOutputTokens},
      {"concurrency_exceeded", 0, L::kConcurrency},
      {"spend_cap_exceeded", 0, L::kSpendCap},
      // Named but no limit's: request_too_large, an unknown reason.
      {"request_too_large", 0, L::kOther},
      {"bogus", 0, L::kOther},
      {"", 0, L::kOther},
      {"", exhausted({L::kRequests}), L::kRequests},
      {"", exhausted({L::kTokens, L::kRequests}), L::kTokens},
      {"", exhausted({L::kTokens, L::kOutputTokens, L::kRequests}), L::kOutputTokens},
      {"", exhausted({L::kTokens, L::kInputTokens}), L::kInputTokens},
      {"", exhausted({L::kInputTokens, L::kOutputTokens}), L::kOutputTokens},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(classify_refusal(rows[i].reason, rows[i].headers) == rows[i].limit);
  }
}

TEST_CASE("what a client reads of an LLM body: a 429's error.reason, an answer's usage") {
  CHECK(
      error_reason_in_body(
          R"({"type":"error","error":{"type":"rate_limit_error","reason":"output_token_rate_exceeded","message":"m"}})") ==
      "output_token_rate_exceeded");
  for (const char* body : {"", "not json", "[]", R"({"error":"x"})", R"({"error":{"reason":3}})",
                           R"({"error":{"type":"rate_limit_error"}})"}) {
    CAPTURE(body);
    CHECK(error_reason_in_body(body).empty());
  }
  CHECK(usage_output_tokens(R"({"usage":{"input_tokens":3,"output_tokens":17}})") == 17);
  CHECK(usage_output_tokens(R"({"usage":{"prompt_tokens":3,"completion_tokens":9}})") == 9);
  for (const char* body : {"", "{", R"({"usage":null})", R"({"usage":{"output_tokens":-1}})",
                           R"({"usage":{"output_tokens":1.5}})", R"({"choices":[]})"}) {
    CAPTURE(body);
    CHECK_FALSE(usage_output_tokens(body));
  }
}

TEST_CASE("the token_limits section: per second, merged by adding, round-tripped") {
  TokenRecording t;
  CHECK_FALSE(t.any());
  t.record_admitted(0, 10, 4096);
  t.record_admitted(kNsPerSec / 2, 10, 4096);
  t.record_settled(3 * kNsPerSec, 100, 4096);
  // Never more than was reserved, never below nothing.
  t.record_settled(3 * kNsPerSec, 5000, 4096);
  t.record_settled(3 * kNsPerSec, -3, 4096);
  t.record_refusal(kNsPerSec, TokenLimit::kOutputTokens);
  t.record_refusal(kNsPerSec, TokenLimit::kOutputTokens);
  t.record_refusal(2 * kNsPerSec, TokenLimit::kRequests);
  CHECK(t.any());
  CHECK(t.flow_total(TokenRecording::kAdmitted) == 2);
  CHECK(t.flow_total(TokenRecording::kInput) == 20);
  CHECK(t.flow_total(TokenRecording::kReserved) == 8192);
  CHECK(t.flow_total(TokenRecording::kSettled) == 4196);
  CHECK(t.flow_total(TokenRecording::kSettledAnswers) == 3);
  CHECK(t.flows.at(0, TokenRecording::kReserved) == 8192);
  CHECK(t.flows.at(3, TokenRecording::kSettled) == 4196);
  CHECK(refused_by_line(t) == "output tokens 2, requests 1");
  CHECK(refused_by_line(TokenRecording{}).empty());

  const json j = to_json(t);
  CHECK(j["output_tokens_reserved"] == 8192);
  CHECK(j["output_tokens_settled"] == 4196);
  CHECK(j["answers_settled"] == 3);
  CHECK(j["refused_by"]["output_tokens"] == 2);
  CHECK(j["refused_by"]["concurrency"] == 0);
  const TokenRecording back = token_recording_from_json(json::parse(j.dump()));
  CHECK(to_json(back) == j);
  // Two shards add up, second by second.
  TokenRecording merged = back;
  merged.merge(t);
  CHECK(merged.refused_by(TokenLimit::kOutputTokens) == 4);
  CHECK(merged.flows.at(0, TokenRecording::kInput) == 40);

  // Malformed: an error, never a silent default.
  for (const char* key : {"flows", "refusals"}) {
    CAPTURE(key);
    auto missing = j;
    missing.erase(key);
    CHECK_THROWS(token_recording_from_json(missing));
    auto wide = j;
    wide[key]["bin_ms"] = 2000;
    CHECK_THROWS_WITH(token_recording_from_json(wide),
                      (std::string("token_limits.") + key + ": bin_ms must be 1000").c_str());
    auto unknown = j;
    unknown[key]["labels"][0] = "bogus";
    CHECK_THROWS(token_recording_from_json(unknown));
  }

  // In a results document: only when recorded, and read back whole.
  auto s = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE_MESSAGE(s, s.error());
  Results r = simulate(*s);
  CHECK_FALSE(to_json(r).contains("token_limits"));
  r.recording.tokens = t;
  const json doc = to_json(r);
  REQUIRE(doc.contains("token_limits"));
  const auto read = results_from_json(json::parse(doc.dump()));
  REQUIRE_MESSAGE(read, read.error());
  CHECK(to_json(read->recording.tokens) == j);
  auto bad = doc;
  bad["token_limits"].erase("flows");
  CHECK_FALSE(results_from_json(bad));
}
