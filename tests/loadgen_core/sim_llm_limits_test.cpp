// simulate --stream against the provider's LLM limits (docs/LLM.md): each streamed request is
// charged as the provider charges the body the live fleet sends, its output tokens reserved at
// max_tokens on admission and settled at its stream's end, when the unused part goes back.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "sim/sim_engine.hpp"
#include "support/process.hpp"

using namespace stampede;

namespace {

// `clients` agents, one streamed item each, against an anthropic provider whose answers are 50
// tokens, the first after 1 s and the last 49 x 20 ms later (at 1.98 s); a refused request is
// retried every 500 ms, its Retry-After ignored.
Scenario storm(std::int64_t clients, const char* max_tokens,
               std::initializer_list<std::pair<const char*, const char*>> limits) {
  Scenario s;
  const std::pair<const char*, const char*> fields[] = {
      {"provider.dialect", "anthropic"}, {"provider.first_token", "1s"},
      {"provider.token_rate", "50/s"},   {"provider.output_tokens", "50"},
      {"fleet.strategy", "fixed"},       {"fleet.base", "500ms"},
      {"fleet.max_attempts", "40"},      {"fleet.stream", "on"},
      {"fleet.max_tokens", max_tokens},
  };
  for (const auto& [field, value] : fields) REQUIRE_FALSE(set_field(s, field, value));
  for (const auto& [field, value] : limits) REQUIRE_FALSE(set_field(s, field, value));
  s.fleet.clients = clients;
  REQUIRE(validate(s).empty());
  return s;
}

// The sends the provider refused with a 429.
std::int64_t refused(const Results& r) {
  std::int64_t n = 0;
  const BinnedCounts& counts = r.recording.provider_by_outcome;
  for (std::size_t b = 0; b < counts.bins(); ++b)
    n += counts.at(b, static_cast<std::size_t>(Outcome::kRateLimited));
  return n;
}

}  // namespace

