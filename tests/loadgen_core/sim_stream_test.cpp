// simulate --stream (docs/LLM.md): an admitted streamed answer holds its client for the
// provider's pacing, its length and break the provider's draws, a break the retryable outcome
// the live client reads; the results' streams section as a live run writes it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "duration.hpp"
#include "model/llm_pacing.hpp"
#include "sim/sim_engine.hpp"

using namespace stampede;

namespace {

// clients agents, one item each, against an anthropic provider streaming 10 tokens at 20/s
// after 800 ms.
Scenario streamed(std::int64_t clients) {
  Scenario s;
  const std::pair<const char*, const char*> fields[] = {
      {"provider.dialect", "anthropic"},
      {"provider.first_token", "800ms"},
      {"provider.token_rate", "20/s"},
      {"provider.output_tokens", "10"},
      {"fleet.clients", "1"},
      {"fleet.strategy", "fixed"},
      {"fleet.base", "1s"},
      {"fleet.stream", "on"},
      {"fleet.max_tokens", "400"},
  };
  for (const auto& [field, value] : fields) REQUIRE_FALSE(set_field(s, field, value));
  s.fleet.clients = clients;
  REQUIRE(validate(s).empty());
  return s;
}

std::int64_t of(const BinnedCounts& counts, Outcome o) {
  std::int64_t n = 0;
  for (std::size_t b = 0; b < counts.bins(); ++b) n += counts.at(b, static_cast<std::size_t>(o));
  return n;
}
std::int64_t sent(const Results& r, Outcome o) {
  return of(r.recording.client_by_outcome, o);
}
std::int64_t arrived(const Results& r, Outcome o) {
  return of(r.recording.provider_by_outcome, o);
}

}  // namespace

TEST_CASE("simulate --stream: an answer holds its client until its last token") {
  const Results r = simulate(streamed(1));
  CHECK(r.recording.delivered == 1);
  // Token 9 is due 800 ms + 9 x 50 ms after the head, sent at once.
  CHECK(r.recording.drain_ns == 1'250 * kNsPerMs);
  const StreamRecording& s = r.recording.streams;
  CHECK(s.completed == 1);
  CHECK(s.broken == 0);
  CHECK(s.tokens == 10);
  CHECK(s.first_token_ns.count() == 1);
  CHECK(s.duration_ns.count() == 1);
  CHECK(to_json(r).contains("streams"));
  // Open from its send at t=0 into second 1, where it closed.
  CHECK(running_levels(s.open_transitions) == std::vector<std::int64_t>{1, 0});
}

TEST_CASE("simulate --stream: the open streams over time are the fleet's, 300 at once") {
  Scenario s = streamed(300);
  const Results r = simulate(s);
  const OpenStreamsPeak peak = open_streams_peak(r.recording.streams.open_transitions);
  CHECK(peak.open == 300);
  CHECK(peak.second == 0);
  CHECK(running_levels(r.recording.streams.open_transitions).back() == 0);
}

TEST_CASE("simulate without --stream answers at once and writes no streams section") {
  Scenario plain = streamed(1);
  plain.fleet.stream = false;
  const Results r = simulate(plain);
  CHECK(r.recording.drain_ns == 0);
  CHECK_FALSE(r.recording.streams.any());
  CHECK_FALSE(to_json(r).contains("streams"));
}

TEST_CASE("simulate --stream: a broken stream is served at the provider, retried by the client") {
  struct Row {
    Dialect dialect;
    Outcome seen;
  };
  for (const Row row : {Row{Dialect::kAnthropic, Outcome::kOverloaded},
                        Row{Dialect::kOpenAi, Outcome::kBadResponse}}) {
    Scenario s = streamed(1);
    s.provider.dialect = row.dialect;
    s.provider.stream.errors = 1;
    s.fleet.max_attempts = 2;
    const Results r = simulate(s);
    CHECK(r.recording.dead_lettered == 1);
    CHECK(r.recording.requests == 3);
    CHECK(arrived(r, Outcome::kOk) == 3);  // admitted, then broken
    CHECK(sent(r, row.seen) == 3);
    CHECK(r.recording.streams.broken == 3);
    CHECK(r.recording.streams.completed == 0);
    CHECK(r.recording.streams.duration_ns.count() == 0);
  }
}

TEST_CASE("simulate --stream: the client's timeout cuts a stream, with the tokens sent by then") {
  Scenario s = streamed(1);
  s.fleet.timeout_ns = kNsPerSec;  // tokens at 800, 850, ..., 1000 ms are read
  s.fleet.max_attempts = 1;
  const Results r = simulate(s);
  CHECK(sent(r, Outcome::kTimeout) == 2);
  CHECK(r.recording.streams.broken == 2);
  CHECK(r.recording.streams.tokens == 10);
}

TEST_CASE(
    "simulate --stream: the streams draw the provider's lengths and breaks, request by "
    "request") {
  Scenario s = streamed(300);
  s.provider.stream.output_tokens = TokenRange{5, 50};
  s.provider.stream.errors = 0.1;
  s.provider.seed = 9;
  s.fleet.max_attempts = 0;
  const Results r = simulate(s);
  // Every admitted stream is one request number, from 0: its plan is the provider's.
  std::int64_t tokens = 0;
  std::int64_t broken = 0;
  for (std::int64_t n = 0; n < r.recording.requests; ++n) {
    const StreamPlan plan = plan_stream(s.provider.stream, 400, 9, static_cast<std::uint64_t>(n));
    tokens += stream_times(s.provider.stream, plan).tokens;
    broken += plan.break_after.has_value();
  }
  CHECK(r.recording.delivered == 300);
  CHECK(r.recording.streams.tokens == tokens);
  CHECK(r.recording.streams.broken == broken);
  CHECK(r.recording.requests == 300 + broken);
}

TEST_CASE("simulate --stream: fleet.max_tokens bounds the answers; unstreamed, it asks one body") {
  Scenario s = streamed(1);
  s.provider.stream.output_tokens.reset();  // the answer is max_tokens long
  s.fleet.max_tokens = 3;
  CHECK(simulate(s).recording.streams.tokens == 3);
  // Given without a stream, the fleet's requests are LLM requests all the same, each answered
  // in one body: no streams section, the client held for the service time alone.
  Scenario unstreamed = streamed(1);
  unstreamed.fleet.stream = false;
  CHECK(validate(unstreamed).empty());
  const Results one_body = simulate(unstreamed);
  CHECK(one_body.recording.delivered == 1);
  CHECK(one_body.recording.drain_ns == 0);
  CHECK_FALSE(one_body.recording.streams.any());
  CHECK(set_field(unstreamed, "fleet.max_tokens", "0"));
}
