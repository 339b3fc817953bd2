#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "duration.hpp"
#include "scenario.hpp"
#include "support/process.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

// A file in a fresh temporary directory, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    char dir[] = "/tmp/stampede_scenario_XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    dir_ = dir;
    path_ = dir_ + "/scenario.json";
    std::ofstream(path_) << text;
  }
  ~TempFile() {
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

// Every field set, none to its default.
constexpr const char* kEveryField = R"({
  "name": "everything",
  "description": "every field set",
  "provider": {
    "allowance": "4000/min",
    "limiter": "token-bucket",
    "burst": 50,
    "capacity": "500/s",
    "outages": ["0s-30s", "40s-50s:529", "60s-61s:reset", "70s-71s:500"],
    "error_rate": 0.25,
    "latency": "5ms-20ms",
    "tenant_header": "X-Tenant",
    "retry_after": "off",
    "ratelimit_headers": "x-ratelimit",
    "dialect": "aws",
    "retry_after_ms": "on",
    "retry_after_jitter": 0.25,
    "seed": 9,
    "mode": "occ",
    "token_allowance": "80000/min",
    "spend_cap": 1000000,
    "token_header": "X-Request-Tokens",
    "token_field": "max_tokens",
    "default_tokens": 250,
    "hop_delay": "20ms,3ms",
    "upstream": "http://127.0.0.1:9/base",
    "first_token": "800ms",
    "token_rate": "20/s",
    "output_tokens": "50-400",
    "stream_errors": 0.05,
    "input_token_allowance": "40000/min",
    "output_token_allowance": "8000/min",
    "max_concurrent": 4,
    "models": {"small": {"allowance": "1/min", "max_concurrent": 2}},
    "models_only": true
  },
  "fleet": {
    "clients": 400,
    "workload": "steady",
    "items": 1234,
    "rate": "50/s",
    "duration": "2m",
    "stages": "10/s,30s:50/s,1m:50/s,30s:0/s",
    "strategy": "decorrelated-jitter",
    "base": "250ms",
    "cap": "8s",
    "max_attempts": 5,
    "deadline": "45s",
    "retry_after": "jittered",
    "retry_budget": "10,0.1",
    "breaker": "5,30s",
    "policy": "aws-adaptive",
    "multiplier": 1.5,
    "randomization": 0.25,
    "jitter": "300ms",
    "retry_quota": "100,2,4,0.5",
    "adaptive_rate": "off",
    "adaptive_throttle": "1.5,30s",
    "retry_ratio": "0.2,1m",
    "timeout": "10s",
    "seed": 7,
    "hop_delay": "5ms,1500us",
    "tokens": 1200,
    "stream": true,
    "max_tokens": 400,
    "trace": "access.log",
    "trace_format": "combined",
    "trace_tenant": "remote_addr",
    "trace_tokens": "upstream_http_x_tokens",
    "trace_reorder": "3s",
    "trace_spread": "none",
    "speed": 10,
    "scale": 2.5,
    "scale_spread": "200ms",
    "from": "1m",
    "to": "1h"
  },
  "expectations": ["peak_ratio <= 2", "delivered == items"]
})";

