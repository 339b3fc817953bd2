// --dialect, --retry-after-ms and --retry-after-jitter on the real binary, over loopback.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "model/provider_policy.hpp"
#include "model/retry_hint.hpp"
#include "model/send_attribution.hpp"
#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"

using namespace stampede;
using namespace support;
using json = nlohmann::json;

namespace {

// One of each answer a dialect writes, from one provider: a 200, a rate limit, a spend cap
// and an outage.
struct Answers {
  Response ok;
  Response limited;
  Response capped;
  Response outage;
};

Answers answers_of(const std::string& dialect) {
  // One request an hour, so no window turns mid-test; requests without X-Tokens cost nothing.
  RecordingProvider p({"--dialect", dialect, "--allowance", "1/h", "--spend-cap", "1",
                       "--default-tokens", "0", "--retry-after-ms", "on"});
  REQUIRE(p.started());
  Answers a;
  a.ok = http(p.data_port(), "POST", "/v1/x", {{"X-Api-Key", "a"}}, "{}");
  a.limited = http(p.data_port(), "POST", "/v1/x", {{"X-Api-Key", "a"}}, "{}");
  a.capped = http(p.data_port(), "POST", "/v1/x", {{"X-Api-Key", "b"}, {"X-Tokens", "5"}}, "{}");
  REQUIRE(http(p.admin_port(), "POST", "/admin/outage?for=1h&status=503").status == 200);
  a.outage = http(p.data_port(), "POST", "/v1/x", {{"X-Api-Key", "c"}}, "{}");
  const auto stats = p.stats();
  CHECK(p.stop() == 0);
  // The stats count what the model decided, whatever status the dialect wrote.
  CHECK(stats.at("totals").at("ok") == 1);
  CHECK(stats.at("totals").at("429") == 2);
  CHECK(stats.at("totals").at("503") == 1);
  return a;
}

json body(const Response& r) {
  return json::parse(r.body, nullptr, /*allow_exceptions=*/false);
}

// A hint's two headers agree: Retry-After is retry-after-ms in whole seconds, rounded up.
void check_hint(const Response& r) {
  REQUIRE(r.has("retry-after"));
  REQUIRE(r.has("retry-after-ms"));
  CHECK(r.header_int("retry-after") == (r.header_int("retry-after-ms") + 999) / 1000);
}

}  // namespace

TEST_CASE("--dialect openai: its rate-limit headers and error body, a 200 with choices") {
  const Answers a = answers_of("openai");
  CHECK(a.ok.status == 200);
  CHECK(a.ok.header("x-ratelimit-limit-requests") == "1");
  CHECK(a.ok.header("x-ratelimit-remaining-requests") == "0");
  CHECK(a.ok.header("x-ratelimit-reset-requests").find('m') != std::string::npos);  // "59m59.9s"
  CHECK_FALSE(a.ok.has("ratelimit-limit"));
  CHECK(body(a.ok).at("choices").at(0).at("message").at("content") == "ok");
  CHECK(a.limited.status == 429);
  check_hint(a.limited);
  CHECK(body(a.limited).at("error").at("code") == "rate_limit_exceeded");
  CHECK(a.capped.status == 429);
  CHECK(a.capped.header("x-should-retry") == "false");
  CHECK(body(a.capped).at("error").at("type") == "insufficient_quota");
  CHECK(a.outage.status == 503);
  check_hint(a.outage);
  CHECK(body(a.outage).at("error").at("type") == "server_error");
}

TEST_CASE("--dialect anthropic: anthropic-ratelimit-* headers, its errors, a Message") {
  const Answers a = answers_of("anthropic");
  CHECK(a.ok.status == 200);
  CHECK(a.ok.header("anthropic-ratelimit-requests-limit") == "1");
  CHECK(a.ok.header("anthropic-ratelimit-requests-reset").back() == 'Z');
  CHECK(body(a.ok).at("content").at(0).at("text") == "ok");
  CHECK(a.limited.status == 429);
  check_hint(a.limited);
  CHECK(body(a.limited).at("error").at("type") == "rate_limit_error");
  CHECK(a.capped.header("x-should-retry") == "false");
  CHECK(a.outage.status == 503);
}

