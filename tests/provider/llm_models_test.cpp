// provider.models on the wire (docs/LLM.md#per-model): each model its own limits, a model not
// listed 404 under models_only, a bad model 400, and the stats by model.
#include <doctest/doctest.h>

#include <string>

#include "support/fake_provider.hpp"
#include "support/http_client.hpp"
#include "support/temp_dir.hpp"

using namespace support;

TEST_CASE("llm models: each model its own allowance, an unlisted one 404, the stats by model") {
  TempDir dir;
  const std::string scenario = dir.write("models.json", R"({"provider": {
      "dialect": "anthropic", "output_tokens": "1", "allowance": "100/min",
      "limiter": "fixed-window",
      "models": {"small": {"allowance": "1/min"}, "big": {"allowance": "100/min"}},
      "models_only": true}})");
  FakeProvider p({"--scenario", scenario});
  REQUIRE(p.started());
  Connection c(p.data_port());
  const auto post = [&](const std::string& model_field) {
    return c.request("POST", "/v1/messages", {}, R"({"max_tokens":5)" + model_field + "}");
  };
  CHECK(post(R"(,"model":"small")").status == 200);
  const auto second = post(R"(,"model":"small")");
  CHECK(second.status == 429);
  CHECK(second.header("anthropic-ratelimit-requests-limit") == "1");
  CHECK(post(R"(,"model":"big")").status == 200);
  CHECK(post(R"(,"model":"big")").status == 200);
  const auto unlisted = post(R"(,"model":"medium")");
  CHECK(unlisted.status == 404);
  CHECK(unlisted.body ==
        R"({"type":"error","error":{"type":"not_found_error","message":"model: medium"}})");
  CHECK(post("").status == 404);  // no model at all is not one listed
  // Bad input: the API's 400, never an arrival.
  CHECK(post(R"(,"model":")" + std::string(10 * 1024, 'm') + "\"").status == 400);
  CHECK(post(R"(,"model":7)").status == 400);
  const auto stats = p.stats();
  CHECK(stats.at("requests") == 4);
  const auto& models = stats.at("models");
  CHECK(models.at("small").at("requests") == 2);
  CHECK(models.at("small").at("reasons").at("request_rate_exceeded") == 1);
  CHECK(models.at("big").at("requests") == 2);
  CHECK(models.at("big").at("totals").at("ok") == 2);
  CHECK_FALSE(models.contains("other"));  // refused before the limiters, charged nothing
  // The provider's own results carry the same counts.
  const auto results = nlohmann::json::parse(http(p.admin_port(), "GET", "/admin/results").body);
  CHECK(results.at("provider_results").at("models") == models);
}
