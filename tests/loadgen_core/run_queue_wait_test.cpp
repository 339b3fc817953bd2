#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/run_summary.hpp"
#include "live/run_queue_wait.hpp"

using stampede::schedstat_wait_ns;

TEST_CASE("run queue wait: the second of schedstat's three numbers, or none") {
  struct Row {
    std::string text;
    std::optional<std::int64_t> wait;
  };
  const std::vector<Row> rows{
      {"466200 0 1\n", 0},
      {"123456789 987654321 42\n", 987654321},
      {"1 2 3", 2},  // no line end
      {"9223372036854775807 9223372036854775807 1\n", 9223372036854775807},
      {"", std::nullopt},
      {"1 2\n", std::nullopt},                       // two numbers
      {"1 2 3 4\n", std::nullopt},                   // four
      {"1 -2 3\n", std::nullopt},                    // negative
      {"1  2 3\n", std::nullopt},                    // two spaces
      {"1 x 3\n", std::nullopt},                     // not a number
      {"1 2 3\n\n", std::nullopt},                   // more than one line
      {"1 99999999999999999999 3\n", std::nullopt},  // past int64
  };
  for (const auto& r : rows) {
    CAPTURE(r.text);
    CHECK(schedstat_wait_ns(r.text) == r.wait);
  }
}

TEST_CASE("run queue wait: this thread's, where the kernel keeps it, never falls") {
  const auto first = stampede::thread_run_queue_wait_ns();
  CHECK(first.has_value() == std::filesystem::exists("/proc/thread-self/schedstat"));
  const auto second = stampede::thread_run_queue_wait_ns();
  if (first && second) CHECK(*second >= *first);
}

TEST_CASE("run queue wait: the harness line says it when the run has it") {
  nlohmann::json live = {{"loops", 2},
                         {"http_client", "native"},
                         {"cpu_user_s", 0.5},
                         {"cpu_sys_s", 1.25},
                         {"wall_s", 3.0},
                         {"send_lateness_p50_ms", 0.05},
                         {"send_lateness_p99_ms", 1.5}};
  const std::string plain =
      "harness: 2 loops (native), 0.50 s user + 1.25 s system CPU over 3.00 s; send lateness "
      "(wake plus queue in the client) p50 0.050 ms, p99 1.500 ms\n";
  CHECK(stampede::format_harness_line(live) == plain);
  live["cpu_wait_s"] = nullptr;  // the kernel kept no such figure
  CHECK(stampede::format_harness_line(live) == plain);
  live["cpu_wait_s"] = 0.75;
  CHECK(stampede::format_harness_line(live) ==
        "harness: 2 loops (native), 0.50 s user + 1.25 s system CPU over 3.00 s, 0.75 s waiting "
        "for a CPU; send lateness (wake plus queue in the client) p50 0.050 ms, p99 1.500 ms\n");
}