void check_every_field(const Scenario& s) {
  CHECK(s.name == "everything");
  CHECK(s.description == "every field set");
  const auto& p = s.provider;
  REQUIRE(p.allowance);
  CHECK(*p.allowance == Rate{4000, 60 * kNsPerSec});
  CHECK(p.limiter == LimiterKind::kTokenBucket);
  CHECK(p.burst == 50);
  REQUIRE(p.capacity);
  CHECK(*p.capacity == Rate{500, kNsPerSec});
  REQUIRE(p.outages.size() == 4);
  CHECK(p.outages[0] == OutageWindow{0, 30 * kNsPerSec, OutageAction::kStatus503});
  CHECK(p.outages[1] == OutageWindow{40 * kNsPerSec, 50 * kNsPerSec, OutageAction::kStatus529});
  CHECK(p.outages[2] == OutageWindow{60 * kNsPerSec, 61 * kNsPerSec, OutageAction::kReset});
  CHECK(p.outages[3] == OutageWindow{70 * kNsPerSec, 71 * kNsPerSec, OutageAction::kStatus500});
  CHECK(p.error_rate == 0.25);
  CHECK(p.latency_min_ns == 5 * kNsPerMs);
  CHECK(p.latency_max_ns == 20 * kNsPerMs);
  CHECK(p.tenant_header == "X-Tenant");
  CHECK_FALSE(p.retry_after);
  CHECK(p.ratelimit_headers == RateLimitHeaders::kXRateLimit);
  CHECK(p.dialect == Dialect::kAws);
  CHECK(p.retry_after_ms);
  CHECK(p.retry_after_jitter == 0.25);
  CHECK(p.seed == 9);
  CHECK(p.mode == ProviderMode::kOcc);
  CHECK(p.token_allowance == Rate{80000, 60 * kNsPerSec});
  CHECK(p.spend_cap == 1'000'000);
  CHECK(p.token_header == "X-Request-Tokens");
  CHECK(p.stream == StreamConfig{800 * kNsPerMs, Rate{20, kNsPerSec}, TokenRange{50, 400}, 0.05});
  CHECK(p.input_token_allowance == Rate{40000, 60 * kNsPerSec});
  CHECK(p.output_token_allowance == Rate{8000, 60 * kNsPerSec});
  CHECK(p.max_concurrent == 4);
  REQUIRE(p.models.size() == 1);
  CHECK(p.models[0].name == "small");
  CHECK(p.models[0].allowance == Rate{1, 60 * kNsPerSec});
  CHECK(p.models[0].max_concurrent == 2);
  CHECK(p.models_only);
  CHECK(p.token_field == "max_tokens");
  CHECK(p.default_tokens == 250);
  CHECK(p.hop_delay == HopDelay{20 * kNsPerMs, 3 * kNsPerMs});
  CHECK(p.upstream == "http://127.0.0.1:9/base");
  const auto& f = s.fleet;
  CHECK(f.clients == 400);
  CHECK(f.workload == WorkloadKind::kSteady);
  CHECK(f.items == 1234);
  CHECK(f.item_count() == 1234);
  REQUIRE(f.rate);
  CHECK(*f.rate == Rate{50, kNsPerSec});
  CHECK(f.duration_ns == 120 * kNsPerSec);
  CHECK(f.stages == Stages{Rate{10, kNsPerSec},
                           {{30 * kNsPerSec, Rate{50, kNsPerSec}},
                            {60 * kNsPerSec, Rate{50, kNsPerSec}},
                            {30 * kNsPerSec, Rate{0, kNsPerSec}}}});
  CHECK(f.strategy == StrategyKind::kDecorrelatedJitter);
  CHECK(f.base_ns == 250 * kNsPerMs);
  CHECK(f.cap_ns == 8 * kNsPerSec);
  CHECK(f.max_attempts == 5);
  CHECK(f.deadline_ns == 45 * kNsPerSec);
  CHECK(f.retry_after == RetryAfterMode::kJittered);
  CHECK(f.retry_budget == RetryBudgetConfig{10, 0.1});
  CHECK(f.breaker == BreakerConfig{5, 30 * kNsPerSec});
  CHECK(f.policy == "aws-adaptive");
  CHECK(f.multiplier == 1.5);
  CHECK(f.randomization == 0.25);
  CHECK(f.jitter_ns == 300 * kNsPerMs);
  CHECK(f.retry_quota == RetryQuotaConfig{100, 2, 4, 0.5});
  CHECK_FALSE(f.adaptive_rate);  // the file's field overrides its preset
  CHECK(f.adaptive_throttle == AdaptiveThrottleConfig{1.5, 30 * kNsPerSec});
  CHECK(f.retry_ratio == RetryRatioConfig{0.2, 60 * kNsPerSec});
  CHECK(f.timeout_ns == 10 * kNsPerSec);
  CHECK(f.seed == 7);
  CHECK(f.hop_delay == HopDelay{5 * kNsPerMs, 1'500'000});
  CHECK(f.tokens == 1200);
  CHECK(f.stream);
  CHECK(f.max_tokens == 400);
  CHECK(f.trace.path == "access.log");
  CHECK(f.trace.format == "combined");
  CHECK(f.trace.reorder_ns == 3 * kNsPerSec);
  CHECK(f.trace.playback.spread == TraceSpread::kNone);
  CHECK(f.trace.playback.speed == 10);
  CHECK(f.trace.playback.scale == 2.5);
  CHECK(f.trace.playback.scale_spread_ns == 200 * kNsPerMs);
  CHECK(f.trace.playback.from_ns == 60 * kNsPerSec);
  CHECK(f.trace.playback.to_ns == 3600 * kNsPerSec);
  CHECK(s.expectations == std::vector<std::string>{"peak_ratio <= 2", "delivered == items"});
}

}  // namespace