TEST_CASE(
    "--dialect aws: a throttle is 400 ThrottlingException, the spend cap a 400 it does "
    "not retry") {
  const Answers a = answers_of("aws");
  CHECK(a.ok.status == 200);
  CHECK(a.ok.header("content-type") == "application/x-amz-json-1.0");
  CHECK_FALSE(a.ok.has("ratelimit-limit"));
  CHECK(a.limited.status == 400);
  CHECK(a.limited.header("x-amzn-errortype") == "ThrottlingException");
  CHECK(body(a.limited).at("__type") == "com.amazonaws.dynamodb.v20120810#ThrottlingException");
  check_hint(a.limited);
  CHECK(a.capped.status == 400);
  CHECK(a.capped.header("x-amzn-errortype") == "ServiceQuotaExceededException");
  CHECK_FALSE(a.capped.has("retry-after"));
  CHECK(a.outage.status == 503);
  CHECK(a.outage.header("x-amzn-errortype") == "ServiceUnavailable");
}

TEST_CASE("--dialect generic is the default, and --ratelimit-headers still picks the headers") {
  const Answers a = answers_of("generic");
  CHECK(a.ok.header("ratelimit-limit") == "1");
  CHECK(a.ok.body == R"({"type":"message","status":"ok"})");
  CHECK(a.limited.status == 429);
  RecordingProvider p(
      {"--dialect", "openai", "--ratelimit-headers", "anthropic", "--allowance", "1/h"});
  REQUIRE(p.started());
  const Response r = http(p.data_port(), "GET", "/");
  CHECK(p.stop() == 0);
  CHECK(r.header("anthropic-ratelimit-requests-limit") == "1");
  CHECK_FALSE(r.has("x-ratelimit-limit-requests"));
  CHECK(body(r).at("object") == "chat.completion");
}

TEST_CASE("curl reads each dialect's answer") {
  REQUIRE_MESSAGE(std::system("curl --version >/dev/null 2>&1") == 0,
                  "this test needs the curl CLI (Debian package curl)");
  for (const std::string dialect : {"openai", "anthropic", "aws", "generic"}) {
    CAPTURE(dialect);
    RecordingProvider p({"--dialect", dialect, "--allowance", "1/h", "--retry-after-ms", "on"});
    REQUIRE(p.started());
    const std::string out = p.dir().file("curl.out");
    const std::string url = "http://127.0.0.1:" + std::to_string(p.data_port()) + "/v1/x";
    // -D: the headers as curl parsed them; the second request is the rate-limited one.
    const std::string cmd = "curl -s -o " + p.dir().file("b1") + " " + url + " && curl -s -D " +
                            out + " -o " + p.dir().file("b2") + " -w '%{http_code}' " + url +
                            " > " + p.dir().file("code");
    CHECK(std::system(cmd.c_str()) == 0);
    CHECK(p.stop() == 0);
    const std::string headers = read_file(out);
    CHECK(read_file(p.dir().file("code")) == (dialect == "aws" ? "400" : "429"));
    CHECK(headers.find("retry-after-ms: ") != std::string::npos);
    CHECK(json::parse(read_file(p.dir().file("b2")), nullptr, false).is_object());
  }
}

