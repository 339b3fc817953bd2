#include <doctest/doctest.h>

#include <signal.h>

#include "cli/fleet_workers.hpp"
#include "cli/worker_progress.hpp"

using namespace stampede;

TEST_CASE("fleet workers: as many as the open-file limit needs, or as asked") {
  struct Row {
    std::int64_t clients, room, requested;
    bool shard_given, dashboard;
    std::int64_t workers;  // 0: an error
    const char* error;     // a part of it
  };
  for (const Row row : {
           Row{10000, 19936, 0, false, false, 1, ""},
           Row{19936, 19936, 0, false, false, 1, ""},
           Row{19937, 19936, 0, false, false, 2, ""},
           Row{50000, 19936, 0, false, false, 3, ""},
           Row{600, 19936, 3, false, false, 3, ""},  // forced, for tests and spreading CPU
           Row{600, 19936, 1, false, false, 1, ""},
           Row{50000, 19936, 1, false, false, 1, ""},  // the descriptor check speaks
           Row{50000, 19936, 2, false, false, 0, "give --processes 3 or more"},
           Row{600, 19936, 601, false, false, 0, "more processes than the 600 clients"},
           // A user's shard is one process; the descriptor check then speaks for it.
           Row{50000, 19936, 0, true, false, 1, ""},
           Row{600, 19936, 3, true, false, 0, "not with --shard"},
           Row{600, 19936, 3, false, true, 0, "--dashboard"},
           Row{50000, 19936, 0, false, true, 0, "--dashboard"},
           Row{600, 19936, 0, false, true, 1, ""},
       }) {
    CAPTURE(row.clients);
    CAPTURE(row.requested);
    const auto n =
        worker_count({row.clients, row.room, row.requested, row.shard_given, row.dashboard});
    if (row.workers == 0) {
      REQUIRE_FALSE(n);
      CHECK(n.error().find(row.error) != std::string::npos);
    } else {
      REQUIRE(n);
      CHECK(*n == row.workers);
    }
  }
}

TEST_CASE("fleet workers: each is told its shard and the directory, and the user's start") {
  const std::vector<std::string> given{"--clients", "600", "--out", "fleet.json"};
  CHECK(worker_arguments(given, 1, 3, "/tmp/d") ==
        std::vector<std::string>{"fleet-worker", "--shard", "1/3", "--dir", "/tmp/d", "--clients",
                                 "600", "--out", "fleet.json"});
  // The user's --start-at is among the arguments already; without one the supervisor gives
  // the start once the workers are ready.
  const std::vector<std::string> at{"--start-at", "1767225600.250"};
  CHECK(worker_arguments(at, 0, 2, "/tmp/d") ==
        std::vector<std::string>{"fleet-worker", "--shard", "0/2", "--dir", "/tmp/d", "--start-at",
                                 "1767225600.250"});
  const auto files = worker_files("/tmp/d", 2);
  CHECK(files.results == "/tmp/d/worker-2.json");
  CHECK(files.dead_letters == "/tmp/d/worker-2.dead-letters.jsonl");
}

TEST_CASE("fleet workers: the start line round-trips; the wait says how many are ready") {
  const std::string line = format_start_line(1'767'225'600'250'000'000);
  CHECK(line == "1767225600250000000\n");
  CHECK(parse_start_line(std::string_view(line).substr(0, line.size() - 1)) ==
        1'767'225'600'250'000'000);
  for (const char* bad : {"", "ready", "12x", "-5", "0", "1 2"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_start_line(bad));
  }
  // The descriptors a worker is given, above the standard ones and apart.
  CHECK(kWorkerProgressFd > 2);
  CHECK(kWorkerStartFd > 2);
  CHECK(kWorkerStartFd != kWorkerProgressFd);
  CHECK(format_fleet_waiting(2, 3) == "opening connections: 2 of 3 workers ready");
  CHECK(format_fleet_waiting(3, 3) == "all 3 workers ready, waiting for the start");
}

TEST_CASE("fleet workers: a progress report round-trips, and reports add up") {
  // elapsed, sent, 2xx, 429, 5xx, errors, in backoff, delivered, dead-lettered
  const LiveProgress p{1'500'000'000, 900, 100, 790, 4, 6, 450, 100, 2};
  const std::string line = format_progress_report(p);
  CHECK(line == "1500000000 900 100 790 4 6 450 100 2\n");
  const auto back = parse_progress_report(std::string_view(line).substr(0, line.size() - 1));
  REQUIRE(back);
  CHECK(format_progress_report(*back) == line);
  CHECK_FALSE(parse_progress_report("1 2 3"));
  CHECK_FALSE(parse_progress_report("1 2 3 4 5 6 7 8 9 10"));
  CHECK_FALSE(parse_progress_report("x 2 3 4 5 6 7 8 9"));

  LiveProgress q = p;
  q.elapsed_ns = 2'000'000'000;
  const auto sum = add_progress(p, q);
  CHECK(sum.elapsed_ns == 2'000'000'000);
  CHECK(sum.sent == 1800);
  CHECK(sum.dead_lettered == 4);

  std::vector<std::string> lines;
  LineBuffer buffer;
  const auto keep = [&](std::string_view l) { lines.emplace_back(l); };
  buffer.feed("1 2\n3", keep);
  buffer.feed(" 4\n", keep);
  CHECK(lines == std::vector<std::string>{"1 2", "3 4"});
}

TEST_CASE("fleet workers: a worker's end in the fleet's exit: its verdict, a usage error, else 3") {
  struct Row {
    const char* what;
    std::optional<ProcessEnd> end;
    bool wrote;
    int code;
  };
  for (const Row& row : {
           Row{"passed", ProcessEnd{true, 0, 0, false}, true, 0},
           Row{"a check failed: its verdict", ProcessEnd{true, 1, 0, false}, true, 0},
           Row{"its verdict, but no results", ProcessEnd{true, 1, 0, false}, false, 3},
           Row{"a usage error", ProcessEnd{true, 2, 0, false}, true, 2},
           Row{"a usage error, no results", ProcessEnd{true, 2, 0, false}, false, 2},
           Row{"a harness failure", ProcessEnd{true, 3, 0, false}, true, 3},
           Row{"killed", ProcessEnd{false, 0, SIGKILL, false}, true, 3},
           Row{"never ended", std::nullopt, false, 3},
       }) {
    CAPTURE(row.what);
    CHECK(worker_exit_code(row.end, row.wrote) == row.code);
  }
}
