// fakeprovider's flags checked into one ProviderRun (fakeprovider/cli/provider_args): each
// mistake is its own line naming its flag and the fix, every one of them at once, and a
// command line without one gives the run the server is started from.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/provider_args.hpp"
#include "duration.hpp"

using namespace stampede;

namespace {

struct FlagRow {
  const char* name;
  void (*set)(ProviderArgs&);
  // Each error in order: the whole line, or (ending in "...") how it starts.
  std::vector<std::string> errors;
};

void check_flag_errors(const Errors& got, const std::vector<std::string>& wanted) {
  std::string said;
  for (const auto& e : got) said += e + "\n";
  CAPTURE(said);
  REQUIRE(got.size() == wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const auto& w = wanted[i];
    if (w.ends_with("...")) {
      CHECK(got[i].rfind(w.substr(0, w.size() - 3), 0) == 0);
    } else {
      CHECK(got[i] == w);
    }
  }
}

const char* const kNotAHeaderName =
    "' is not a header name; expected letters, digits and !#$%&'*+-.^_`|~, e.g. X-Request-Id";

const std::vector<FlagRow>& flag_rows() {
  static const std::vector<FlagRow> table{
      {"the defaults", [](ProviderArgs&) {}, {}},
      {"a scenario field's value",
       [](ProviderArgs& a) { a.values["provider.allowance"] = {"banana"}; },
       {"--allowance (provider.allowance): 'banana' is not a rate..."}},
      {"--time-scale 0", [](ProviderArgs& a) { a.time_scale = "0"; }, {"--time-scale: ..."}},
      {"--bin not a duration", [](ProviderArgs& a) { a.bin = "soon"; }, {"--bin: ..."}},
      {"--bin 0s",
       [](ProviderArgs& a) { a.bin = "0s"; },
       {"--bin: '0s' must be a whole number of milliseconds, from 1ms to 1h, e.g. 1s or 100ms"}},
      {"--bin 1500us", [](ProviderArgs& a) { a.bin = "1500us"; }, {"--bin: '1500us' must be..."}},
      {"--bin 2h, wider than a histogram may declare",
       [](ProviderArgs& a) { a.bin = "2h"; },
       {"--bin: '2h' must be..."}},
      {"--listen without a port", [](ProviderArgs& a) { a.listen = "nohost"; }, {"--listen: ..."}},
      {"--admin-listen beyond loopback without a token",
       [](ProviderArgs& a) { a.admin_listen = "0.0.0.0:0"; },
       {"--admin-listen: '0.0.0.0:0' is reachable beyond this machine; give --admin-token TOKEN "
        "(or "
        "FAKEPROVIDER_ADMIN_TOKEN) so that it requires 'Authorization: Bearer TOKEN', or bind it "
        "to 127.0.0.1"}},
      {"--admin-listen beyond loopback with a token",
       [](ProviderArgs& a) {
         a.admin_listen = "0.0.0.0:0";
         a.admin_token = "s3cret";
       },
       {}},
      {"--max-connections 0",
       [](ProviderArgs& a) { a.max_connections = 0; },
       {"--max-connections: must be at least 1"}},
      {"--threads 0", [](ProviderArgs& a) { a.threads = 0; }, {"--threads: 0 is not 1-64"}},
      {"--processes 65",
       [](ProviderArgs& a) { a.processes = 65; },
       {"--processes: 65 is not 1-64"}},
      {"--arrival-stamp",
       [](ProviderArgs& a) { a.arrival_stamp = "sometimes"; },
       {"--arrival-stamp: 'sometimes' is not kernel, watch or read"}},
      {"--idle-timeout in part seconds",
       [](ProviderArgs& a) { a.idle_timeout = "1.5s"; },
       {"--idle-timeout: '1.5s' must be a whole number of seconds, at least 1s, e.g. 600s"}},
      {"--header-timeout below zero",
       [](ProviderArgs& a) { a.header_timeout = "-1s"; },
       {"--header-timeout: ..."}},
      {"--attempt-header not a name",
       [](ProviderArgs& a) { a.attempt_header = "X Try"; },
       {std::string("--attempt-header: 'X Try") + kNotAHeaderName}},
      {"--attempt-header read already",
       [](ProviderArgs& a) { a.attempt_header = "x-stainless-retry-count"; },
       {"--attempt-header: x-stainless-retry-count is read already, before it"}},
      {"--item-header: each bad name",
       [](ProviderArgs& a) { a.item_header = "X Job,X-Request-Id,,X-Job"; },
       {std::string("--item-header: 'X Job") + kNotAHeaderName,
        std::string("--item-header: '") + kNotAHeaderName}},
      {"--item-header: too many",
       [](ProviderArgs& a) { a.item_header = "A,B,C,D,E,F,G,H,I"; },
       {"--item-header: 9 names; at most 8"}},
      {"--client-header not a name",
       [](ProviderArgs& a) { a.client_header = "X:Client"; },
       {std::string("--client-header: 'X:Client") + kNotAHeaderName}},
      {"--max-items 0",
       [](ProviderArgs& a) { a.max_items = "0"; },
       {"--max-items: '0' is not a whole number from 1 to 10000000"}},
      {"--max-items beyond its limit",
       [](ProviderArgs& a) { a.max_items = "10000001"; },
       {"--max-items: '10000001' is not a whole number from 1 to 10000000"}},
      {"--hint-tolerance 0s",
       [](ProviderArgs& a) { a.hint_tolerance = "0s"; },
       {"--hint-tolerance: '0s' is not a duration above zero, e.g. 100ms or 1s"}},
      {"--http-server unknown",
       [](ProviderArgs& a) { a.http_server = "nginx"; },
       {"--http-server: 'nginx' is not auto or native; the data plane's own server serves every "
        "mode: drop --http-server (or give native)"}},
      {"--store not a redis URL",
       [](ProviderArgs& a) { a.store = "http://127.0.0.1:9"; },
       {"--store: ..."}},
      {"a proxy flag without --upstream",
       [](ProviderArgs& a) { a.upstream.insecure = true; },
       {"--upstream-cacert, --upstream-insecure and --upstream-strip-headers are for proxy "
        "mode; give --upstream URL too"}},
      {"every proxy flag's mistake",
       [](ProviderArgs& a) {
         a.values["provider.upstream"] = {"http://127.0.0.1:9"};
         a.upstream.insecure = true;
         a.upstream.timeout = "1500ms";
         a.upstream.connections = 0;
         a.upstream.max_body = "8MB";
       },
       {"--upstream-cacert and --upstream-insecure are for an https upstream; "
        "'http://127.0.0.1:9' is http",
        "--upstream-timeout: '1500ms' must be a whole number of seconds, at least 1s, e.g. 30s",
        "--upstream-connections: 0 is not 1-10000", "--max-body: '8MB' is not a byte count..."}},
      {"--first-token below zero",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"anthropic"};
         a.values["provider.first_token"] = {"-1s"};
       },
       {"--first-token (provider.first_token): '-1s' is not a duration (negative)..."}},
      {"--token-rate of no tokens",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"anthropic"};
         a.values["provider.token_rate"] = {"0/s"};
       },
       {"--token-rate (provider.token_rate): '0/s' is not a rate (count must be positive)..."}},
      {"--output-tokens upside down",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"anthropic"};
         a.values["provider.output_tokens"] = {"400-50"};
       },
       {"--output-tokens (provider.output_tokens): '400-50' is a range whose end is below its "
        "start; give a token count such as 200, or a range MIN-MAX such as 50-400"}},
      {"--stream-errors above 1",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"anthropic"};
         a.values["provider.stream_errors"] = {"1.5"};
       },
       {"--stream-errors (provider.stream_errors): '1.5' is not a fraction between 0 and 1"}},
      {"--output-tokens not a count",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"openai"};
         a.values["provider.output_tokens"] = {"lots"};
       },
       {"--output-tokens (provider.output_tokens): 'lots' is not a whole number of tokens >= 0 or "
        "a range of them; give a token count such as 200, or a range MIN-MAX such as 50-400"}},
      {"--output-tokens beyond its bound",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"openai"};
         a.values["provider.output_tokens"] = {"1-2000000"};
       },
       {"--output-tokens (provider.output_tokens): '1-2000000' is over 1000000 tokens..."}},
      {"stream flags outside the LLM dialects",
       [](ProviderArgs& a) { a.values["provider.token_rate"] = {"20/s"}; },
       {"provider.dialect: --first-token, --token-rate, --output-tokens and --stream-errors "
        "shape LLM answers; give --dialect anthropic or --dialect openai (it is generic)"}},
      {"stream flags in proxy mode",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"openai"};
         a.values["provider.upstream"] = {"http://127.0.0.1:9"};
         a.values["provider.stream_errors"] = {"0.1"};
       },
       {"provider.upstream: in proxy mode the upstream writes the answers; leave out "
        "--first-token, --token-rate, --output-tokens and --stream-errors"}},
      {"the LLM limits outside the LLM dialects",
       [](ProviderArgs& a) { a.values["provider.max_concurrent"] = {"0"}; },
       {"provider.max_concurrent: must be at least 1; provider.dialect: --input-token-allowance, "
        "--output-token-allowance and --max-concurrent are read from LLM request bodies; give "
        "--dialect anthropic or --dialect openai (it is generic)"}},
      {"the LLM limits with --processes and --store",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"anthropic"};
         a.values["provider.output_token_allowance"] = {"40960/min"};
         a.processes = 2;
         a.store = "redis://127.0.0.1:9";
       },
       {"--processes: --input-token-allowance, --output-token-allowance and --max-concurrent are "
        "not yet supported with --processes; run one process without a store",
        "--store: --input-token-allowance, --output-token-allowance and --max-concurrent are not "
        "yet supported with --store; run one process without a store"}},
      {"provider.models with --processes and --store",
       [](ProviderArgs& a) {
         a.values["provider.dialect"] = {"anthropic"};
         a.values["provider.models"] = {R"({"small": {"allowance": "1/min"}})"};
         a.processes = 2;
         a.store = "redis://127.0.0.1:9";
       },
       {"--processes: provider.models is not yet supported with --processes; run one process "
        "without a store",
        "--store: provider.models is not yet supported with --store; run one process without a "
        "store"}},
      {"an output in no folder",
       [](ProviderArgs& a) { a.stats_out = "/nonexistent/stats.json"; },
       {"--stats-out: ..."}},
      // The scenario may give the upstream: with it unreadable the proxy flags are not judged.
      {"a bad scenario hides what depends on it",
       [](ProviderArgs& a) {
         a.values["provider.allowance"] = {"banana"};
         a.upstream.insecure = true;
         a.store = "redis://127.0.0.1:9";
       },
       {"--allowance (provider.allowance): ..."}},
      {"several at once: every one, in the flags' order",
       [](ProviderArgs& a) {
         a.values["provider.allowance"] = {"banana"};
         a.time_scale = "0";
         a.bin = "0s";
         a.listen = "nohost";
         a.threads = 0;
         a.processes = 0;
         a.arrival_stamp = "sometimes";
         a.idle_timeout = "soon";
         a.client_header = "X:Client";
         a.max_items = "many";
         a.http_server = "nginx";
         a.arrivals_out = "/nonexistent/arrivals.csv";
         a.results_out = "/nonexistent/results.json";
         a.store = "mysql://db";
       },
       {"--allowance (provider.allowance): ...", "--time-scale: ...", "--bin: ...", "--listen: ...",
        "--threads: ...", "--processes: ...", "--arrival-stamp: ...", "--idle-timeout: ...",
        "--client-header: ...", "--max-items: ...", "--http-server: ...", "--arrivals-out: ...",
        "--results-out: ...", "--store: ..."}},
  };
  return table;
}

