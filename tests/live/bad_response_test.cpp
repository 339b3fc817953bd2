// Answers that are not HTTP/1.x, from a scripted server, through both clients: each is its own
// outcome, bad_response, counted the same by libcurl and the native client, retried, and never
// taken for an unreachable target.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "support/loadgen_run.hpp"
#include "support/scripted_server.hpp"

using namespace support;
using nlohmann::json;

namespace {

const char kOkAnswer[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

struct Kind {
  std::string name;
  std::string bytes;  // sent, then the connection is closed
  std::string outcome;
};

// Every malformed kind the issue names, and the two closes that are no answer at all.
std::vector<Kind> kinds() {
  const std::string pad(17 * 1024, 'p');
  return {
      {"status 999", "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", "bad_response"},
      {"a two-digit status", "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n", "bad_response"},
      {"a bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
       "bad_response"},
      {"HTTP/0.9", "hello, no status line\n", "bad_response"},
      {"a close after the status line", "HTTP/1.1 200 OK\r\n", "bad_response"},
      {"a close inside the head", "HTTP/1.1 200 OK\r\nContent-Len", "bad_response"},
      {"a close inside the body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
       "bad_response"},
      {"a 17 KiB head", "HTTP/1.1 200 OK\r\nX-Pad: " + pad + "\r\nContent-Length: 0\r\n\r\n",
       "bad_response"},
      {"endless 1xx",
       repeat("HTTP/1.1 100 Continue\r\n\r\n", 50) + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
       "bad_response"},
      {"a close with nothing", "", "connect_error"},
      {"a close inside the status line", "HTTP/1.1 20", "connect_error"},
  };
}

std::vector<std::string> outcomes(const Run& r) {
  std::vector<std::string> out;
  for (const auto& a : r.attempts) out.push_back(a["outcome"].get<std::string>());
  return out;
}

// The sends by outcome, from the results' histogram of the clients' view.
std::map<std::string, std::int64_t> sends_by_outcome(const json& results) {
  const auto& h = results["histograms"]["client_sends_by_outcome"];
  std::map<std::string, std::int64_t> out;
  for (const auto& row : h["counts"]) {
    for (std::size_t l = 0; l < row.size(); ++l) {
      if (row[l].get<std::int64_t>() > 0)
        out[h["labels"][l].get<std::string>()] += row[l].get<std::int64_t>();
    }
  }
  return out;
}

// One item, retried at most `retries` times after its first send.
Run one_item(const ScriptedServer& s, const std::string& client, int retries) {
  return run_loadgen({"--url", s.url(), "--clients", "1", "--strategy", "fixed", "--base", "10ms",
                      "--max-attempts", std::to_string(retries), "--http-client", client,
                      "--timeout", "5s"});
}

}  // namespace

TEST_CASE("live: a malformed answer is bad_response from both clients, not connect_error") {
  std::vector<Answer> script;
  std::vector<std::string> want;
  for (const auto& k : kinds()) {
    script.push_back({k.bytes, true});
    want.push_back(k.outcome);
  }
  script.push_back({kOkAnswer, true});
  want.push_back("ok");
  std::map<std::string, json> results;
  for (const std::string client : {"native", "libcurl"}) {
    CAPTURE(client);
    ScriptedServer s(script);
    // The first answer is malformed: the target is there, so the run goes on and delivers.
    const Run r = one_item(s, client, static_cast<int>(script.size()) - 1);
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(r.attempts.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      CAPTURE(kinds()[std::min(i, kinds().size() - 1)].name);
      CHECK(r.attempts[i]["outcome"] == want[i]);
      // A status libcurl would hand over (999) is not kept: neither client read one.
      if (want[i] != "ok") CHECK(r.attempts[i]["status"] == 0);
    }
    CHECK(r.results["summary"]["status_ratio_bad_response"].get<double>() > 0);
    const bool kept_999 =
        r.results["counts"].contains("statuses") && r.results["counts"]["statuses"].contains("999");
    CHECK_FALSE(kept_999);
    results[client] = r.results;
  }
  CHECK(sends_by_outcome(results["native"]) == sends_by_outcome(results["libcurl"]));
  CHECK(sends_by_outcome(results["native"]) ==
        std::map<std::string, std::int64_t>{{"bad_response", 9}, {"connect_error", 2}, {"ok", 1}});
}

TEST_CASE("live: ten 1xx before the answer are read by both clients, eleven are bad_response") {
  const std::string final_head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  for (const std::string client : {"native", "libcurl"}) {
    CAPTURE(client);
    ScriptedServer s({{repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 10) + final_head, true}});
    const Run r = one_item(s, client, 1);
    INFO(r.err);
    CHECK(outcomes(r) == std::vector<std::string>{"ok"});
    ScriptedServer eleven({{repeat("HTTP/1.1 103 Early Hints\r\n\r\n", 11) + final_head, true}});
    const Run bad = one_item(eleven, client, 1);
    CHECK(outcomes(bad) == std::vector<std::string>{"bad_response", "bad_response"});
  }
}

