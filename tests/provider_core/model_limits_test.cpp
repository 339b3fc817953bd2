// provider.models (docs/LLM.md#per-model) as pure tables: which limits a model's requests are
// held to, the 404 of a model not served, the (tenant, model) quotas apart, and the field's
// parse and its errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "duration.hpp"
#include "model/llm_request.hpp"
#include "model/model_limits.hpp"
#include "model/provider_policy.hpp"
#include "scenario.hpp"

using namespace stampede;
using json = nlohmann::json;

namespace {

// anthropic, 10/min at the top; "small" 1/min of requests, "big" 3 answers open at once. Rows
// in the names' order: big 0, small 1, the top level 2.
ProviderConfig two_models(bool only) {
  Scenario s;
  REQUIRE_FALSE(set_field(s, "provider.dialect", "anthropic"));
  REQUIRE_FALSE(set_field(s, "provider.limiter", "fixed-window"));
  REQUIRE_FALSE(set_field(s, "provider.allowance", "10/min"));
  REQUIRE_FALSE(
      set_field(s, "provider.models",
                json::parse(R"({"small": {"allowance": "1/min"}, "big": {"max_concurrent": 3}})")));
  if (only) REQUIRE_FALSE(set_field(s, "provider.models_only", true));
  REQUIRE(validate(s).empty());
  return s.provider;
}

LlmCharge ask(const std::string& model) {
  LlmCharge c;
  c.max_tokens = 10;
  c.model = model;
  return c;
}

}  // namespace

TEST_CASE("models: a listed model's own limits, an unlisted one the top level's or a 404") {
  struct Row {
    const char* model;
    bool only;
    ModelRoute route;
    const char* stats_row;
  };
  for (const Row& r : {
           Row{"small", false, {false, 1}, "small"}, Row{"big", true, {false, 0}, "big"},
           Row{"medium", false, {false, 2}, "other"},
           Row{"", false, {false, 2}, "other"},  // no model in the body
           Row{"medium", true, {true, 2}, "other"}, Row{"", true, {true, 2}, "other"},
           Row{"Small", true, {true, 2}, "other"},  // names are exact
       }) {
    CAPTURE(r.model);
    CAPTURE(r.only);
    const ProviderConfig p = two_models(r.only);
    CHECK(route_model(p, r.model) == r.route);
    CHECK(model_row_name(p, r.route.row) == r.stats_row);
  }
  const ProviderConfig p = two_models(false);
  CHECK(limits_of_row(p, 1).allowance == parse_rate("1/min").value());
  CHECK_FALSE(limits_of_row(p, 1).max_concurrent);
  CHECK(limits_of_row(p, 0).max_concurrent == 3);
  CHECK_FALSE(limits_of_row(p, 0).allowance);  // its own set: no allowance is unlimited
  CHECK(limits_of_row(p, 2).allowance == parse_rate("10/min").value());
  // Without provider.models nothing is counted by model.
  CHECK(model_row_name(ProviderConfig{}, route_model(ProviderConfig{}, "x").row).empty());
}

TEST_CASE("models: the 404 of a model not served, in each dialect's words") {
  CHECK(unknown_model_body(Dialect::kAnthropic, "gpt-9") ==
        R"({"type":"error","error":{"type":"not_found_error","message":"model: gpt-9"}})");
  CHECK(
      unknown_model_body(Dialect::kOpenAi, "x\"y") ==
      R"({"error":{"message":"The model `x\"y` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}})");
}

TEST_CASE("models: quotas are per (tenant, model): one model's use leaves another's alone") {
  ProviderPolicy policy(two_models(false));
  const std::int64_t t = kNsPerSec;
  struct Step {
    const char* tenant;
    const char* model;
    int status;
  };
  for (const Step& s : {
           Step{"a", "small", 200}, Step{"a", "small", 429},  // small's 1/min is used
           Step{"a", "big", 200},                             // big's limits are its own
           Step{"b", "small", 200},                           // another tenant's small
           Step{"a", "medium", 200},  // the top level's 10/min, untouched by small
           Step{"a", "", 200},        // no model: the top level's too
           Step{"a", "big", 200}, Step{"a", "big", 200},
           Step{"a", "big", 429},  // three answers open
       }) {
    CAPTURE(s.tenant);
    CAPTURE(s.model);
    const Decision d = policy.admit(t, s.tenant, {}, ask(s.model));
    CHECK(d.status == s.status);
  }
  // The top level's 10/min counts "medium" and the model-less one: 8 more, then 429.
  for (int i = 0; i < 8; ++i) CHECK(policy.admit(t, "a", {}, ask("other-one")).status == 200);
  CHECK(policy.admit(t, "a", {}, ask("medium")).status == 429);
  CHECK(policy.admit(t, "a", {}, ask("small")).reason == DecisionReason::kAllowance);
}

TEST_CASE("models: a settled answer frees its own model's slot, not another's") {
  ProviderPolicy policy(two_models(false));
  Decision held[3];
  for (auto& d : held) {
    d = policy.admit(kNsPerSec, "a", {}, ask("big"));
    REQUIRE(d.status == 200);
  }
  REQUIRE(policy.admit(kNsPerSec, "a", {}, ask("big")).reason == DecisionReason::kConcurrency);
  policy.settle_answer(2 * kNsPerSec, "a", held[0].reservation, 10);
  CHECK(policy.admit(2 * kNsPerSec, "a", {}, ask("big")).status == 200);
}

