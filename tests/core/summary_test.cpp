#include <doctest/doctest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "summary.hpp"

using namespace stampede;

TEST_CASE("every metric name is unique and reads its own field") {
  std::set<std::string_view> names;
  Summary s;
  double v = 1.25;
  for (const auto& m : kMetrics) {
    s.*(m.field) = v;
    v += 1;
    CHECK(names.insert(m.name).second);
    CHECK_FALSE(m.meaning.empty());
  }
  v = 1.25;
  for (const auto& m : kMetrics) {
    CAPTURE(m.name);
    const auto got = metric_value(s, m.name);
    REQUIRE(got);
    CHECK(*got == v);
    v += 1;
  }
  CHECK_FALSE(metric_value(s, "bogus"));
  CHECK_FALSE(metric_value(s, ""));
}

TEST_CASE("the summary JSON has the keys the issue names, rounded to three decimals") {
  Summary s;
  s.peak_ratio = 2.123456;
  s.drain_s = 543;
  const auto j = to_json(s);
  for (const char* key :
       {"items", "delivered", "dead_lettered", "requests", "peak_second", "peak_arrivals",
        "peak_ratio", "drain_s", "amplification", "p50_s", "p99_s"}) {
    CAPTURE(key);
    CHECK(j.contains(key));
  }
  CHECK(j.size() == kMetrics.size());
  CHECK(j.at("peak_ratio").get<double>() == 2.123);
  CHECK(j.at("drain_s").get<double>() == 543);
}

TEST_CASE("a summary survives a JSON round trip") {
  Summary s;
  double v = 0.5;
  for (const auto& m : kMetrics) {
    s.*(m.field) = v;
    v = v * 3 + 0.125;
  }
  const auto back = summary_from_json(nlohmann::json::parse(to_json(s).dump()));
  for (const auto& m : kMetrics) {
    CAPTURE(m.name);
    CHECK(back.*(m.field) == doctest::Approx(s.*(m.field)).epsilon(1e-9));
  }
  // Missing keys keep their defaults.
  const auto partial = summary_from_json(nlohmann::json::parse(R"({"requests": 5})"));
  CHECK(partial.requests == 5);
  CHECK(partial.items == 0);
}