namespace {

// Each of n clients sends twice; all but the very first send are turned away (1/h, one
// tenant). Returns each rejection's retry-after-ms by client and send, and checks each one
// against the model: the decision at its logged arrival, jittered for its client and send.
std::map<std::string, std::int64_t> jittered_hints(const std::string& seed, int n) {
  const Fields fields{{"provider.allowance", "1/h"}};
  auto args = provider_args(fields);
  args.insert(args.end(),
              {"--retry-after-ms", "on", "--retry-after-jitter", "0.5", "--seed", seed});
  RecordingProvider p(args);
  REQUIRE(p.started());
  std::map<std::string, std::int64_t> hints;
  for (int send = 1; send <= 2; ++send) {
    for (int c = 0; c < n; ++c) {
      const std::string id = "c" + std::to_string(c);
      const Response r = http(p.data_port(), "GET", "/", {{"X-Client-Id", id}});
      if (r.status == 429) hints[id + "/" + std::to_string(send)] = r.header_int("retry-after-ms");
    }
  }
  REQUIRE(p.stop() == 0);
  ProviderPolicy model(provider_config(fields));
  const auto rows = parse_csv(read_file(p.arrivals_path()));
  REQUIRE(rows.size() == static_cast<std::size_t>(2 * n + 1));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    CAPTURE(row[4]);
    const Decision d = model.admit(std::stoll(row[6]), row[1]);  // decided_t_ns
    if (d.status != 429) continue;
    CHECK(row[5] == "client-header");
    const std::uint64_t who = item_key(SendRule::kClientHeader, row[4]);
    REQUIRE(d.retry_after_ns);
    const std::int64_t plain = *d.retry_after_ns;
    const std::int64_t hint =
        jittered_retry_after_ns(plain, 0.5, std::stoull(seed), who, std::stoll(row[3]));
    CHECK(hints.at(row[4] + "/" + row[3]) == retry_after_ms_up(hint));
    // Never earlier than the limiter's own hint, at most half as long again.
    CHECK(retry_after_ms_up(hint) >= retry_after_ms_up(plain));
    CHECK(hint <= plain + plain / 2);
  }
  return hints;
}

}  // namespace

TEST_CASE("--retry-after-jitter gives each rejected client its own hint, the same for a seed") {
  const int n = 12;
  const auto a = jittered_hints("7", n);
  CHECK(a.size() == static_cast<std::size_t>(2 * n - 1));
  std::set<std::int64_t> distinct;
  for (const auto& [who, ms] : a) distinct.insert(ms / 1000);  // whole seconds: not the clock
  // The hour's hint times [1, 1.5): spread over half an hour, not one second for everyone.
  CHECK(distinct.size() >= static_cast<std::size_t>(n));
  // Without the jitter every client is told the same, to within the time between requests.
  RecordingProvider plain({"--allowance", "1/h", "--retry-after-ms", "on"});
  REQUIRE(plain.started());
  std::set<std::int64_t> plain_hints;
  for (int c = 0; c < 3; ++c) {
    const Response r = http(plain.data_port(), "GET", "/", {{"X-Client-Id", std::to_string(c)}});
    if (r.status == 429) plain_hints.insert(r.header_int("retry-after"));
  }
  CHECK(plain.stop() == 0);
  CHECK(plain_hints.size() == 1);
  // Another run, the same seed: the same draws (each checked against the model above, whose
  // draws depend on the seed, the client and the send only); another seed, other draws.
  const auto again = jittered_hints("7", n);
  const auto other = jittered_hints("8", n);
  int moved = 0;
  for (const auto& [who, ms] : a) {
    CAPTURE(who);
    // The limiter's hint shrinks by the time between the runs' arrivals; the draw does not.
    CHECK(std::llabs(again.at(who) - ms) < 3'000);
    if (std::llabs(other.at(who) - ms) >= 3'000) ++moved;
  }
  CHECK(moved > n);
}

TEST_CASE("bad dialect flags exit 2 with one line naming the flag's field") {
  struct Row {
    std::vector<std::string> args;
    const char* names;
  };
  for (const Row& row :
       {Row{{"--dialect", "gemini"}, "dialect"}, Row{{"--dialect", "OpenAI"}, "dialect"},
        Row{{"--retry-after-ms", "yes"}, "retry_after_ms"},
        Row{{"--retry-after-jitter", "1.5"}, "retry_after_jitter"},
        Row{{"--retry-after-jitter", "-0.1"}, "retry_after_jitter"},
        Row{{"--retry-after-jitter", "lots"}, "retry_after_jitter"},
        Row{{"--ratelimit-headers", "gemini"}, "ratelimit_headers"}}) {
    CAPTURE(row.args[1]);
    auto args = row.args;
    args.insert(args.end(), {"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"});
    const auto e = run_provider_to_exit(args);
    CHECK(e.code == 2);
    CHECK(e.out.empty());
    CHECK(e.err.rfind("fakeprovider: ", 0) == 0);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    CHECK(e.err.find(row.names) != std::string::npos);
  }
  const auto help = run_provider_to_exit({"--help"});
  for (const char* flag : {"--dialect", "--retry-after-ms", "--retry-after-jitter"}) {
    CAPTURE(flag);
    CHECK(help.out.find(flag) != std::string::npos);
  }
}