ProviderRun checked_provider_run(const ProviderArgs& a) {
  const auto run = check_provider_run(a);
  const std::string first_error = run.errors.empty() ? "" : run.errors.front();
  CAPTURE(first_error);
  REQUIRE(run.command.has_value());
  return *run.command;
}

}  // namespace

TEST_CASE("fakeprovider's flags: each bad one is an error naming it, every one at once") {
  for (const auto& row : flag_rows()) {
    const std::string name = row.name;
    CAPTURE(name);
    ProviderArgs args;
    row.set(args);
    const auto run = check_provider_run(args);
    check_flag_errors(run.errors, row.errors);
    CHECK(run.command.has_value() == row.errors.empty());
  }
}

TEST_CASE("fakeprovider's flags: the defaults give the run --help promises") {
  const ProviderRun run = checked_provider_run({});
  CHECK(run.data_plane.listen.host == "127.0.0.1");
  CHECK(run.data_plane.listen.port == 8080);
  CHECK(run.admin_listen.port == 8081);
  CHECK(run.time_scale == 1);
  CHECK(run.bin_ns == kNsPerSec);
  CHECK(run.data_plane.max_connections == 16000);
  CHECK(run.data_plane.threads == 2);
  CHECK(run.processes == 1);
  CHECK(run.data_plane.stamping == ArrivalStamping::kKernel);
  CHECK(run.data_plane.idle_timeout_s == 600);
  CHECK(run.data_plane.header_timeout_ns == 10 * kNsPerSec);
  CHECK_FALSE(run.data_plane.upstream.has_value());
  CHECK_FALSE(run.store.has_value());
  const SendRules defaults;
  CHECK(run.send_rules.attempt_header.empty());
  CHECK(run.send_rules.item_headers == defaults.item_headers);
  CHECK(run.send_rules.client_header == "X-Client-Id");
  CHECK(run.send_rules.max_items == 1'000'000);
  CHECK(run.send_rules.hint_tolerance_ns == 100 * kNsPerMs);
  CHECK(run.stop_wait_ns == 5 * kNsPerSec);  // no service time: the few seconds more only
}