TEST_CASE("a scenario file sets every field") {
  const TempFile file(kEveryField);
  const auto s = load_scenario_file(file.path());
  REQUIRE_MESSAGE(s, s.error());
  check_every_field(*s);
  // Every field set at once sets some that exclude each other: exactly these.
  CHECK(validate(*s) ==
        std::vector<std::string>{
            "provider.upstream: occ mode's row answers itself; give no upstream with mode occ",
            "fleet.stages: give stages or a rate, not both",
            "fleet.duration: stages set how long items arrive; leave it out",
            "fleet.workload: occ mode runs the storm and queue workloads, not steady or stages",
            "fleet.trace: only the trace workload reads a trace; add --workload trace",
            "fleet.trace_format: only the trace workload reads a trace; add --workload trace",
            "fleet.trace_tenant: only the trace workload reads a trace; add --workload trace",
            "fleet.trace_tokens: only the trace workload reads a trace; add --workload trace",
            "fleet.trace_reorder: only the trace workload reads a trace; add --workload trace",
            "fleet.trace_spread: only the trace workload reads a trace; add --workload trace",
            "fleet.speed: only the trace workload reads a trace; add --workload trace",
            "fleet.scale: only the trace workload reads a trace; add --workload trace",
            "fleet.scale_spread: only the trace workload reads a trace; add --workload trace",
            "fleet.from: only the trace workload reads a trace; add --workload trace",
            "fleet.to: only the trace workload reads a trace; add --workload trace",
            "provider.dialect: --first-token, --token-rate, --output-tokens and --stream-errors "
            "shape LLM answers; give --dialect anthropic or --dialect openai (it is aws)",
            "provider.upstream: in proxy mode the upstream writes the answers; leave out "
            "--first-token, --token-rate, --output-tokens and --stream-errors",
            "provider.dialect: --input-token-allowance, --output-token-allowance and "
            "--max-concurrent are read from LLM request bodies; give --dialect anthropic or "
            "--dialect openai (it is aws)",
            "provider.upstream: in proxy mode the upstream writes the answers; leave out "
            "--input-token-allowance, --output-token-allowance and --max-concurrent",
            "provider.dialect: provider.models is read from LLM request bodies; give --dialect "
            "anthropic or --dialect openai (it is aws)",
            "provider.upstream: in proxy mode the upstream writes the answers; leave out "
            "provider.models",
            "provider.spend_cap: not yet supported with provider.models"});
}

// The file above less what excludes the rest: no stages, plain mode, no streams (aws, proxied).
std::string every_compatible_field() {
  json j = json::parse(kEveryField);
  j["fleet"].erase("stages");
  for (const char* key : {"trace", "trace_format", "trace_tenant", "trace_tokens", "trace_reorder",
                          "trace_spread", "speed", "scale", "scale_spread", "from", "to"})
    j["fleet"].erase(key);
  j["provider"]["mode"] = "plain";
  for (const char* stream :
       {"first_token", "token_rate", "output_tokens", "stream_errors", "input_token_allowance",
        "output_token_allowance", "max_concurrent", "models", "models_only"})
    j["provider"].erase(stream);
  return j.dump();
}

TEST_CASE("every settable field appears in the field table") {
  const auto names = field_names();
  const json every = json::parse(kEveryField);
  std::size_t count = 0;
  for (const auto& [key, value] : every.items()) {
    if (value.is_object()) {
      for (const auto& [sub, v] : value.items()) {
        CAPTURE(key + "." + sub);
        CHECK(std::find(names.begin(), names.end(), key + "." + sub) != names.end());
        ++count;
      }
    } else {
      ++count;
    }
  }
  // The test file above really does set every field the table knows.
  CHECK(count == names.size());
}

TEST_CASE("a scenario file may spell numbers as numbers or strings") {
  const auto a = scenario_from_json(json::parse(R"({"fleet": {"clients": 7, "seed": "3"}})"));
  REQUIRE(a);
  CHECK(a->fleet.clients == 7);
  CHECK(a->fleet.seed == 3);
}

