// loadgen exec's retry metrics are the provider's: which sends were retries is its send
// attribution (each curl names itself in X-Client-Id, and the provider numbers each client's
// arrivals), what each was answered its outcomes. A fleet whose sends it could not number
// cannot be judged on its retries: exit 2, never a PASS at 0.

#include <doctest/doctest.h>

#include "exec_support.hpp"
#include "support/fake_provider.hpp"
#include "support/loadgen_run.hpp"
#include "support/temp_dir.hpp"

using namespace exec_test;
using support::FakeProvider;
using support::run_exec;
using support::TempDir;

namespace {

// The provider's arrivals in all, by one histogram's label.
std::int64_t label_total(const nlohmann::json& results, const char* histogram,
                         const std::string& label) {
  const auto& h = results["histograms"][histogram];
  std::int64_t n = 0;
  for (std::size_t l = 0; l < h["labels"].size(); ++l) {
    if (h["labels"][l] != label) continue;
    for (const auto& bin : h["counts"]) n += bin[l].get<std::int64_t>();
  }
  return n;
}

std::int64_t provider_retries(const nlohmann::json& results) {
  std::int64_t n = 0;
  for (const auto& label : results["histograms"]["provider_arrivals_by_send"]["labels"]) {
    if (label != "1") n += label_total(results, "provider_arrivals_by_send", label);
  }
  return n;
}

const nlohmann::json& verdict(const nlohmann::json& results, const std::string& text) {
  for (const auto& v : results["assertions"]) {
    if (v["assertion"] == text) return v;
  }
  FAIL("no verdict on " << text);
  return results;
}

const std::vector<std::string> kRetryChecks{"peak_retry_ratio <= 2", "retry_share < 0.5",
                                            "status_ratio_429 < 0.1"};

std::vector<std::string> exec_args(const FakeProvider& provider) {
  std::vector<std::string> args{"--clients",
                                "24",
                                "--allowance",
                                "8/s",
                                "--outage",
                                "0s-5s:503",
                                "--url",
                                provider.url(),
                                "--provider-admin",
                                provider.admin(),
                                "--max-duration",
                                "60s"};
  for (const auto& check : kRetryChecks) args.insert(args.end(), {"--assert", check});
  return args;
}

}  // namespace

TEST_CASE("exec's retry metrics are the provider's by-send counts, and gate the fleet") {
  FakeProvider provider({"--allowance", "8/s", "--outage", "0s-5s:503"});
  REQUIRE(provider.started());
  TempDir dir;
  const auto r = run_exec(dir, exec_args(provider),
                          {"curl", "-sf", "--retry", "12", "-H", "X-Client-Id: {client}", "-o",
                           dir.file("body.{client}"), "{url}"});
  INFO(r.err);
  check_accounted(r.results, 24);
  const auto& s = r.results["summary"];
  const auto requests = count(r.results, "requests");
  const auto retries = provider_retries(r.results);
  // Every first send met the outage and was retried at least once.
  CHECK(retries >= 24);
  CHECK(label_total(r.results, "provider_arrivals_by_send", "1") == 24);
  CHECK(s["retries"] == retries);
  CHECK(
      s["retry_share"].get<double>() ==
      doctest::Approx(static_cast<double>(retries) / static_cast<double>(requests)).epsilon(0.001));
  const auto answered_429 = label_total(r.results, "provider_arrivals_by_outcome", "429");
  CHECK(s["status_ratio_429"].get<double>() ==
        doctest::Approx(static_cast<double>(answered_429) / static_cast<double>(requests))
            .epsilon(0.001));
  CHECK(s["peak_retries"].get<double>() > 0);
  // Each client's sends, from the provider's per-item record: every one retried at least once.
  CHECK(s["attempts_p99"].get<double>() >= 2);
  CHECK(r.results["distributions"]["sends_per_item"]["count"] == 24);
  CHECK(s["peak_retry_ratio"].get<double>() ==
        doctest::Approx(s["peak_retries"].get<double>() / 8));
  // The verdicts read the same numbers, and the exit code follows them.
  bool any_failed = false;
  for (const auto& check : kRetryChecks) {
    CAPTURE(check);
    const auto& v = verdict(r.results, check);
    CHECK_FALSE(v.contains("refused"));
    // The summary's three decimals.
    CHECK(v["actual"].get<double>() ==
          doctest::Approx(s[check.substr(0, check.find(' '))].get<double>()).epsilon(0.001));
    any_failed = any_failed || !v["passed"].get<bool>();
  }
  // Every first send met the five-second outage (a loaded machine's spread of first sends
  // still fits in it), so at least half the requests were retries: retry_share < 0.5 cannot
  // hold, however the machine spread the fleet.
  CHECK(verdict(r.results, "retry_share < 0.5")["passed"] == false);
  CHECK(any_failed);
  CHECK(r.code == 1);
}

TEST_CASE("exec refuses retry checks on a fleet whose sends the provider could not number") {
  FakeProvider provider({"--allowance", "8/s", "--outage", "0s-5s:503"});
  REQUIRE(provider.started());
  TempDir dir;
  // No X-Client-Id, no item header, no attempt header: every arrival is unnumbered.
  const auto r =
      run_exec(dir, exec_args(provider),
               {"curl", "-sf", "--retry", "12", "-o", dir.file("body.{client}"), "{url}"});
  INFO(r.err);
  CHECK(r.code == 2);
  CHECK(r.err.find("loadgen: retry_share < 0.5 refused: retry_share cannot be computed") !=
        std::string::npos);
  check_accounted(r.results, 24);
  CHECK(label_total(r.results, "provider_arrivals_by_send", "1") == 0);
  for (const auto& check : kRetryChecks) {
    CAPTURE(check);
    const auto& v = verdict(r.results, check);
    CHECK(v["passed"] == false);
    CHECK(v["refused"] == true);
    CHECK(v["why"].get<std::string>().find("carry a send number") != std::string::npos);
  }
  CHECK(verdict(r.results, "delivered > 0")["passed"] == true);
}