TEST_CASE("fakeprovider's flags: what each one sets in the run") {
  ProviderArgs a;
  a.values["provider.latency"] = {"100ms-300ms"};
  a.values["provider.hop_delay"] = {"10ms,2ms"};
  a.time_scale = "0.5";
  a.bin = "100ms";
  a.arrival_stamp = "watch";
  a.idle_timeout = "30s";
  a.header_timeout = "0s";
  a.attempt_header = "X-Try";
  a.item_header = "none";
  a.client_header = "Authorization";
  a.max_items = "10";
  a.hint_tolerance = "1s";
  a.store = "redis://127.0.0.1:9/runs";  // not reached: checking connects to nothing
  a.processes = 3;
  const ProviderRun run = checked_provider_run(a);
  CHECK(run.time_scale == 0.5);
  CHECK(run.bin_ns == 100 * kNsPerMs);
  CHECK(run.data_plane.stamping == ArrivalStamping::kWatch);
  CHECK(run.data_plane.idle_timeout_s == 30);
  CHECK(run.data_plane.header_timeout_ns == 0);
  CHECK(run.send_rules.attempt_header == "X-Try");
  CHECK(run.send_rules.item_headers.empty());
  CHECK(run.send_rules.client_header == "Authorization");
  CHECK(run.send_rules.max_items == 10);
  CHECK(run.send_rules.hint_tolerance_ns == kNsPerSec);
  REQUIRE(run.store.has_value());
  CHECK(run.store->target.where() == "127.0.0.1:9");
  CHECK(run.store->target.prefix == "runs");
  CHECK(run.processes == 3);
  a.http_server = "native";  // named, as scripts did when there were two servers: taken
  CHECK(checked_provider_run(a).processes == 3);
  // The longest service time and two hops of up to six deviations, on the wall, + 5 s.
  CHECK(run.stop_wait_ns == (300 + 2 * (10 + 6 * 2)) * kNsPerMs / 2 + 5 * kNsPerSec);
}

