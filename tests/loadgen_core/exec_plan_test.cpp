#include <doctest/doctest.h>

#include <signal.h>

#include "cli/exec_plan.hpp"

using namespace stampede;

TEST_CASE("exec plan: N clients in ceil(N / K) processes, the last taking what is left") {
  struct Row {
    std::int64_t clients, per_process, processes, last_first, last_clients;
  };
  for (const Row row : {Row{24, 1, 24, 23, 1}, Row{20, 4, 5, 16, 4}, Row{10, 3, 4, 9, 1},
                        Row{7, 7, 1, 0, 7}, Row{1, 1, 1, 0, 1}}) {
    CAPTURE(row.clients);
    CAPTURE(row.per_process);
    const auto n = process_count(row.clients, row.per_process);
    CHECK(n == row.processes);
    const auto last = process_at(n - 1, row.clients, row.per_process);
    CHECK(last.index == n - 1);
    CHECK(last.first_client == row.last_first);
    CHECK(last.clients == row.last_clients);
    std::int64_t covered = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto p = process_at(i, row.clients, row.per_process);
      CHECK(p.first_client == covered);  // every client in exactly one process, in order
      covered += p.clients;
    }
    CHECK(covered == row.clients);
  }
}

TEST_CASE("exec plan: {url} and {client} are replaced wherever they appear, nothing else") {
  const std::string url = "http://127.0.0.1:8080/v1";
  CHECK(expand_argument("{url}", url, 7) == url);
  CHECK(expand_argument("X-Client-Id: {client}", url, 7) == "X-Client-Id: 7");
  CHECK(expand_argument("out.{client}", url, 12) == "out.12");
  CHECK(expand_argument("{url}?c={client}&again={client}", url, 3) == url + "?c=3&again=3");
  // Braces that are not the two names stay: JSON bodies, other shells' syntax, near misses.
  CHECK(expand_argument(R"({"model":"x","n":1})", url, 3) == R"({"model":"x","n":1})");
  CHECK(expand_argument("{clients} {URL} {client {url", url, 3) == "{clients} {URL} {client {url");
  CHECK(expand_argument("", url, 3).empty());
  // What is put in is never expanded again.
  CHECK(expand_argument("{url}", "http://h/{client}", 5) == "http://h/{client}");
  CHECK(expand_arguments({"-H", "X-Client-Id: {client}", "{url}"}, url, 0) ==
        std::vector<std::string>{"-H", "X-Client-Id: 0", url});
}

TEST_CASE("exec plan: each process is told its clients, and loadgen's own values give way") {
  const ExecProcess p{2, 8, 4};
  const auto vars = process_variables(p, 10, "http://h:1/v");
  using Var = std::pair<std::string, std::string>;
  CHECK(vars == std::vector<Var>{{"STAMPEDE_URL", "http://h:1/v"},
                                 {"STAMPEDE_CLIENT_ID", "8"},
                                 {"STAMPEDE_CLIENTS", "10"},
                                 {"STAMPEDE_PER_PROCESS", "4"}});
  const auto env = process_environment(
      {"PATH=/usr/bin", "STAMPEDE_CLIENT_ID=99", "HOME=/root", "STAMPEDE_CLIENT_IDX=keep"}, vars);
  CHECK(env == std::vector<std::string>{"PATH=/usr/bin", "HOME=/root", "STAMPEDE_CLIENT_IDX=keep",
                                        "STAMPEDE_URL=http://h:1/v", "STAMPEDE_CLIENT_ID=8",
                                        "STAMPEDE_CLIENTS=10", "STAMPEDE_PER_PROCESS=4"});
}

