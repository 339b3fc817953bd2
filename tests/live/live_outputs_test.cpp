#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/junit_writer.hpp"
#include "cli/live_comparison.hpp"
#include "live/dead_letter_writer.hpp"
#include "live/timer_heap.hpp"
#include "sim/sim_engine.hpp"
#include "support/process.hpp"

using namespace stampede;

TEST_CASE("the timer heap pops the earliest due time, ties in push order") {
  TimerHeap h;
  h.push(30, 1);
  h.push(10, 2);
  h.push(20, 3);
  h.push(10, 4);
  std::vector<std::uint32_t> order;
  while (!h.empty()) {
    order.push_back(h.top().client);
    h.pop();
  }
  CHECK(order == std::vector<std::uint32_t>{2, 4, 3, 1});
}

TEST_CASE("dead letters are one JSON object per line") {
  const std::vector<DeadLetter> letters{
      {7, 7, 4, Outcome::kRateLimited, 429, "attempts_exhausted", 7'002'000'000},
      {9, 1, 0, std::nullopt, 0, kUnfinishedReason, 1'000'000'000}};
  const std::string text = format_dead_letters(letters);
  const auto nl = text.find('\n');
  REQUIRE(nl != std::string::npos);
  const auto first = nlohmann::json::parse(text.substr(0, nl));
  CHECK(first["item"] == 7);
  CHECK(first["sends"] == 4);
  CHECK(first["last_outcome"] == "429");
  CHECK(first["last_status"] == 429);
  CHECK(first["reason"] == "attempts_exhausted");
  CHECK(first["t_s"].get<double>() == doctest::Approx(7.002));
  const auto second = nlohmann::json::parse(text.substr(nl + 1));
  CHECK(second["last_outcome"].is_null());
  CHECK(second["reason"] == "unfinished");
  CHECK(format_dead_letters({}).empty());
}

TEST_CASE("JUnit XML has one test case per assertion, failures named and escaped") {
  const std::vector<Verdict> verdicts{{"peak_ratio <= 2", false, 10, 2, {}},
                                      {"delivered == items", true, 1000, 1000, {}}};
  const std::string xml = format_junit("stampede.storm <&>", junit_cases(verdicts), 1.5);
  CHECK(xml.find("tests=\"2\" failures=\"1\" errors=\"0\"") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"stampede.storm &lt;&amp;&gt;\" name=\"peak_ratio &lt;= "
                 "2\">") != std::string::npos);
  CHECK(xml.find("<failure message=\"peak_ratio &lt;= 2 failed: actual 10, compared with 2\"") !=
        std::string::npos);
  CHECK(xml.find("name=\"delivered == items\"/>") != std::string::npos);
  CHECK(xml_escape("a\"b'c\x01") == "a&quot;b&apos;c");
}

TEST_CASE("JUnit XML: a failed check says why, a run that could not be done is an error") {
  const std::vector<Verdict> verdicts{
      {"delivered > 0", false, 0, 0, "no item was delivered: the target never answered"}};
  auto cases = junit_cases(verdicts);
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].state == JunitCase::State::kFailed);
  CHECK(cases[0].message ==
        "delivered > 0 failed: actual 0, compared with 0: no item was delivered: the target "
        "never answered");
  cases.push_back({"run completed", JunitCase::State::kError, "target unreachable: <refused>"});
  const std::string xml = format_junit("stampede.s", cases, 0);
  CHECK(xml.find("<testsuites tests=\"2\" failures=\"1\" errors=\"1\"") != std::string::npos);
  CHECK(xml.find("<error message=\"target unreachable: &lt;refused&gt;\">target unreachable: "
                 "&lt;refused&gt;</error>") != std::string::npos);
}

TEST_CASE("a run compared with its own simulation matches") {
  auto s = load_scenario_file(support::source_path("examples/storm.json"));
  REQUIRE(s);
  const Results sim = simulate(*s);
  const auto c = compare_with_simulation(sim, sim);
  CHECK(c["matches"] == true);
  CHECK(c["arrivals_per_second"]["seconds_differing"] == 0);
  CHECK(c["simulated"]["requests"] == 10500);
  CHECK(c["difference"]["requests"] == 0);

  Results other = sim;
  other.recording.provider_by_outcome.add(31 * 1'000'000'000LL, 0, 5);
  const auto d = compare_with_simulation(other, sim);
  CHECK(d["matches"] == false);
  CHECK(d["arrivals_per_second"]["seconds_differing"] == 1);
  CHECK(d["arrivals_per_second"]["abs_difference"] == 5);
  CHECK(format_comparison(d).find("1 of 544 seconds differ") != std::string::npos);
}
