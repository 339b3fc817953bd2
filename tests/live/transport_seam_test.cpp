// The transport seam's shared parts: libcurl's codes in the seam's words, the outcome each
// word makes, the one answer-header reader and the one request plan both clients serialise.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "live/http/answer_headers.hpp"
#include "live/http/curl_transport.hpp"
#include "live/http/request_plan.hpp"
#include "live/http/transport.hpp"
#include "policy/trace_format.hpp"

using namespace stampede;

TEST_CASE("transport seam: libcurl's codes map to the words the native client reports") {
  struct Row {
    CURLcode code;
    TransportError error;
    const char* name;
  };
  for (const Row& row : {Row{CURLE_OK, TransportError::kNone, ""},
                         Row{CURLE_COULDNT_CONNECT, TransportError::kRefused, "refused"},
                         Row{CURLE_COULDNT_RESOLVE_HOST, TransportError::kResolve, "resolve"},
                         Row{CURLE_SEND_ERROR, TransportError::kSendFailed, "send_failed"},
                         Row{CURLE_RECV_ERROR, TransportError::kReset, "reset"},
                         Row{CURLE_GOT_NOTHING, TransportError::kNoAnswer, "no_answer"},
                         Row{CURLE_PARTIAL_FILE, TransportError::kBadResponse, "bad_response"},
                         Row{CURLE_OPERATION_TIMEDOUT, TransportError::kTimeout, "timeout"},
                         Row{CURLE_PEER_FAILED_VERIFICATION, TransportError::kTls, "tls"},
                         Row{CURLE_ABORTED_BY_CALLBACK, TransportError::kAborted, "aborted"},
                         Row{CURLE_OUT_OF_MEMORY, TransportError::kOther, "other"}}) {
    CAPTURE(row.name);
    CHECK(transport_error_of(row.code) == row.error);
    CHECK(transport_error_name(row.error) == row.name);
  }
  CHECK(is_refusal(TransportError::kRefused));
  CHECK(is_refusal(TransportError::kResolve));
  CHECK_FALSE(is_refusal(TransportError::kReset));
  CHECK_FALSE(is_refusal(TransportError::kNoAnswer));
}

TEST_CASE("transport seam: what each error makes of the attempt") {
  AttemptAnswer a;
  a.status = 503;
  CHECK(outcome_of(a) == Outcome::kUnavailable);
  a.status = 0;
  a.transport_error = TransportError::kTimeout;
  CHECK(outcome_of(a) == Outcome::kTimeout);
  a.transport_error = TransportError::kBadResponse;
  CHECK(outcome_of(a) == Outcome::kBadResponse);
  a.transport_error = TransportError::kReset;
  CHECK(outcome_of(a) == Outcome::kConnectError);
  a.answer_began = true;  // cut off inside an answer: a broken one
  CHECK(outcome_of(a) == Outcome::kBadResponse);
}

TEST_CASE("transport seam: one reader keeps the answer headers the engine acts on") {
  LiveClient c;
  read_answer_header(c, "Retry-After", "7");
  read_answer_header(c, "X-SHOULD-RETRY", "false");
  read_answer_header(c, "ETag", "\"3\"");  // not occ: not kept
  CHECK(c.retry_after == "7");
  CHECK(c.should_retry == false);
  c.occ.emplace();
  read_answer_header(c, "etag", "\"4\"");
  read_answer_header(c, "retry-after", "9");  // the last of a name wins
  CHECK(c.occ->etag == "\"4\"");
  CHECK(c.retry_after == "9");
  // The rate-limit headers at 0 say which limits are used up (the token_limits section).
  read_answer_header(c, "anthropic-ratelimit-output-tokens-remaining", "0");
  read_answer_header(c, "anthropic-ratelimit-requests-remaining", "3");
  CHECK(classify_refusal("", c.exhausted) == TokenLimit::kOutputTokens);
  clear_answer_headers(c);
  CHECK(c.retry_after.empty());
  CHECK_FALSE(c.should_retry.has_value());
  CHECK(c.occ->etag.empty());
  CHECK(c.exhausted == 0);
}

TEST_CASE("transport seam: the rate-limit headers that say a limit is used up") {
  struct Row {
    std::string_view name, value;
    std::optional<TokenLimit> limit;
  };
  using L = TokenLimit;
  const std::vector<Row> rows{
      {"anthropic-ratelimit-requests-remaining", "0", L::kRequests},
      {"anthropic-ratelimit-tokens-remaining", " 0 ", L::kTokens},
      {"Anthropic-RateLimit-Input-Tokens-Remaining", "0", L::kInputTokens},
      {"anthropic-ratelimit-output-tokens-remaining", "0", L::kOutputTokens},
      {"x-ratelimit-remaining-requests", "0", L::kRequests},
      {"X-RateLimit-Remaining-Tokens", "0", L::kTokens},
      {"anthropic-ratelimit-output-tokens-remaining", "12", std::nullopt},
      {"anthropic-ratelimit-output-tokens-remaining", "", std::nullopt},
      {"anthropic-ratelimit-output-tokens-remaining", "00", std::nullopt},
      {"anthropic-ratelimit-output-tokens-limit", "0", std::nullopt},
      {"x-ratelimit-limit-tokens", "0", std::nullopt},
      {"retry-after", "0", std::nullopt},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(exhausted_limit(rows[i].name, rows[i].value) == rows[i].limit);
  }
}

