// The soak test: a real fakeprovider holding thousands of tenants and a real `loadgen run`
// against it, steady for STAMPEDE_SOAK_SECONDS (default 600), while this thread reads the
// stats every second, resets the provider and starts outages on its admin API, and samples
// both processes' resident memory. Neither may grow once warmed up: every structure either
// side keeps is bounded (DESIGN.md, "Results are bounded"), so growth here is a leak.
#include <doctest/doctest.h>

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace {

constexpr int kDefaultSeconds = 600;
constexpr int kClients = 2000;  // one key each: the provider's tenants
constexpr int kRatePerS = 400;
// Resets and outages on demand, each this often; the scenario's own outages replay after
// every reset (its clock restarts), so there are two kinds.
constexpr int kResetEveryS = 10;
constexpr int kOutageEveryS = 10;

int soak_seconds() {
  const char* v = std::getenv("STAMPEDE_SOAK_SECONDS");
  if (!v) return kDefaultSeconds;
  // At least long enough for a warm-up and two windows to compare.
  return std::max(30, std::atoi(v));
}

// VmRSS of a live process in KiB; 0 once it is gone.
std::int64_t vm_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return 0;
}

// One RSS sample a second. The warm-up (a minute, or a third of a shorter run) is when the
// connections, the tenants' counters and the allocator's arenas reach their working size.
// Then the largest sample of the window after it is the baseline, and the largest of the last
// window may exceed it by the slack only: allocator noise (a stats document of a few hundred
// KB built on one admin thread or another, each with its own arena) and the per-second
// histogram bins, which grow by design with the run's length (a few hundred bytes a second).
struct RssJudgement {
  std::int64_t warm_max_kib = 0;  // the warm-up, for the record
  std::int64_t baseline_kib = 0;  // max over [warm, 2 warm)
  std::int64_t last_max_kib = 0;  // max over the last warm seconds
  std::int64_t allowed_kib = 0;   // baseline + slack
  bool flat() const { return last_max_kib <= allowed_kib; }
};

constexpr std::int64_t kSlackKib = 4 * 1024;
constexpr std::int64_t kSlackPercent = 3;

RssJudgement judge(const std::vector<std::int64_t>& kib) {
  RssJudgement j;
  const std::size_t n = kib.size();
  const std::size_t warm = std::min<std::size_t>(60, n / 3);
  if (warm == 0) return j;
  const auto max_of = [&](std::size_t from, std::size_t to) {
    return *std::max_element(kib.begin() + static_cast<std::ptrdiff_t>(from),
                             kib.begin() + static_cast<std::ptrdiff_t>(to));
  };
  j.warm_max_kib = max_of(0, warm);
  j.baseline_kib = max_of(warm, 2 * warm);
  j.last_max_kib = max_of(n - warm, n);
  j.allowed_kib = j.baseline_kib + std::max(kSlackKib, j.baseline_kib * kSlackPercent / 100);
  return j;
}

double mib(std::int64_t kib) {
  return static_cast<double>(kib) / 1024.0;
}

std::string describe(const char* who, const RssJudgement& j) {
  char line[320];
  std::snprintf(line, sizeof line,
                "%-12s RSS MiB: warm-up max %.1f, next window max %.1f (baseline), last window "
                "max %.1f, allowed %.1f: %s",
                who, mib(j.warm_max_kib), mib(j.baseline_kib), mib(j.last_max_kib),
                mib(j.allowed_kib), j.flat() ? "flat" : "GREW");
  return line;
}

// The samples at each whole minute (and the last), for the record.
std::string timeline(const char* who, const std::vector<std::int64_t>& kib) {
  std::string text = std::string(who) + " RSS MiB by minute:";
  for (std::size_t s = 0; s < kib.size(); ++s) {
    if (s % 60 != 0 && s + 1 != kib.size()) continue;
    char figure[32];
    std::snprintf(figure, sizeof figure, " %zu s %.1f", s + 1, mib(kib[s]));
    text += figure;
  }
  return text;
}

int admin_status(int port, const std::string& method, const std::string& path) {
  return support::http(port, method, path).status;
}

}  // namespace