TEST_CASE("fakeprovider's flags: the stream flags set the provider's StreamConfig") {
  ProviderArgs a;
  a.values["provider.dialect"] = {"anthropic"};
  a.values["provider.first_token"] = {"800ms"};
  a.values["provider.token_rate"] = {"20/s"};
  a.values["provider.output_tokens"] = {"50-400"};
  a.values["provider.stream_errors"] = {"0.05"};
  const StreamConfig& got = checked_provider_run(a).scenario.provider.stream;
  CHECK(got.first_token_ns == 800 * kNsPerMs);
  CHECK(got.token_rate == Rate{20, kNsPerSec});
  CHECK(got.output_tokens == TokenRange{50, 400});
  CHECK(got.errors == 0.05);
  a.values["provider.output_tokens"] = {"200"};
  CHECK(checked_provider_run(a).scenario.provider.stream.output_tokens == TokenRange{200, 200});
  CHECK(checked_provider_run({}).scenario.provider.stream == StreamConfig{});
}

TEST_CASE("fakeprovider's flags: the LLM limits set the provider's") {
  ProviderArgs a;
  a.values["provider.dialect"] = {"openai"};
  a.values["provider.input_token_allowance"] = {"40000/min"};
  a.values["provider.output_token_allowance"] = {"8000/min"};
  a.values["provider.max_concurrent"] = {"4"};
  const ProviderConfig got = checked_provider_run(a).scenario.provider;
  CHECK(got.input_token_allowance == Rate{40000, 60 * kNsPerSec});
  CHECK(got.output_token_allowance == Rate{8000, 60 * kNsPerSec});
  CHECK(got.max_concurrent == 4);
}

TEST_CASE("fakeprovider's flags: proxy mode reads the scenario's upstream and the send rules") {
  ProviderArgs a;
  a.values["provider.upstream"] = {"http://127.0.0.1:9/v1"};
  a.values["provider.tenant_header"] = {"X-Tenant"};
  a.client_header = "X-Caller";
  a.upstream.strip_headers = true;
  const ProviderRun run = checked_provider_run(a);
  REQUIRE(run.data_plane.upstream.has_value());
  const auto& upstream = *run.data_plane.upstream;
  CHECK(upstream.url.base() == "http://127.0.0.1:9/v1");
  CHECK(upstream.strip_headers == std::vector<std::string>{"X-Tenant", "X-Attempt", "X-Caller"});
  // The request's and the upstream's answer's heads share the connection's memory.
  CHECK(run.data_plane.memory_per_connection > DataPlaneConfig{}.memory_per_connection);
}