TEST_CASE("transport seam: a kept body gives a 429's reason, an LLM answer's usage") {
  AttemptAnswer a;
  a.status = 429;
  read_kept_body(a, R"({"type":"error","error":{"reason":"concurrency_exceeded"}})", true);
  CHECK(a.error_reason == "concurrency_exceeded");
  CHECK_FALSE(a.usage_output_tokens);
  a = {};
  a.status = 200;
  read_kept_body(a, R"({"usage":{"input_tokens":2,"output_tokens":31}})", true);
  CHECK(a.usage_output_tokens == 31);
  a = {};
  a.status = 200;
  read_kept_body(a, R"({"usage":{"output_tokens":31}})", false);  // no LLM request: not read
  CHECK_FALSE(a.usage_output_tokens);
}

TEST_CASE("transport seam: a request plan holds every header both clients send") {
  LiveRequest r;
  r.method = "POST";
  r.body = "a=1";
  r.headers = {"X-Custom: yes", "Accept:"};
  r.api_keys = {"k0", "k1"};
  const LiveShared shared(Scenario{}, r, LiveOptions{});
  LiveClient c;
  c.id = 3;
  c.sends = 2;
  c.item_id = 41;
  RequestPlan plan;
  plan.build(shared, c);
  plan.next_attempt(c);
  const std::vector<std::string> lines(plan.lines().begin(), plan.lines().end());
  CHECK(lines == std::vector<std::string>{"X-Custom: yes", "Accept:", "X-Api-Key: k1",
                                          "X-Client-Id: 3", "X-Attempt: 2", "X-Request-Id: 41"});
  CHECK(plan.client_line_count() == 4);
  CHECK(std::string(plan.method()) == "POST");
  CHECK(plan.has_body());
  CHECK(plan.form_body());
  CHECK(plan.body() == "a=1");
  CHECK(removes_header("Accept:"));
  CHECK_FALSE(removes_header("X-Custom: yes"));
  CHECK(line_names("accept: x", "accept"));

  c.occ.emplace();
  c.occ->cycle.writing = true;
  c.occ->cycle.version = 5;
  RequestPlan occ;
  occ.build(shared, c);
  occ.next_attempt(c);
  CHECK(std::string(occ.method()) == "PUT");
  CHECK(occ.has_body());
  CHECK(occ.body().empty());
  CHECK_FALSE(occ.form_body());
  CHECK(std::string(occ.lines().back()) == "If-Match: \"5\"");
  c.occ->cycle.writing = false;
  occ.next_attempt(c);
  CHECK(std::string(occ.method()) == "GET");
  CHECK_FALSE(occ.has_body());
  CHECK(removes_header(occ.lines().back()));  // a read sends no If-Match
}

TEST_CASE("transport seam: a trace item's tenant and tokens are its attempts' own lines") {
  Scenario s;
  s.fleet.workload = WorkloadKind::kTrace;
  s.fleet.tokens = 7;
  LiveRequest r;
  r.api_keys = {"k0", "k1"};
  const LiveShared shared(s, r, LiveOptions{});
  LiveClient c;
  c.id = 1;
  RequestPlan plan;
  plan.build(shared, c);
  struct Row {
    std::optional<std::string> tenant;
    std::optional<std::int64_t> tokens;
    std::string tenant_line, tokens_line;
  };
  // One plan for item after item: its lines rewritten in place, a long key after a short one.
  for (const auto& row : std::vector<Row>{
           {"key-a", 1200, "X-Api-Key: key-a", "X-Tokens: 1200"},
           {std::nullopt, std::nullopt, "X-Api-Key: k1", "X-Tokens: 7"},
           {std::string(kMaxTraceTenant, 'k'), 0, "X-Api-Key: " + std::string(kMaxTraceTenant, 'k'),
            "X-Tokens: 0"},
           {"Bearer sk-1", std::nullopt, "X-Api-Key: Bearer sk-1", "X-Tokens: 7"},
       }) {
    CAPTURE(row.tenant_line);
    c.item_tenant = row.tenant;
    c.item_tokens = row.tokens;
    plan.next_attempt(c);
    const std::vector<std::string> lines(plan.lines().begin(), plan.lines().end());
    // The client's key and the fleet's tokens are no longer fixed lines: the item's replace them.
    CHECK(lines == std::vector<std::string>{"X-Client-Id: 1", "X-Attempt: 0", "X-Request-Id: -1",
                                            row.tenant_line, row.tokens_line});
    CHECK(plan.client_line_count() == 1);
  }

  // No keys and no --tokens: an item without its own sends neither header.
  s.fleet.tokens.reset();
  const LiveShared no_tokens(s, LiveRequest{}, LiveOptions{});
  RequestPlan none;
  none.build(no_tokens, c);
  c.item_tenant.reset();
  c.item_tokens.reset();
  none.next_attempt(c);
  CHECK(removes_header(none.lines()[3]));
  CHECK(removes_header(none.lines()[4]));
}
