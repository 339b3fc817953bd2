// LLM answers on the wire (docs/LLM.md): a raw loopback socket posts the request and reads
// the streamed answer as it comes, so the test sees each event arrive, and sees that the next
// one has not yet when the pace says it is not due (never a wall-clock threshold: a token
// period of 500 ms is only what keeps the next event out of the same read).
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "model/llm_pacing.hpp"
#include "model/llm_stream.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"

using namespace support;
using stampede::Dialect;
using stampede::StreamFacts;

namespace {

// One request's answer, read a recv at a time.
class RawAnswer {
 public:
  RawAnswer(int port, const std::string& path, const std::string& body,
            const std::string& version = "HTTP/1.1") {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    const std::string request = "POST " + path + " " + version +
                                "\r\nHost: x\r\nContent-Type: application/json\r\n"
                                "Content-Length: " +
                                std::to_string(body.size()) + "\r\n\r\n" + body;
    REQUIRE(send(fd_, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size()));
  }
  ~RawAnswer() { close(fd_); }
  RawAnswer(const RawAnswer&) = delete;
  RawAnswer& operator=(const RawAnswer&) = delete;

  // Reads until needle is in what came n times (true), or the connection ends. The 30 s poll
  // is a safety net against a hang, never a pass/fail threshold.
  bool until(const std::string& needle, int n) {
    while (count(needle) < n) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 30'000) <= 0) return false;
      char buf[4096];
      const ssize_t got = recv(fd_, buf, sizeof buf, 0);
      if (got <= 0) {
        ended_ = true;
        return false;
      }
      got_.append(buf, static_cast<std::size_t>(got));
    }
    return true;
  }
  // Nothing more has come in, this instant.
  bool nothing_pending() const {
    pollfd p{fd_, POLLIN, 0};
    return poll(&p, 1, 0) == 0;
  }
  int count(const std::string& needle) const {
    int n = 0;
    for (std::size_t at = got_.find(needle); at != std::string::npos;
         at = got_.find(needle, at + 1))
      ++n;
    return n;
  }
  bool ended() const { return ended_; }
  std::string head() const { return got_.substr(0, got_.find("\r\n\r\n") + 4); }
  // The chunked body undone; what is after an unfinished chunk is left out.
  std::string body() const {
    std::string out;
    std::size_t at = got_.find("\r\n\r\n") + 4;
    while (at < got_.size()) {
      const std::size_t eol = got_.find("\r\n", at);
      if (eol == std::string::npos) break;
      const std::size_t size = std::stoul(got_.substr(at, eol - at), nullptr, 16);
      if (size == 0 || eol + 2 + size > got_.size()) break;
      out += got_.substr(eol + 2, size);
      at = eol + 2 + size + 2;
    }
    return out;
  }
  const std::string& raw() const { return got_; }

 private:
  int fd_ = -1;
  std::string got_;
  bool ended_ = false;
};

std::string model_stream(const StreamFacts& f) {
  std::string s = stampede::stream_head(f);
  for (std::int64_t k = 0; k < f.output_tokens; ++k) s += stampede::stream_token(f, k);
  return s + stampede::stream_tail(f);
}

// Every token of the answer comes alone: event k is in, k+1 not yet.
void read_paced(RawAnswer& a, const std::string& token_marker, int tokens) {
  for (int k = 1; k <= tokens; ++k) {
    REQUIRE(a.until(token_marker, k));
    CHECK(a.count(token_marker) == k);
    if (k < tokens) CHECK(a.nothing_pending());
  }
}

}  // namespace