TEST_CASE("outages parse as START-END[:STATUS]") {
  struct Row {
    const char* text;
    OutageWindow want;
  };
  for (const Row& r :
       {Row{"0s-30s", {0, 30 * kNsPerSec, OutageAction::kStatus503}},
        Row{"0s-30s:503", {0, 30 * kNsPerSec, OutageAction::kStatus503}},
        Row{"0s-30s:529", {0, 30 * kNsPerSec, OutageAction::kStatus529}},
        Row{"0s-30s:500", {0, 30 * kNsPerSec, OutageAction::kStatus500}},
        Row{"10s-20s:reset", {10 * kNsPerSec, 20 * kNsPerSec, OutageAction::kReset}},
        Row{"1.5s-2m", {1'500'000'000, 120 * kNsPerSec, OutageAction::kStatus503}}}) {
    CAPTURE(r.text);
    const auto w = parse_outage(r.text);
    REQUIRE_MESSAGE(w, w.error());
    CHECK(*w == r.want);
    const auto back = parse_outage(format_outage(*w));
    REQUIRE(back);
    CHECK(*back == *w);
  }
}

TEST_CASE("bad outages name the value and what is accepted") {
  for (const char* bad : {"30s", "30s-10s", "10s-10s", "0s-30s:404", "0s-30s:", "0s-", "-30s",
                          "a-b", "0-30", "0s-30s:503:x", ""}) {
    CAPTURE(bad);
    const auto w = parse_outage(bad);
    REQUIRE_FALSE(w);
    CHECK(w.error().find("'" + std::string(bad) + "'") != std::string::npos);
    CHECK(w.error().find("expected START-END[:STATUS]") != std::string::npos);
  }
}

TEST_CASE("an unknown key is refused by name, with the nearest key instead of every key") {
  struct Row {
    const char* text;
    const char* says;
  };
  for (const Row& r :
       {Row{R"({"fleet": {"strateg": "full-jitter"}})", "did you mean 'fleet.strategy'?"},
        Row{R"({"fleets": {}})", "did you mean 'fleet'?"},
        Row{R"({"provider": {"allowanse": "1/s"}})", "did you mean 'provider.allowance'?"},
        Row{R"({"colour": "blue"})", "the keys are listed in docs/SCENARIO.md"}}) {
    CAPTURE(r.text);
    const auto s = scenario_from_json(json::parse(r.text));
    REQUIRE_FALSE(s);
    CHECK(s.error().find("unknown key") != std::string::npos);
    CHECK(s.error().find(r.says) != std::string::npos);
    CHECK(s.error().find("provider.limiter") == std::string::npos);  // no list of fifty
  }
  const TempFile file(R"({"fleet": {"strateg": "full-jitter"}})");
  const auto s = load_scenario_file(file.path());
  REQUIRE_FALSE(s);
  CHECK(s.error().find("'fleet.strateg'") != std::string::npos);
  CHECK(s.error().find(file.path()) != std::string::npos);
}

TEST_CASE("malformed and unreadable files are refused naming the file") {
  for (const char* text : {R"({"fleet": )", "", "not json", R"({"fleet": {"clients": 1},})"}) {
    CAPTURE(text);
    const TempFile file(text);
    const auto s = load_scenario_file(file.path());
    REQUIRE_FALSE(s);
    CHECK(s.error().find(file.path()) != std::string::npos);
    CHECK(s.error().find("not valid JSON") != std::string::npos);
  }
  const auto missing = load_scenario_file("/nonexistent/stampede/scenario.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().find("cannot read scenario file '/nonexistent/stampede/scenario.json'") !=
        std::string::npos);
  for (const char* text : {"[1, 2]", R"({"fleet": 3})", R"({"fleet": {"clients": null}})"}) {
    CAPTURE(text);
    CHECK_FALSE(scenario_from_json(json::parse(text)));
  }
}

TEST_CASE("bad field values name the field, the value and what is accepted") {
  struct Row {
    const char* field;
    json value;
    const char* accepted;
  };
  for (const Row& r : {
           Row{"fleet.strategy", "foo", "expected one of none, fixed, exponential"},
           Row{"fleet.base", "0s", "must be longer than zero"},
           Row{"fleet.base", "-1s", "expected a number and a unit"},
           Row{"fleet.cap", "0s", "must be longer than zero"},
           Row{"fleet.deadline", "0s", "must be longer than zero"},
           Row{"fleet.timeout", "0ms", "must be longer than zero"},
           Row{"fleet.duration", "-5s", "expected a number and a unit"},
           Row{"fleet.base", "1", "expected a number and a unit"},
           Row{"fleet.clients", "-3", "whole number"},
           Row{"fleet.clients", "many", "whole number"},
           Row{"fleet.workload", "burst", "expected one of storm, steady, queue"},
           Row{"fleet.retry_after", "always", "expected one of ignore, exact, jittered"},
           Row{"fleet.retry_budget", "10", "expected MAX_TOKENS,RATIO"},
           Row{"fleet.retry_budget", "10,2", "expected MAX_TOKENS,RATIO"},
           Row{"fleet.breaker", "0,30s", "expected FAILURES,COOLDOWN"},
           Row{"fleet.breaker", "5,0s", "expected FAILURES,COOLDOWN"},
           Row{"provider.allowance", "100/sec", "expected N/s, N/min or N/h"},
           Row{"provider.allowance", "0/s", "expected N/s, N/min or N/h"},
           Row{"provider.limiter", "leaky", "expected one of fixed-window"},
           Row{"provider.error_rate", "1.5", "fraction between 0 and 1"},
           Row{"provider.latency", "20ms-5ms", "end is below its start"},
           Row{"provider.outages", "30s-10s", "expected START-END[:STATUS]"},
           Row{"provider.retry_after", "maybe", "on or off"},
           Row{"provider.mode", "pessimistic", "expected one of plain, occ"},
           Row{"fleet.hop_delay", "10ms", "expected MEAN,SD"},
           Row{"fleet.hop_delay", "10ms,-2ms", "expected MEAN,SD"},
           Row{"provider.hop_delay", "10ms;2ms", "expected MEAN,SD"},
       }) {
    CAPTURE(r.field);
    CAPTURE(r.value.dump());
    Scenario s;
    const auto error = set_field(s, r.field, r.value);
    REQUIRE(error);
    CHECK(error->rfind(std::string(r.field) + ": ", 0) == 0);
    CHECK(error->find("'" + r.value.get<std::string>() + "'") != std::string::npos);
    CHECK(error->find(r.accepted) != std::string::npos);
    CHECK(error->find('\n') == std::string::npos);
  }
}

TEST_CASE("validate reports every cross-field problem") {
  struct Row {
    const char* what;
    void (*change)(Scenario&);
    const char* error;
  };
  for (const Row& r : {
           Row{"cap below base", [](Scenario& s) { s.fleet.cap_ns = s.fleet.base_ns - 1; },
               "fleet.cap: "},
           Row{"steady without a rate",
               [](Scenario& s) {
                 s.fleet.workload = WorkloadKind::kSteady;
                 s.fleet.duration_ns = kNsPerSec;
               },
               "fleet.rate: the steady workload needs an arrival rate"},
           Row{"steady without a duration",
               [](Scenario& s) {
                 s.fleet.workload = WorkloadKind::kSteady;
                 s.fleet.rate = Rate{10, kNsPerSec};
               },
               "fleet.duration: "},
           Row{"a rate without steady",
               [](Scenario& s) {
                 s.fleet.rate = Rate{10, kNsPerSec};
               },
               "fleet.rate: only the steady workload"},
           Row{"no clients",
               [](Scenario& s) {
                 s.fleet.clients = 0;
                 s.fleet.items = 5;
               },
               "fleet.clients: "},
           Row{"no items", [](Scenario& s) { s.fleet.items = 0; }, "fleet.items: "},
           Row{"zero burst", [](Scenario& s) { s.provider.burst = 0; }, "provider.burst: "},
           Row{"overlapping outages",
               [](Scenario& s) {
                 s.provider.outages = {{0, 10 * kNsPerSec, OutageAction::kStatus503},
                                       {5 * kNsPerSec, 20 * kNsPerSec, OutageAction::kStatus529}};
               },
               "provider.outages: 0s-10s:503 and 5s-20s:529 overlap"},
       }) {
    CAPTURE(r.what);
    Scenario s;
    REQUIRE(validate(s).empty());
    r.change(s);
    const auto errors = validate(s);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find(r.error) != std::string::npos);
  }
  // Every problem, not just the first.
  Scenario s;
  s.fleet.clients = 0;
  s.fleet.cap_ns = 1;
  CHECK(validate(s).size() >= 2);
  // A cap below the base is fine when the strategy takes no base.
  s = Scenario{};
  s.fleet.strategy = StrategyKind::kNone;
  s.fleet.cap_ns = 1;
  CHECK(validate(s).empty());
}

TEST_CASE("build_scenario applies overrides in order, then validates") {
  const TempFile file(every_compatible_field());
  auto s = build_scenario(file.path(), {{"fleet.strategy", "full-jitter"},
                                        {"fleet.strategy", "exponential"},
                                        {"provider.outages", json::array({"0s-5s:529"})}});
  REQUIRE_MESSAGE(s, s.error());
  CHECK(s->fleet.strategy == StrategyKind::kExponential);
  REQUIRE(s->provider.outages.size() == 1);  // replaced, not appended
  CHECK(s->provider.outages[0].action == OutageAction::kStatus529);
  CHECK(s->fleet.clients == 400);  // untouched fields come from the file

  const auto bad = build_scenario(file.path(), {{"fleet.cap", "100ms"}});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().find("fleet.cap: 100ms is below fleet.base 250ms") != std::string::npos);

  const auto unknown = build_scenario("", {{"fleet.strateg", "x"}});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().find("'fleet.strateg'") != std::string::npos);

  const auto defaults = build_scenario("", {});
  REQUIRE(defaults);
  CHECK(defaults->fleet.clients == 100);
}

