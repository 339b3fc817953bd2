// The checks that turn a command's flags into a command, driven as functions: each table row
// edits good flags and names every error the check must say (all of them, not the first), or
// none. The environment is a stand-in; no row reads a file.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/advise_command.hpp"
#include "cli/exec_args.hpp"
#include "cli/run_args.hpp"
#include "cli/simulate_args.hpp"
#include "duration.hpp"
#include "scenario.hpp"

using namespace stampede;

namespace {

Scenario defaults() {
  return *build_scenario("", {});
}

// An environment of the given variables only.
EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

template <class Args>
struct FlagRow {
  std::string name;
  std::function<void(Args&)> edit;
  std::vector<std::string> wanted;  // each the start of one error, in order; none: accepted
};

// The errors must be exactly the wanted ones: one each, in the order the flags are checked.
template <class Command>
void check_errors(const Checked<Command>& checked, const std::vector<std::string>& wanted) {
  CHECK(checked.command.has_value() == wanted.empty());
  REQUIRE(checked.errors.size() == wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    CAPTURE(checked.errors[i]);
    CHECK(checked.errors[i].rfind(wanted[i], 0) == 0);
    CHECK(checked.errors[i].find('\n') == std::string::npos);
  }
}

RunArgs good_run() {
  RunArgs a;
  a.url = "http://127.0.0.1:1/v1";
  return a;
}

ExecArgs good_exec() {
  ExecArgs a;
  a.clients = 4;
  a.url = "http://127.0.0.1:1/v1";
  a.output.provider_admin = "http://127.0.0.1:2";
  a.command = {"true"};
  return a;
}

}  // namespace