TEST_CASE("llm stream: anthropic's events arrive one by one at the pace, byte for byte") {
  FakeProvider p({"--dialect", "anthropic", "--first-token", "500ms", "--token-rate", "2/s",
                  "--output-tokens", "3"});
  REQUIRE(p.started());
  RawAnswer a(p.data_port(), "/v1/messages", R"({"max_tokens":10,"stream":true})");
  // The head first, alone: the first token is due 500 ms later.
  REQUIRE(a.until("event: ping", 1));
  CHECK(a.count("content_block_delta") == 0);
  CHECK(a.nothing_pending());
  read_paced(a, "event: content_block_delta", 3);
  REQUIRE(a.until("0\r\n\r\n", 1));
  CHECK(a.head().starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK(a.head().find("Content-Type: text/event-stream\r\n") != std::string::npos);
  CHECK(a.head().find("Transfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(a.body() == model_stream({Dialect::kAnthropic, 0, 3, false, false}));
  CHECK(p.stats().at("streams_broken") == 0);
  // The pacing's own error, told on the way out: every token, measured at its write.
  CHECK(p.stop() == 0);
  CHECK(p.err().find("fakeprovider: 3 streamed tokens written late by p50 ") != std::string::npos);
}

TEST_CASE("llm stream: openai's chunks arrive one by one, the usage chunk, then [DONE]") {
  FakeProvider p({"--dialect", "openai", "--first-token", "500ms", "--token-rate", "2/s"});
  REQUIRE(p.started());
  RawAnswer a(
      p.data_port(), "/v1/chat/completions",
      R"({"max_completion_tokens":2,"stream":true,"stream_options":{"include_usage":true}})");
  REQUIRE(a.until("\"role\":\"assistant\"", 1));
  CHECK(a.count("\"delta\":{\"content\"") == 0);
  CHECK(a.nothing_pending());
  read_paced(a, "\"delta\":{\"content\"", 2);
  REQUIRE(a.until("0\r\n\r\n", 1));
  // Without --output-tokens the request's max_completion_tokens ends it: finish_reason length.
  CHECK(a.body() == model_stream({Dialect::kOpenAi, 0, 2, true, true}));
  CHECK(a.body().ends_with("data: [DONE]\n\n"));
}

TEST_CASE("llm stream: --stream-errors ends anthropic's stream with overloaded_error") {
  FakeProvider p({"--dialect", "anthropic", "--output-tokens", "6", "--stream-errors", "1"});
  REQUIRE(p.started());
  RawAnswer a(p.data_port(), "/v1/messages", R"({"max_tokens":10,"stream":true})");
  REQUIRE(a.until("0\r\n\r\n", 1));
  // The provider's first LLM answer: its break is the model's draw for request 0, seed 1.
  stampede::StreamConfig config;
  config.output_tokens = stampede::TokenRange{6, 6};
  config.errors = 1;
  const auto plan = stampede::plan_stream(config, 10, 1, 0);
  REQUIRE(plan.break_after.has_value());
  const StreamFacts f{Dialect::kAnthropic, 0, 6, false, false};
  std::string expected = stampede::stream_head(f);
  for (std::int64_t k = 0; k < *plan.break_after; ++k) expected += stampede::stream_token(f, k);
  expected += stampede::stream_break(f);
  CHECK(a.body() == expected);
  CHECK(a.count("message_stop") == 0);
  CHECK(p.stats().at("streams_broken") == 1);
}

TEST_CASE("llm stream: a broken stream shows in /metrics, the arrivals CSV and the results") {
  RecordingProvider p({"--dialect", "anthropic", "--output-tokens", "6", "--stream-errors", "1"});
  REQUIRE(p.started());
  {
    RawAnswer a(p.data_port(), "/v1/messages", R"({"max_tokens":10,"stream":true})");
    REQUIRE(a.until("event: error", 1));
  }
  // Not streamed: never broken.
  CHECK(http(p.data_port(), "POST", "/v1/messages", {}, R"({"max_tokens":10})").status == 200);
  const auto metrics = http(p.admin_port(), "GET", "/metrics");
  CHECK(metrics.body.find("\nfakeprovider_streams_broken_total 1\n") != std::string::npos);
  const auto results = nlohmann::json::parse(http(p.admin_port(), "GET", "/admin/results").body);
  CHECK(results.at("provider_results").at("streams_broken") == 1);
  REQUIRE(p.stop() == 0);
  const std::string csv = read_file(p.arrivals_path());
  CHECK(
      csv.starts_with("t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,"
                      "stream\n"));
  // The stream's row, then the plain answer's.
  const auto second_row = csv.find('\n', csv.find('\n') + 1) + 1;
  CHECK(csv.substr(0, second_row).ends_with(",,broken\n"));
  CHECK(csv.substr(second_row).ends_with(",,\n"));
  CHECK(csv.find('\n', second_row) + 1 == csv.size());
}

TEST_CASE("llm stream: --stream-errors cuts openai's connection mid-stream") {
  FakeProvider p({"--dialect", "openai", "--output-tokens", "6", "--stream-errors", "1"});
  REQUIRE(p.started());
  RawAnswer a(p.data_port(), "/v1/chat/completions", R"({"max_tokens":10,"stream":true})");
  CHECK_FALSE(a.until("0\r\n\r\n", 1));
  CHECK(a.ended());
  CHECK(a.count("[DONE]") == 0);
  CHECK(a.count("finish_reason\":\"") == 0);
  CHECK(p.stats().at("streams_broken") == 1);
}

TEST_CASE("llm stream: a worker of --processes counts its broken streams in the provider") {
  FakeProvider p(
      {"--dialect", "openai", "--output-tokens", "2", "--stream-errors", "1", "--processes", "2"});
  REQUIRE(p.started());
  for (int i = 0; i < 4; ++i) {
    RawAnswer a(p.data_port(), "/v1/chat/completions", R"({"max_tokens":10,"stream":true})");
    CHECK_FALSE(a.until("[DONE]", 1));
  }
  CHECK(p.stats().at("streams_broken") == 4);
}

TEST_CASE("llm answers: not streamed, one body with the usage; a bad body, the API's 400") {
  FakeProvider p({"--dialect", "anthropic", "--allowance", "100/s", "--output-tokens", "2"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const auto whole = c.request("POST", "/v1/messages", {}, R"({"max_tokens":10})");
  CHECK(whole.status == 200);
  CHECK(whole.header("content-type") == "application/json");
  CHECK(whole.has("anthropic-ratelimit-requests-limit"));
  CHECK(whole.body == stampede::llm_answer_body({Dialect::kAnthropic, 0, 2, false, false}));
  const auto bad = c.request("POST", "/v1/messages", {}, R"({"max_tokens":10,"stream":"yes"})");
  CHECK(bad.status == 400);
  CHECK(
      bad.body ==
      R"({"type":"error","error":{"type":"invalid_request_error","message":"stream: Input should be a valid boolean"}})");
  const auto not_json = c.request("POST", "/v1/messages", {}, "max_tokens=10");
  CHECK(not_json.status == 400);
  // Refused before the limiters: the stats count only the one answered 200.
  CHECK(p.stats().at("requests") == 1);
  // Without a body, the one-token answer fakeprovider has always sent; another path, too.
  CHECK(c.request("POST", "/v1/messages").body ==
        stampede::llm_answer_body({Dialect::kAnthropic, 0, 1, false, false}));
  CHECK(c.request("POST", "/v1/x", {}, "not json").status == 200);
}

TEST_CASE("llm answers: a refused body is not charged: the allowance's next request is served") {
  for (const auto* dialect : {"anthropic", "openai"}) {
    CAPTURE(dialect);
    const std::string path =
        std::string(dialect) == "openai" ? "/v1/chat/completions" : "/v1/messages";
    FakeProvider p({"--dialect", dialect, "--allowance", "1/h", "--output-tokens", "1"});
    REQUIRE(p.started());
    Connection c(p.data_port());
    CHECK(c.request("POST", path, {}, R"({"stream":true})").status == 400);
    CHECK(c.request("POST", path, {}, "{").status == 400);
    // Over the most fakeprovider reads of a body: 413, the connection still usable.
    CHECK(c.request("POST", path, {}, std::string((1 << 20) + 1, ' ')).status == 413);
    CHECK(c.request("POST", path, {}, R"({"max_tokens":4})").status == 200);
    CHECK(c.request("POST", path, {}, R"({"max_tokens":4})").status == 429);
    CHECK(p.stats().at("requests") == 2);
  }
}

TEST_CASE("llm answers: the usage's input tokens: the declared X-Tokens, else the prompt's") {
  FakeProvider p({"--dialect", "anthropic", "--output-tokens", "2"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  // "hello world!" and "abcd": 16 bytes of text, 4 tokens.
  const std::string body =
      R"({"max_tokens":10,"system":"abcd","messages":[{"role":"user","content":"hello world!"}]})";
  CHECK(c.request("POST", "/v1/messages", {}, body).body ==
        stampede::llm_answer_body({Dialect::kAnthropic, 4, 2, false, false}));
  CHECK(c.request("POST", "/v1/messages", {{"X-Tokens", "40"}}, body).body ==
        stampede::llm_answer_body({Dialect::kAnthropic, 40, 2, false, false}));
  RawAnswer a(p.data_port(), "/v1/messages",
              R"({"max_tokens":10,"stream":true,"messages":[{"role":"user","content":"abcde"}]})");
  REQUIRE(a.until("event: message_stop", 1));
  CHECK(a.body() == model_stream({Dialect::kAnthropic, 2, 2, false, false}));
}

TEST_CASE("llm stream: a stop mid-stream sends the rest at once, the stream ends well") {
  // An hour a token: only the stop can end this stream.
  FakeProvider p({"--dialect", "anthropic", "--token-rate", "1/h", "--output-tokens", "3"});
  REQUIRE(p.started());
  RawAnswer a(p.data_port(), "/v1/messages", R"({"max_tokens":10,"stream":true})");
  REQUIRE(a.until("event: content_block_delta", 1));
  CHECK(p.stop() == 0);
  REQUIRE(a.until("0\r\n\r\n", 1));
  CHECK(a.body() == model_stream({Dialect::kAnthropic, 0, 3, false, false}));
  // Only the first went at its time: the two the stop sent early were not late.
  CHECK(p.err().find("fakeprovider: 1 streamed token written late by p50 ") != std::string::npos);
}

TEST_CASE("llm stream: an HTTP/1.0 client gets the events unchunked, ended by the close") {
  FakeProvider p({"--dialect", "anthropic", "--output-tokens", "2"});
  REQUIRE(p.started());
  RawAnswer a(p.data_port(), "/v1/messages", R"({"max_tokens":10,"stream":true})", "HTTP/1.0");
  CHECK_FALSE(a.until("never sent", 1));
  CHECK(a.ended());
  CHECK(a.head().find("Transfer-Encoding") == std::string::npos);
  CHECK(a.head().find("Connection: close\r\n") != std::string::npos);
  CHECK(a.raw().substr(a.head().size()) == model_stream({Dialect::kAnthropic, 0, 2, false, false}));
}

TEST_CASE("llm limits: output tokens reserved at max_tokens refuse the 11th, refunded at the end") {
  // 40,960 output tokens a minute: ten reservations of 4096 fill it. The answers' one
  // 50-token part comes 3 s after their heads, so they are all open when the 11th comes.
  FakeProvider p({"--dialect", "anthropic", "--output-token-allowance", "40960/min",
                  "--output-tokens", "50", "--first-token", "3s"});
  REQUIRE(p.started());
  const std::string body = R"({"max_tokens":4096,"stream":true})";
  std::vector<std::unique_ptr<RawAnswer>> open;
  for (int i = 0; i < 10; ++i) {
    open.push_back(std::make_unique<RawAnswer>(p.data_port(), "/v1/messages", body));
    REQUIRE(open.back()->until("event: message_start", 1));
    CHECK(open.back()->head().find("HTTP/1.1 200") == 0);
  }
  Connection c(p.data_port());
  const auto over = c.request("POST", "/v1/messages", {}, R"({"max_tokens":4096})");
  CHECK(over.status == 429);
  CHECK(over.body.find("output_token_rate_exceeded") != std::string::npos);
  CHECK(over.has("retry-after"));
  CHECK(over.header("anthropic-ratelimit-output-tokens-limit") == "40960");
  // Each ends having written 50 tokens: 4046 of each reservation go back as it ends.
  for (auto& a : open) REQUIRE(a->until("event: message_stop", 1));
  const auto next = c.request("POST", "/v1/messages", {}, R"({"max_tokens":4096})");
  REQUIRE(next.status == 200);
  // 10 x 4046 back, 4096 reserved again (with what refilled meanwhile, up to a full bucket).
  const long remaining = std::stol(next.header("anthropic-ratelimit-output-tokens-remaining"));
  CHECK(remaining >= 40960 - 10 * 50 - 4096);
  CHECK(remaining <= 40960 - 4096);
}

TEST_CASE("llm limits: a body refused before admission charges no input or output tokens") {
  FakeProvider p({"--dialect", "anthropic", "--input-token-allowance", "10/min",
                  "--output-token-allowance", "100/min", "--max-concurrent", "1"});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const std::string prompt =
      R"("messages":[{"role":"user","content":"0123456789012345678901234567890123456789"}])";
  for (const std::string& bad :
       {std::string("{") + prompt + "}", std::string(R"({"max_tokens":-1,)") + prompt + "}",
        std::string("not json")}) {
    CAPTURE(bad);
    CHECK(c.request("POST", "/v1/messages", {}, bad).status == 400);
  }
  // A max_tokens past any allowance can never be admitted: 429 not to retry, nothing kept.
  const auto huge = c.request("POST", "/v1/messages", {}, R"({"max_tokens":18446744073709551615})");
  CHECK(huge.status == 429);
  CHECK(huge.header("x-should-retry") == "false");
  // All ten input tokens and all 100 output tokens are still there.
  const auto whole =
      c.request("POST", "/v1/messages", {}, std::string(R"({"max_tokens":100,)") + prompt + "}");
  CHECK(whole.status == 200);
  CHECK(whole.header("anthropic-ratelimit-input-tokens-remaining") == "0");
  CHECK(whole.header("anthropic-ratelimit-output-tokens-remaining") == "0");
}

TEST_CASE("llm limits: --max-concurrent refuses while the answers are open, admits when they end") {
  // The one answer's tokens come 2 s after its head: it is open when the second request comes.
  FakeProvider p({"--dialect", "openai", "--max-concurrent", "1", "--first-token", "2s",
                  "--output-tokens", "1", "--retry-after-ms", "on"});
  REQUIRE(p.started());
  RawAnswer open(p.data_port(), "/v1/chat/completions", R"({"max_tokens":5,"stream":true})");
  REQUIRE(open.until("data: ", 1));
  Connection c(p.data_port());
  const auto over = c.request("POST", "/v1/chat/completions", {}, R"({"max_tokens":5})");
  CHECK(over.status == 429);
  CHECK(over.body.find("concurrent requests") != std::string::npos);
  // The hint is the open answer's expected end, at most its 2 s away.
  const long hint_ms = std::stol(over.header("retry-after-ms"));
  CHECK(hint_ms >= 1);
  CHECK(hint_ms <= 2000);
  REQUIRE(open.until("data: [DONE]", 1));
  CHECK(c.request("POST", "/v1/chat/completions", {}, R"({"max_tokens":5})").status == 200);
}