TEST_CASE("the soak test's RSS judgement fails a process that keeps growing") {
  // This process, made to leak 256 KiB a sample: the same sampler and the same judgement.
  std::vector<std::int64_t> kib;
  std::vector<std::vector<char>> leak;
  for (int s = 0; s < 90; ++s) {
    leak.emplace_back(256 * 1024, static_cast<char>(s));  // touched, so resident
    kib.push_back(vm_rss_kib(getpid()));
  }
  const auto grew = judge(kib);
  INFO(describe("leaking", grew));
  CHECK_FALSE(grew.flat());
  // And a flat series (noise within the slack) passes.
  std::vector<std::int64_t> flat(90, 100'000);
  flat[70] = 100'000 + kSlackKib;
  CHECK(judge(flat).flat());
}

TEST_CASE("slow: soak: steady load with resets, outages and stats reads every second; RSS flat") {
  if (!support::slow_tests()) return;
  const int seconds = soak_seconds();
  // The scenario's outages, replayed after every reset: 503s, then connections reset.
  support::RecordingProvider provider({"--allowance", "20/min", "--limiter", "fixed-window",
                                       "--outage", "2s-3s:503", "--outage", "6s-6.5s:reset",
                                       "--latency", "1ms-5ms"});
  REQUIRE(provider.started());

  support::TempDir dir;
  std::string keys;
  for (int c = 0; c < kClients; ++c) keys += "soak-tenant-" + std::to_string(c) + "\n";
  support::write_file(dir.file("keys.txt"), keys);
  const std::string url = "http://127.0.0.1:" + std::to_string(provider.data_port()) + "/v1";
  // Retries without end or deadline, so every item is delivered in the end and nothing piles
  // up as dead letters; the Retry-After of a 429 (up to a minute) is taken as given.
  support::Process loadgen(support::bin_path("loadgen"),
                           {"run",
                            "--url",
                            url,
                            "--api-keys-file",
                            dir.file("keys.txt"),
                            "--clients",
                            std::to_string(kClients),
                            "--workload",
                            "steady",
                            "--rate",
                            std::to_string(kRatePerS) + "/s",
                            "--duration",
                            std::to_string(seconds) + "s",
                            "--strategy",
                            "full-jitter",
                            "--base",
                            "100ms",
                            "--cap",
                            "5s",
                            "--max-attempts",
                            "0",
                            "--retry-after",
                            "jittered",
                            "--timeout",
                            "10s",
                            "--loops",
                            "1",
                            "--max-duration",
                            std::to_string(seconds + 180) + "s",
                            "--out",
                            dir.file("results.json"),
                            "--no-report",
                            "--quiet"},
                           dir, "loadgen");
  REQUIRE(loadgen.started());

  std::vector<std::int64_t> provider_kib, loadgen_kib;
  std::size_t most_tenants = 0;
  int failed_calls = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < seconds && loadgen.running(); ++s) {
    std::this_thread::sleep_until(start + std::chrono::seconds(s + 1));
    const auto stats = support::http(provider.admin_port(), "GET", "/admin/stats");
    if (stats.status == 200) {
      const auto doc = nlohmann::json::parse(stats.body, nullptr, false);
      if (!doc.is_discarded() && doc.contains("tenants"))
        most_tenants = std::max(most_tenants, doc.at("tenants").size());
    } else {
      ++failed_calls;
    }
    if (s % kResetEveryS == kResetEveryS - 1 &&
        admin_status(provider.admin_port(), "POST", "/admin/reset") != 200)
      ++failed_calls;
    if (s % kOutageEveryS == kOutageEveryS / 2 &&
        admin_status(provider.admin_port(), "POST", "/admin/outage?for=500ms&status=529") != 200)
      ++failed_calls;
    provider_kib.push_back(vm_rss_kib(provider.pid()));
    loadgen_kib.push_back(vm_rss_kib(loadgen.pid()));
  }
  const int code = loadgen.wait((180 + 30) * 1000);
  const auto results =
      nlohmann::json::parse(support::read_file(dir.file("results.json")), nullptr, false);

  const auto p = judge(provider_kib);
  const auto l = judge(loadgen_kib);
  MESSAGE(seconds << " s, " << kClients << " clients at " << kRatePerS << "/s, up to "
                  << most_tenants << " tenants at once\n"
                  << describe("fakeprovider", p) << "\n"
                  << describe("loadgen", l) << "\n"
                  << timeline("fakeprovider", provider_kib) << "\n"
                  << timeline("loadgen", loadgen_kib));
  INFO(loadgen.err());
  CHECK(provider_kib.size() == static_cast<std::size_t>(seconds));  // loadgen ran throughout
  CHECK(failed_calls == 0);
  // Thousands of tenants between two resets (each client's key is a tenant).
  CHECK(most_tenants >= kClients * 3 / 4);
  CHECK(code == 0);
  REQUIRE(results.is_object());
  CHECK(results.at("counts").at("items").get<std::int64_t>() ==
        static_cast<std::int64_t>(seconds) * kRatePerS);
  CHECK(p.flat());
  CHECK(l.flat());
  CHECK(provider.stop() == 0);
}