TEST_CASE("a scenario survives to_json and back") {
  const TempFile file(kEveryField);
  const auto s = load_scenario_file(file.path());
  REQUIRE(s);
  const auto back = scenario_from_json(json::parse(to_json(*s).dump()));
  REQUIRE_MESSAGE(back, back.error());
  check_every_field(*back);
  CHECK(to_json(*back) == to_json(*s));

  // The defaults, and the storm example, too.
  const auto defaults = scenario_from_json(to_json(Scenario{}));
  REQUIRE_MESSAGE(defaults, defaults.error());
  CHECK(to_json(*defaults) == to_json(Scenario{}));
  const auto storm = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE_MESSAGE(storm, storm.error());
  const auto storm_back = scenario_from_json(to_json(*storm));
  REQUIRE(storm_back);
  CHECK(to_json(*storm_back) == to_json(*storm));
  CHECK(storm_back->fleet.item_count() == 1000);
  CHECK(storm_back->provider.outages == storm->provider.outages);
}

TEST_CASE("awkward durations survive the scenario round trip") {
  for (const char* base : {"1234567ns", "1.0005s", "61s", "90m", "1ns", "999us"}) {
    CAPTURE(std::string(base));
    Scenario s;
    REQUIRE_FALSE(set_field(s, "fleet.base", base));
    REQUIRE_FALSE(set_field(s, "fleet.cap", "2h"));
    const auto back = scenario_from_json(to_json(s));
    REQUIRE(back);
    CHECK(back->fleet.base_ns == s.fleet.base_ns);
  }
}

