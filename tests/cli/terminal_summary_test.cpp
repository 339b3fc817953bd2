// The summary printed after a run, by table: what it says of latencies under a millisecond,
// of runs with no outage, no allowance, and no delivery.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "terminal_summary.hpp"

using namespace stampede;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Results run_results() {
  Results r;
  r.engine = "run";
  r.scenario.provider.allowance = *parse_rate("10/s");
  r.summary.items = 20;
  r.summary.delivered = 20;
  r.summary.requests = 20;
  r.summary.drain_s = 1;
  r.summary.peak_arrivals = 20;
  r.summary.peak_ratio = 2;
  r.summary.peak_retries = 5;
  r.summary.peak_retry_ratio = 0.5;
  r.recording.client_by_outcome.add(0, 0, 20);  // the seconds with traffic: t=0
  return r;
}

}  // namespace

TEST_CASE("summary: item latencies under a second in ms, never 0.000 s") {
  struct Case {
    double p50_s, p99_s;
    std::string says;
  };
  const std::vector<Case> cases{
      {0.000412, 0.0009, "item latency p50 0.412 ms, p99 0.9 ms"},
      {0.0123, 0.25, "item latency p50 12.3 ms, p99 250 ms"},
      {0.9996, 12.5, "item latency p50 1.000 s, p99 12.500 s"},
      {0, 0, "item latency p50 0.000 s, p99 0.000 s"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.says);
    auto r = run_results();
    r.summary.p50_s = c.p50_s;
    r.summary.p99_s = c.p99_s;
    const auto text = format_terminal_summary(r);
    INFO(text);
    CHECK(has(text, c.says));
  }
}

TEST_CASE("summary: no outage, no recovery; an outage, after recovery") {
  auto r = run_results();
  const auto plain = format_terminal_summary(r);
  INFO(plain);
  // Each peak names the bins it was counted in, to set beside advise's rates over a window.
  CHECK(has(plain, "busiest second: t=0 s, 20 requests (2.0x the allowance; 1 s bins)\n"));
  CHECK(has(plain,
            "busiest second among retries, past the first: t=0 s, 5 retries (0.5x; 1 s "
            "bins)\n"));
  CHECK(has(plain, "\nseconds with any traffic:\n  t=0: 20\n"));
  CHECK_FALSE(has(plain, "recovery"));
  CHECK_FALSE(has(plain, "after the outage"));
  r.scenario.provider.outages.push_back(*parse_outage("0s-30s:503"));
  r.recording.client_by_outcome.add(31'000'000'000, 0, 20);
  r.summary.peak_second = 31;
  const auto stormy = format_terminal_summary(r);
  CHECK(has(stormy, "busiest second after recovery: t=31 s"));
  CHECK(has(stormy, "\nseconds with any traffic, after the outage:\n  t=31: 20\n"));
}

TEST_CASE("summary: no allowance, no ratio to it") {
  auto r = run_results();
  r.scenario.provider.allowance.reset();
  const auto text = format_terminal_summary(r);
  INFO(text);
  CHECK(has(text, "busiest second: t=0 s, 20 requests (1 s bins)\n"));
  CHECK(has(text, "busiest second among retries, past the first: t=0 s, 5 retries (1 s bins)\n"));
  CHECK_FALSE(has(text, "the allowance"));
}

TEST_CASE("summary: a run that delivered nothing says so, not 'got through at t=0 s'") {
  auto r = run_results();
  r.summary.delivered = 0;
  r.summary.dead_lettered = 20;
  r.summary.drain_s = 0;
  const auto text = format_terminal_summary(r);
  INFO(text);
  CHECK(has(text, "delivered 0 of 20, dead-lettered 20, unfinished 0\nno item got through\n"));
  CHECK_FALSE(has(text, "got through at"));
}

TEST_CASE("summary: lines that do not apply are left out, not printed as zeros") {
  // Every item given up on during the outage: no second after the recovery had traffic.
  auto r = run_results();
  r.scenario.provider.outages.push_back(*parse_outage("0s-30s:503"));
  r.summary.peak_arrivals = 0;
  r.summary.peak_retries = 0;
  const auto stormy = format_terminal_summary(r);
  INFO(stormy);
  CHECK(has(stormy, "no request arrived after the recovery at t=30 s\n"));
  CHECK_FALSE(has(stormy, "busiest second"));
  CHECK_FALSE(has(stormy, "0 requests"));
  CHECK_FALSE(has(stormy, "seconds with any traffic"));
  // No outage and no traffic at all: no peak, no empty block.
  auto idle = run_results();
  idle.summary.peak_arrivals = 0;
  idle.summary.peak_retries = 0;
  idle.recording = Recording{};
  const auto text = format_terminal_summary(idle);
  INFO(text);
  CHECK_FALSE(has(text, "busiest second"));
  CHECK_FALSE(has(text, "seconds with any traffic"));
  CHECK_FALSE(has(text, "recovery"));
}

TEST_CASE("summary: dead-lettered items say why, the commonest reason first") {
  auto r = run_results();
  r.summary.delivered = 0;
  r.summary.dead_lettered = 40;
  r.recording.dead_letter_reasons["attempts_exhausted"] = 10;
  r.recording.dead_letter_reasons["not_retryable"] = 30;
  const auto text = format_terminal_summary(r);
  INFO(text);
  CHECK(has(text, "dead-lettered 40 (30 not retryable, 10 attempts exhausted), unfinished 0\n"));
}

TEST_CASE("summary: the provider line names every LLM limit in force, and only those") {
  auto r = run_results();
  CHECK(has(format_terminal_summary(r), "provider: allowance 10/s (per-second)\n"));
  r.scenario.provider.input_token_allowance = *parse_rate("30000/min");
  r.scenario.provider.output_token_allowance = *parse_rate("8000/min");
  r.scenario.provider.max_concurrent = 4;
  const auto text = format_terminal_summary(r);
  INFO(text);
  CHECK(has(text,
            "provider: allowance 10/s (per-second), input tokens 30000/min, output tokens "
            "8000/min, 4 open at once\n"));
}