TEST_CASE(
    "simulate: ten max_tokens-4096 streams fill 40,960 output tokens a minute; the 11th "
    "gets in when they end") {
  const Results r = simulate(storm(11, "4096", {{"provider.output_token_allowance", "40960/min"}}));
  CHECK(r.recording.delivered == 11);
  // The 11th is refused at 0, 0.5, 1 and 1.5 s although nothing has been written; the ten end
  // at 1.98 s with 4,046 tokens each unused, back at once, so its send at 2 s is admitted.
  // (The refill alone, 682.7 tokens a second, would hold it out until 6 s.)
  CHECK(refused(r) == 4);
  CHECK(r.recording.requests == 15);
  CHECK(r.recording.streams.completed == 11);
  CHECK(r.recording.drain_ns == 3'980'000'000LL);
}

TEST_CASE("simulate: with max_tokens 512 the same fleet fits the output allowance at once") {
  const Results r = simulate(storm(11, "512", {{"provider.output_token_allowance", "40960/min"}}));
  CHECK(refused(r) == 0);
  CHECK(r.recording.requests == 11);
}

TEST_CASE("simulate: max_concurrent holds a third stream out until one of two ends") {
  const Results r = simulate(storm(3, "100", {{"provider.max_concurrent", "2"}}));
  CHECK(r.recording.delivered == 3);
  CHECK(refused(r) == 4);  // at 0, 0.5, 1 and 1.5 s; the two end at 1.98 s
  CHECK(r.recording.requests == 7);
}

TEST_CASE("simulate: the fleet's model (stampede) is held to its own limits, not the top level's") {
  // The top level's one open answer would hold two streams out; stampede's own two, one.
  const Results r =
      simulate(storm(3, "100",
                     {{"provider.max_concurrent", "1"},
                      {"provider.models", R"({"stampede": {"max_concurrent": 2}})"}}));
  CHECK(r.recording.delivered == 3);
  CHECK(refused(r) == 4);  // as with provider.max_concurrent 2 alone
  CHECK(r.recording.requests == 7);
}

TEST_CASE("simulate: input tokens are the declared --tokens, else the body's estimate") {
  // The body loadgen sends is one short message: 9 tokens by the provider's estimate.
  const Results estimated =
      simulate(storm(3, "100", {{"provider.input_token_allowance", "27/min"}}));
  CHECK(refused(estimated) == 0);
  Scenario declared = storm(3, "100", {{"provider.input_token_allowance", "27/min"}});
  declared.fleet.tokens = 10;  // sent in the token header: 20 fit, the third waits a while
  CHECK(refused(simulate(declared)) > 0);
}

TEST_CASE("simulate: openai's token allowance charges max(max_tokens) and settles to the count") {
  // The prompt's 9 and max_completion_tokens 4096 at admission: one fits 5,000 a minute, the
  // second gets in when the first settles to 9 + 50.
  Scenario s = storm(2, "4096", {{"provider.token_allowance", "5000/min"}});
  s.provider.dialect = Dialect::kOpenAi;
  const Results r = simulate(s);
  CHECK(r.recording.delivered == 2);
  CHECK(refused(r) == 4);
  CHECK(r.recording.requests == 6);
}

TEST_CASE("simulate: unstreamed, max_tokens still reserves, settled when the one body is sent") {
  // --max-tokens without --stream: each request an LLM request answered in one body after
  // the provider's service time (1 s here), its 50 tokens written then.
  Scenario s = storm(11, "4096",
                     {{"provider.output_token_allowance", "40960/min"},
                      {"provider.latency", "1s"},
                      {"fleet.base", "400ms"}});
  s.fleet.stream = false;
  const Results r = simulate(s);
  CHECK(r.recording.delivered == 11);
  CHECK_FALSE(r.recording.streams.any());
  // Refused at 0, 0.4 and 0.8 s; the ten answered at 1 s give back 4,046 each: in at 1.2 s.
  CHECK(refused(r) == 3);
  CHECK(r.recording.requests == 14);
}

TEST_CASE("simulate: a stream the client's timeout cuts is settled then, at the tokens sent") {
  // One reservation at a time. The first stream is cut by the 1.1 s timeout, 6 tokens sent
  // (at 1.00 to 1.10 s): 4,090 go back then, so the second agent, refused at 0, 0.4 and
  // 0.8 s, is admitted at 1.2 s, long before the refill alone (68 a second) would let it in.
  Scenario s = storm(2, "4096",
                     {{"provider.output_token_allowance", "4096/min"},
                      {"fleet.base", "400ms"},
                      {"fleet.timeout", "1100ms"},
                      {"fleet.max_attempts", "4"}});
  const Results r = simulate(s);
  const BinnedCounts& arrivals = r.recording.provider_by_outcome;
  const auto ok = static_cast<std::size_t>(Outcome::kOk);
  const auto rate_limited = static_cast<std::size_t>(Outcome::kRateLimited);
  REQUIRE(arrivals.bins() >= 2);
  CHECK(arrivals.at(0, ok) == 1);
  CHECK(arrivals.at(0, rate_limited) == 3);
  CHECK(arrivals.at(1, ok) == 1);  // the second agent, at 1.2 s
}

TEST_CASE("simulate: provider.models_only refuses the fleet's model with a 404, no arrival") {
  auto s = storm(5, "512", {{"provider.models", R"({"small": {"allowance": "100/s"}})"}});
  const Results listed = simulate(s);  // the fleet's model is unlisted: the top-level limits
  CHECK(listed.recording.delivered == 5);
  REQUIRE_FALSE(set_field(s, "provider.models_only", "on"));
  REQUIRE(validate(s).empty());
  const Results r = simulate(s);
  CHECK(r.recording.delivered == 0);
  CHECK(r.recording.dead_lettered == 5);
  CHECK(r.recording.requests == 5);  // a 4xx is never retried
  CHECK(r.recording.provider_by_outcome.total() == 0);
  CHECK(r.recording.client_by_outcome.total() == 5);
  CHECK(r.recording.streams.completed == 0);
}

TEST_CASE(
    "simulate: the max_tokens trap's token_limits: refused by output tokens, reserved > settled") {
  auto loaded = load_scenario_file(support::source_path("examples/llm_max_tokens.json"));
  REQUIRE_MESSAGE(loaded, loaded.error());
  Scenario s = *loaded;
  const Results trap = simulate(s);
  const TokenRecording& t = trap.recording.tokens;
  // 600 requests for 200 answers: every refusal is the output-token limit's, although each
  // answer writes 100 of the 4096 tokens it reserved.
  CHECK(t.refused_by(TokenLimit::kOutputTokens) == refused(trap));
  CHECK(t.refused_by(TokenLimit::kOutputTokens) == 400);
  CHECK(t.refusals.total() == 400);
  CHECK(t.flow_total(TokenRecording::kAdmitted) == 200);
  CHECK(t.flow_total(TokenRecording::kReserved) == 200 * 4096);
  CHECK(t.flow_total(TokenRecording::kSettled) == 200 * 100);
  // The first wave: 40 reservations fill the bucket at t=0, and are settled at 2.98 s.
  CHECK(t.flows.at(0, TokenRecording::kReserved) == 40 * 4096);
  CHECK(t.flows.at(2, TokenRecording::kSettled) == 40 * 100);
  CHECK(refused_by_line(t) == "output tokens 400");

  s.fleet.max_tokens = 512;
  const TokenRecording fits = simulate(s).recording.tokens;
  CHECK(fits.refusals.total() == 0);
  CHECK(fits.flow_total(TokenRecording::kReserved) == 200 * 512);
  CHECK(fits.flow_total(TokenRecording::kSettled) == 200 * 100);
  CHECK(fits.flow_total(TokenRecording::kInput) == t.flow_total(TokenRecording::kInput));
}

TEST_CASE("simulate: a fleet that meets no token limit and sends no LLM request has no section") {
  auto loaded = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE_MESSAGE(loaded, loaded.error());
  CHECK_FALSE(simulate(*loaded).recording.tokens.any());
}