TEST_CASE("flag checks: run names every bad flag, each once, in order") {
  const std::vector<FlagRow<RunArgs>> rows{
      {"good flags", [](RunArgs&) {}, {}},
      {"a bad url and a bad client",
       [](RunArgs& a) {
         a.url = "localhost:8080";
         a.http_client = "curl";
       },
       {"--url: 'localhost:8080'", "--http-client: 'curl' is not auto, native or libcurl"}},
      {"two bad headers",
       [](RunArgs& a) {
         a.headers = {"no colon", "Bad Name: x"};
       },
       {"--header", "--header"}},
      {"bad bounds",
       [](RunArgs& a) {
         a.output.max_duration = "0s";
         a.output.progress_every = "soon";
       },
       {"--max-duration: must be longer than zero", "--progress-every: "}},
      {"a scale without a fakeprovider, and a bad admin URL",
       [](RunArgs& a) {
         a.time_scale = "0.1";
         a.output.provider_admin = "ftp://127.0.0.1:2";
       },
       {"--provider-admin: 'ftp://127.0.0.1:2' has scheme 'ftp'"}},
      {"a scale without a fakeprovider",
       [](RunArgs& a) { a.time_scale = "0.1"; },
       {"--time-scale 0.1: only a fakeprovider"}},
      {"a scale allowed",
       [](RunArgs& a) {
         a.time_scale = "0.1";
         a.allow_time_scale = true;
       },
       {}},
      {"a bad scale, and so no grace check",
       [](RunArgs& a) {
         a.time_scale = "fast";
         a.output.grace = "1h";
       },
       {"--time-scale: "}},
      {"a grace past the timeout",
       [](RunArgs& a) { a.output.grace = "1h"; },
       {"--grace: '1h' is longer than a request can be in flight"}},
      {"two keys in --api-key",
       [](RunArgs& a) { a.api_key = "a\nb"; },
       {"--api-key: the key is not one key on one line"}},
      {"a TLS flag for an http URL",
       [](RunArgs& a) { a.tls.insecure = true; },
       {"--insecure: --url is http://"}},
      {"native for https",
       [](RunArgs& a) {
         a.url = "https://127.0.0.1:1/";
         a.http_client = "native";
         a.tls.insecure = true;
       },
       {"--insecure: the native client speaks plain http",
        "--http-client native: the native client speaks plain http, not https"}},
      {"stdout for --out only",
       [](RunArgs& a) {
         a.output.out = "-";
         a.output.junit = "-";
         a.attempts_out = "-";
       },
       {"--junit: '-' is not stdout here", "--attempts-out: '-' is not stdout here"}},
      {"a bad shard and a bad start",
       [](RunArgs& a) {
         a.shard.shard = "3/2";
         a.shard.start_at = "noon";
       },
       {"--shard: ", "--start-at: "}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    RunArgs a = good_run();
    row.edit(a);
    check_errors(check_run(defaults(), "", a, env_of({})), row.wanted);
  }
}

TEST_CASE("flag checks: run's key from the environment is named as such, a flag's wins") {
  const auto env = env_of({{kApiKeyEnv, "a\nb"}});
  check_errors(check_run(defaults(), "", good_run(), env),
               {"--api-key ($STAMPEDE_API_KEY): the key is not one key"});
  RunArgs a = good_run();
  a.api_key = "mine";
  const auto checked = check_run(defaults(), "", a, env);
  REQUIRE(checked.command);
  CHECK(checked.command->request.api_keys == std::vector<std::string>{"mine"});
}

TEST_CASE("flag checks: run's shard comes from the Indexed Job's variables") {
  auto scenario = defaults();
  scenario.fleet.clients = 4;
  const auto env = env_of({{"JOB_COMPLETION_INDEX", "1"}, {"STAMPEDE_SHARDS", "2"}});
  const auto checked = check_run(scenario, "", good_run(), env);
  REQUIRE(checked.command);
  CHECK(checked.command->shard.index == 1);
  CHECK(checked.command->shard.count == 2);
  const auto too_many = env_of({{"JOB_COMPLETION_INDEX", "1"}, {"STAMPEDE_SHARDS", "8"}});
  check_errors(check_run(scenario, "", good_run(), too_many),
               {"--shard: 8 shards of 4 clients leave some shard none"});
}

TEST_CASE("flag checks: exec names every bad flag") {
  const std::vector<FlagRow<ExecArgs>> rows{
      {"good flags", [](ExecArgs&) {}, {}},
      {"more per process than clients, and a scale",
       [](ExecArgs& a) {
         a.per_process = 5;
         a.time_scale = "0.5";
       },
       {"--per-process: 5 clients per process, but --clients is 4",
        "--time-scale: exec takes only 1"}},
      {"two bad URLs",
       [](ExecArgs& a) {
         a.url = "127.0.0.1:1";
         a.output.provider_admin = "nowhere";
       },
       {"--url: ", "--provider-admin: 'nowhere'"}},
      {"bad bounds",
       [](ExecArgs& a) {
         a.output.max_duration = "-1s";
         a.timeout = "0s";
         a.output.grace = "a while";
       },
       {"--max-duration: ", "--timeout: must be longer than zero", "--grace: "}},
      {"no CMD", [](ExecArgs& a) { a.command.clear(); }, {"CMD: "}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    ExecArgs a = good_exec();
    row.edit(a);
    check_errors(check_exec(defaults(), "", a), row.wanted);
  }
}

TEST_CASE("flag checks: simulate names every bad flag") {
  const std::vector<FlagRow<SimulateArgs>> rows{
      {"good flags", [](SimulateArgs&) {}, {}},
      {"a bad horizon and a bad shard",
       [](SimulateArgs& a) {
         a.horizon = "0s";
         a.shard.shard = "two";
       },
       {"--horizon: must be longer than zero", "--shard: "}},
      {"a sharded run of trials",
       [](SimulateArgs& a) {
         a.trials = 2;
         a.shard.shard = "0/2";
       },
       {"--shard: a sharded simulation takes one trial"}},
      {"a bad assertion and stdout for --out",
       [](SimulateArgs& a) {
         a.asserts = {"peak_ratio =< 2"};
         a.out = "-";
       },
       {"", "--out: '-' is not stdout here"}},
      // The defaults' provider is the generic dialect: nothing it answers streams.
      {"--stream without an LLM dialect",
       [](SimulateArgs& a) { a.stream.stream = true; },
       {"--stream: the scenario's provider is the generic dialect"}},
      // Without --stream, --max-tokens asks for LLM requests answered in one body: an LLM
      // dialect's too.
      {"--max-tokens without an LLM dialect",
       [](SimulateArgs& a) { a.stream.max_tokens = 50; },
       {"--max-tokens: the scenario's provider is the generic dialect"}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    SimulateArgs a;
    row.edit(a);
    check_errors(check_simulate(defaults(), "", a, env_of({})), row.wanted);
  }
}

TEST_CASE("flag checks: exec refuses a streamed fleet, whose requests are the program's") {
  Scenario streamed = defaults();
  streamed.fleet.stream = true;
  check_errors(check_exec(streamed, "", good_exec()),
               {"fleet.stream: exec's fleet is the program"});
  // A max_tokens given makes LLM requests too, answered in one body: the program's as well.
  Scenario one_body = defaults();
  REQUIRE_FALSE(set_field(one_body, "fleet.max_tokens", "512"));
  check_errors(check_exec(one_body, "", good_exec()),
               {"fleet.max_tokens: exec's fleet is the program"});
}

TEST_CASE("flag checks: advise names every bad flag") {
  const std::vector<FlagRow<AdviseArgs>> rows{
      {"good flags", [](AdviseArgs&) {}, {}},
      {"no allowance, a bad demand, a bad horizon",
       [](AdviseArgs& a) {
         a.allowance.clear();
         a.demand = "lots";
         a.over = "0s";
       },
       {"--allowance: advise needs the allowance", "--demand: ", "--over: must be longer"}},
      {"a bad strategy and a bad demand",
       [](AdviseArgs& a) {
         a.strategy = "jitterish";
         a.demand = "lots";
       },
       {"", "--demand: "}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    AdviseArgs a;
    a.clients = 400;
    a.allowance = "4000/min";
    row.edit(a);
    check_errors(check_advise(a), row.wanted);
  }
  AdviseArgs a;
  a.clients = 400;
  a.allowance = "4000/min";
  const auto in = check_advise(a);
  REQUIRE(in.command);
  CHECK(in.command->clients == 400);
}

TEST_CASE("flag checks: a URL of another flag than --url is named by its own flag") {
  const auto admin = parse_target_url("localhost:8081", "--provider-admin");
  REQUIRE_FALSE(admin);
  CHECK(admin.error().rfind("--provider-admin: 'localhost:8081' ", 0) == 0);
  const auto url = parse_target_url("localhost:8081");
  REQUIRE_FALSE(url);
  CHECK(url.error().rfind("--url: 'localhost:8081' ", 0) == 0);
  CHECK(parse_target_url("http://127.0.0.1:8081", "--provider-admin")->port == 8081);
}

TEST_CASE("flag checks: durations and the grace, by table") {
  struct DurationRow {
    std::string text;
    std::optional<std::int64_t> ns;  // none: refused
  };
  const std::vector<DurationRow> rows{
      {"1s", kNsPerSec}, {"250ms", 250 * kNsPerMs}, {"0s", std::nullopt}, {"soon", std::nullopt}};
  for (const auto& row : rows) {
    CAPTURE(row.text);
    const auto d = positive_duration("--over", row.text);
    CHECK(bool(d) == row.ns.has_value());
    if (d) CHECK(*d == *row.ns);
    if (!d) CHECK(d.error().rfind("--over: ", 0) == 0);
  }
  // The default grace is 2s, or the timeout on the wall if that is shorter; longer is refused.
  CHECK(*grace_ns("", 10 * kNsPerSec) == 2 * kNsPerSec);
  CHECK(*grace_ns("", kNsPerSec) == kNsPerSec);
  CHECK(*grace_ns("500ms", kNsPerSec) == 500 * kNsPerMs);
  CHECK_FALSE(grace_ns("2s", kNsPerSec));
}

TEST_CASE("flag checks: the report goes beside a file --out only, unless --report names it") {
  CHECK(report_path_for("", "", false).empty());
  CHECK(report_path_for("", "-", false).empty());
  CHECK(report_path_for("", "run.json", true).empty());
  CHECK(report_path_for("mine.html", "run.json", false) == "mine.html");
  CHECK_FALSE(report_path_for("", "run.json", false).empty());
  CHECK(report_flag("") == "--report (beside --out)");
  CHECK(report_flag("mine.html") == "--report");
}