TEST_CASE("exec plan: a trace item's process gets {item} and {tenant}, and its line's fields") {
  const std::string url = "http://127.0.0.1:8080/v1";
  ExecItem item;
  item.item = 41;
  item.client = 3;
  CHECK(item_arguments({"{url}", "X-Item: {item}", "c{client}", "t={tenant}", "{items}"}, url,
                       item) == std::vector<std::string>{url, "X-Item: 41", "c3", "t=", "{items}"});
  using Var = std::pair<std::string, std::string>;
  // A line with no fields but its time: the item alone, beside what every process is told.
  CHECK(item_variables(item, 10, url) == std::vector<Var>{{"STAMPEDE_URL", url},
                                                          {"STAMPEDE_CLIENT_ID", "3"},
                                                          {"STAMPEDE_CLIENTS", "10"},
                                                          {"STAMPEDE_PER_PROCESS", "1"},
                                                          {"STAMPEDE_ITEM", "41"}});
  item.tenant = "acme";
  item.tokens = 1200;
  item.method = "POST";
  item.path = "/v1/chat";
  CHECK(item_arguments({"-H", "X-Tenant: {tenant}", "{url}?i={item}"}, url, item) ==
        std::vector<std::string>{"-H", "X-Tenant: acme", url + "?i=41"});
  CHECK(item_variables(item, 10, url) == std::vector<Var>{{"STAMPEDE_URL", url},
                                                          {"STAMPEDE_CLIENT_ID", "3"},
                                                          {"STAMPEDE_CLIENTS", "10"},
                                                          {"STAMPEDE_PER_PROCESS", "1"},
                                                          {"STAMPEDE_ITEM", "41"},
                                                          {"STAMPEDE_TENANT", "acme"},
                                                          {"STAMPEDE_TOKENS", "1200"},
                                                          {"STAMPEDE_METHOD", "POST"},
                                                          {"STAMPEDE_PATH", "/v1/chat"}});
  // What a tenant puts in is never expanded again.
  item.tenant = "{item}";
  CHECK(item_arguments({"{tenant}"}, url, item) == std::vector<std::string>{"{item}"});
}

TEST_CASE(
    "exec plan: exit 0 is delivered, any other end dead-lettered, running at a stop "
    "unfinished") {
  struct Row {
    ProcessEnd end;
    ExecOutcome outcome;
    const char* label;
  };
  for (const Row& row : {
           Row{{true, 0, 0, false}, ExecOutcome::kDelivered, "0"},
           Row{{true, 1, 0, false}, ExecOutcome::kDeadLettered, "1"},
           Row{{true, 127, 0, false}, ExecOutcome::kDeadLettered, "127"},
           Row{{false, 0, SIGSEGV, false}, ExecOutcome::kDeadLettered, "SIGSEGV"},
           // However it ended once stopped: killed, or exiting 0 on the SIGTERM.
           Row{{false, 0, SIGTERM, true}, ExecOutcome::kUnfinished, "SIGTERM"},
           Row{{false, 0, SIGKILL, true}, ExecOutcome::kUnfinished, "SIGKILL"},
           Row{{true, 0, 0, true}, ExecOutcome::kUnfinished, "0"},
       }) {
    CAPTURE(row.label);
    CHECK(outcome_of(row.end) == row.outcome);
    CHECK(end_label(row.end) == row.label);
  }
  CHECK(to_string(ExecOutcome::kDelivered) == "delivered");
  CHECK(to_string(ExecOutcome::kDeadLettered) == "dead_lettered");
  CHECK(to_string(ExecOutcome::kUnfinished) == "unfinished");
}

TEST_CASE("exec plan: a fleet above the user's or the machine's task limit is one line") {
  ProcessLimits room;
  room.user_limit = 1000;
  room.user_tasks = 100;
  room.system_limit = 32768;
  room.system_tasks = 500;
  CHECK_FALSE(process_limit_error(899, 899, room));  // 899 + the holder fit exactly
  const auto user = process_limit_error(900, 900, room);
  REQUIRE(user);
  CHECK(user->find("--clients: 900 clients in 900 processes need 901") == 0);
  CHECK(user->find("ulimit -u allows this user 1000 and it runs 100") != std::string::npos);
  CHECK(user->find("--per-process") != std::string::npos);
  CHECK(user->find('\n') == std::string::npos);
  CHECK_FALSE(process_limit_error(9000, 9, room));  // more clients per process fit

  room.user_limit.reset();  // unlimited: only the machine bounds it
  CHECK_FALSE(process_limit_error(30000, 30000, room));
  const auto machine = process_limit_error(40000, 40000, room);
  REQUIRE(machine);
  CHECK(machine->find("the machine holds 32768 tasks") != std::string::npos);
}

TEST_CASE("exec plan: a bounded log keeps its first bytes and counts the rest") {
  BoundedLog log(10);
  CHECK(log.keep(4) == 4);
  CHECK(log.truncation_note().empty());
  CHECK(log.keep(4) == 4);
  CHECK(log.keep(5) == 2);  // the cap falls inside this read
  CHECK(log.keep(1000) == 0);
  CHECK(log.kept() == 10);
  CHECK(log.dropped() == 1003);
  const auto note = log.truncation_note();
  CHECK(note.find("cut at 10 bytes") != std::string::npos);
  CHECK(note.find("1003 more bytes dropped") != std::string::npos);
  CHECK(note.back() == '\n');
}