TEST_CASE("a key given twice anywhere in a scenario file is an error naming the key and file") {
  struct Row {
    const char* text;
    const char* key;
  };
  for (const Row& r : {Row{R"({"fleet": {"clients": 10, "clients": 400}})", "'fleet.clients'"},
                       Row{R"({"name": "a", "fleet": {}, "name": "b"})", "'name'"},
                       Row{R"({"provider": {"outages": ["0s-1s"]}, "provider": {}})", "'provider'"},
                       Row{R"({"provider": {"allowance": "1/s", "limiter": "token-bucket",
                               "allowance": "2/s"}})",
                           "'provider.allowance'"}}) {
    CAPTURE(r.text);
    const TempFile file(r.text);
    const auto s = load_scenario_file(file.path());
    REQUIRE_FALSE(s);
    CHECK(s.error().find(r.key) != std::string::npos);
    CHECK(s.error().find("twice") != std::string::npos);
    CHECK(s.error().find(file.path()) != std::string::npos);
  }
  // The same key in two sections, or in two objects of a list, is no duplicate.
  const TempFile fine(R"({"provider": {"seed": 1}, "fleet": {"seed": 2}})");
  CHECK(load_scenario_file(fine.path()));
}

TEST_CASE("a bad expectation in a scenario file names the file") {
  for (const char* text :
       {R"({"expectations": ["peak_ratio =< 2"]})", R"({"expectations": ["p99 <= 30s"]})",
        R"({"expectations": ["drain_s <= 2 minutes"]})"}) {
    CAPTURE(text);
    const TempFile file(text);
    const auto s = load_scenario_file(file.path());
    REQUIRE_FALSE(s);
    CHECK(s.error().find(file.path()) != std::string::npos);
    CHECK(s.error().find("expectations") != std::string::npos);
  }
}