TEST_CASE("models: the body's model, read or refused with the dialect's 400") {
  struct Row {
    const char* body;
    bool ok;
    const char* model_or_error;
  };
  const std::string long_name(10 * 1024, 'm');
  const std::string at_most(kMaxModelName, 'm');
  const std::string over = R"({"max_tokens":1,"model":")" + long_name + "\"}";
  const std::string fits = R"({"max_tokens":1,"model":")" + at_most + "\"}";
  for (
      const Row& r : {
          Row{R"({"max_tokens":1,"model":"small"})", true, "small"},
          Row{R"({"max_tokens":1})", true, ""},
          Row{R"({"max_tokens":1,"model":null})", true, ""},
          Row{fits.c_str(), true, at_most.c_str()},
          Row{R"({"max_tokens":1,"model":7})", false,
              R"({"type":"error","error":{"type":"invalid_request_error","message":"model: Input should be a valid string"}})"},
          Row{over.c_str(), false,
              R"({"type":"error","error":{"type":"invalid_request_error","message":"model: String should have at most 256 characters"}})"},
      }) {
    CAPTURE(std::string(r.body).substr(0, 60));
    const ReadLlmRequest read = read_llm_request(Dialect::kAnthropic, r.body);
    REQUIRE(read.request.has_value() == r.ok);
    if (r.ok) CHECK(read.request->model == r.model_or_error);
    if (!r.ok) CHECK(read.error_body == r.model_or_error);
  }
  const auto openai = read_llm_request(Dialect::kOpenAi, over);
  REQUIRE_FALSE(openai.request);
  CHECK(json::parse(openai.error_body)["error"]["code"] == "string_above_max_length");
  CHECK(json::parse(read_llm_request(Dialect::kOpenAi, R"({"max_tokens":1,"model":[]})")
                        .error_body)["error"]["message"] ==
        "Invalid type for 'model': expected a string, but got an array instead.");
}

TEST_CASE("models: provider.models parses through the provider's own fields, errors named") {
  struct Row {
    const char* value;
    const char* error;  // empty: accepted
  };
  for (const Row& r : {
           Row{R"({"small": {"allowance": "1/min", "input_token_allowance": "100/min",
                "output_token_allowance": "200/min", "token_allowance": "300/min",
                "max_concurrent": 2}})",
               ""},
           Row{R"({"small": {}})", ""},
           Row{R"({"small": {"allowance": "fast"}})", "provider.models: small: allowance: "},
           Row{R"({"small": {"max_concurrent": 0}})",
               "provider.models: small: max_concurrent: must be at least 1"},
           Row{R"({"small": {"burst": 3}})",
               "provider.models: small: unknown key 'burst'; a model takes allowance, "
               "token_allowance, input_token_allowance, output_token_allowance, max_concurrent"},
           Row{R"({"small": {"allowance": null}})",
               "provider.models: small: allowance: null is not a value"},
           Row{R"({"small": "1/min"})", "provider.models: small: expected an object of limits"},
           Row{R"(["small"])", "provider.models: expected an object of model names"},
           Row{R"({"": {}})", "provider.models: a model's name is 1 to 256 bytes"},
       }) {
    CAPTURE(r.value);
    Scenario s;
    const auto error = set_field(s, "provider.models", json::parse(r.value));
    if (std::string(r.error).empty()) {
      CHECK_FALSE(error);
    } else {
      REQUIRE(error);
      CHECK(error->rfind(r.error, 0) == 0);
    }
  }
  json many = json::object();
  for (std::size_t i = 0; i <= kMaxModels; ++i) many["m" + std::to_string(i)] = json::object();
  Scenario s;
  CHECK(set_field(s, "provider.models", many) == "provider.models: at most 64 models");
  many.erase("m0");
  CHECK_FALSE(set_field(s, "provider.models", many));
  CHECK(s.provider.models.size() == kMaxModels);
}

TEST_CASE("models: the rules across fields: an LLM dialect, no proxy, models_only with models") {
  Scenario s;
  REQUIRE_FALSE(set_field(s, "provider.models", json::parse(R"({"small": {}})")));
  REQUIRE_FALSE(set_field(s, "provider.models_only", true));
  REQUIRE_FALSE(set_field(s, "provider.spend_cap", "100"));
  REQUIRE_FALSE(set_field(s, "provider.upstream", "http://127.0.0.1:9000"));
  const auto errors = validate(s);
  const auto has = [&](const std::string& prefix) {
    for (const auto& e : errors)
      if (e.rfind(prefix, 0) == 0) return true;
    return false;
  };
  CHECK(has("provider.dialect: provider.models is read from LLM request bodies"));
  CHECK(
      has("provider.upstream: in proxy mode the upstream writes the answers; leave out "
          "provider.models"));
  CHECK(has("provider.spend_cap: not yet supported with provider.models"));
  Scenario alone;
  REQUIRE_FALSE(set_field(alone, "provider.models_only", true));
  REQUIRE(validate(alone).size() == 1);
  CHECK(validate(alone)[0].rfind("provider.models_only: ", 0) == 0);
}