TEST_CASE(
    "live: a target that answers only garbage is reachable: the run fails on delivery, exit 1, "
    "not 3") {
  for (const std::string client : {"native", "libcurl"}) {
    CAPTURE(client);
    ScriptedServer s({{"HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", true}});
    const Run r = one_item(s, client, 2);
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("target unreachable") == std::string::npos);
    CHECK(r.err.find("the target answered only with what is not HTTP/1.x, bad_response to 3 of "
                     "3 requests") != std::string::npos);
    CHECK(outcomes(r) == std::vector<std::string>(3, "bad_response"));
    REQUIRE(r.dead_letters.size() == 1);
    CHECK(r.dead_letters[0]["last_outcome"] == "bad_response");
    CHECK(r.dead_letters[0]["reason"] == "attempts_exhausted");
  }
}

TEST_CASE(
    "live: a target that accepts and closes every connection unanswered is reachable: exit 1, "
    "not 3") {
  for (const std::string client : {"native", "libcurl"}) {
    CAPTURE(client);
    ScriptedServer s({{"", true}});
    const Run r = one_item(s, client, 1);
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("target unreachable") == std::string::npos);
    CHECK(outcomes(r) == std::vector<std::string>(2, "connect_error"));
    CHECK(r.results["live"]["first_send_connect_errors"] == 0);
  }
}

TEST_CASE("live: a malformed answer's Retry-After is not followed, by either client") {
  // A 429 whose chunked body breaks: the hint came with an answer that did not.
  const std::string broken =
      "HTTP/1.1 429 Slow\r\nRetry-After: 3600\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
  for (const std::string client : {"native", "libcurl"}) {
    CAPTURE(client);
    ScriptedServer s({{broken, true}, {kOkAnswer, true}});
    const Run r = run_loadgen({"--url", s.url(), "--clients", "1", "--strategy", "fixed", "--base",
                               "10ms", "--max-attempts", "1", "--retry-after", "exact",
                               "--http-client", client, "--timeout", "5s"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(outcomes(r) == std::vector<std::string>{"bad_response", "ok"});
    CHECK(r.attempts[0]["retry_after_s"].is_null());
  }
}

TEST_CASE("live: Retry-After between spaces and tabs is read by both clients") {
  for (const std::string client : {"native", "libcurl"}) {
    CAPTURE(client);
    ScriptedServer s(
        {{"HTTP/1.1 429 Slow\r\nRetry-After: \t0\t \r\nContent-Length: 0\r\n\r\n"}, {kOkAnswer}});
    const Run r = one_item(s, client, 1);
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(outcomes(r) == std::vector<std::string>{"429", "ok"});
    CHECK(r.attempts[0]["retry_after_s"] == 0.0);
  }
}
