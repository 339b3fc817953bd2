#include <doctest/doctest.h>

#include "nearest_name.hpp"

using namespace stampede;

TEST_CASE("edit distance counts insertions, deletions, substitutions and adjacent swaps") {
  struct Row {
    const char* a;
    const char* b;
    std::size_t edits;
  };
  for (const Row& r :
       {Row{"", "", 0}, Row{"", "abc", 3}, Row{"abc", "", 3}, Row{"simulate", "simulate", 0},
        Row{"simulat", "simulate", 1}, Row{"simulatee", "simulate", 1},
        Row{"simulare", "simulate", 1}, Row{"clinets", "clients", 1}, Row{"kitten", "sitting", 3},
        Row{"ab", "ba", 1}, Row{"p99", "p50", 2}}) {
    CAPTURE(r.a);
    CAPTURE(r.b);
    CHECK(edit_distance(r.a, r.b) == r.edits);
    CHECK(edit_distance(r.b, r.a) == r.edits);
  }
}

TEST_CASE("nearest name suggests a slip and nothing for a name that is far from all") {
  const std::vector<std::string> commands{"simulate", "run",  "exec",  "report",
                                          "merge",    "gate", "advise"};
  struct Row {
    const char* given;
    const char* expected;  // nullptr: no suggestion
  };
  for (const Row& r : {Row{"simulat", "simulate"}, Row{"smiulate", "simulate"}, Row{"rnu", "run"},
                       Row{"reprot", "report"}, Row{"sim", "simulate"}, Row{"adv", "advise"},
                       Row{"execute", nullptr}, Row{"deploy", nullptr}, Row{"", nullptr},
                       Row{"x", nullptr}, Row{"r", nullptr}}) {
    CAPTURE(r.given);
    const auto got = nearest_name(r.given, commands);
    if (r.expected == nullptr) {
      CHECK_FALSE(got);
    } else {
      REQUIRE(got);
      CHECK(*got == r.expected);
    }
  }
}

TEST_CASE("nearest name takes the first of equally near candidates") {
  CHECK(nearest_name("p90_s", {"p99_s", "p95_s", "p50_s"}) == std::optional<std::string>("p99_s"));
}

TEST_CASE("did you mean says the name only when one is near") {
  CHECK(did_you_mean("fleet.clinets", {"fleet.clients", "fleet.items"}) ==
        "; did you mean 'fleet.clients'?");
  CHECK(did_you_mean("zzz", {"fleet.clients"}).empty());
}

TEST_CASE("unknown flag names the first flag no command knows, and the nearest one") {
  const std::vector<std::string> known{"--clients", "--base", "--cap", "-q", "--quiet"};
  struct Row {
    std::vector<std::string> args;
    const char* says;  // nullptr: every flag known
  };
  for (const Row& r : {
           Row{{"--clinets", "3"}, "unknown flag '--clinets'; did you mean '--clients'?"},
           Row{{"--clients=3", "--bse=2s"}, "unknown flag '--bse'; did you mean '--base'?"},
           Row{{"--clients", "3", "--zzzzzz"}, "unknown flag '--zzzzzz'"},
           Row{{"-x"}, "unknown flag '-x'"},
           Row{{"--base", "-1s", "--cap", "-5", "-q"}, nullptr},
           Row{{"--", "--clinets"}, nullptr},
           Row{{"plain", "words"}, nullptr},
       }) {
    const auto got = unknown_flag(r.args, known);
    CAPTURE(r.args.front());
    if (r.says == nullptr) {
      CHECK_FALSE(got);
    } else {
      REQUIRE(got);
      CHECK(*got == r.says);
    }
  }
}

TEST_CASE("unknown flag: another tool's word, and a flag a prefix made longer") {
  const std::vector<std::string> known{"--listen",       "--admin-listen",         "--admin-token",
                                       "--retry-after",  "--provider-retry-after", "--seed",
                                       "--provider-seed"};
  const std::vector<std::string> fleet{"--clients", "--provider-retry-after"};
  struct Row {
    std::vector<std::string> known;
    std::string given;
    std::string says;
  };
  for (const Row& r : {
           Row{known, "--port", "unknown flag '--port'; did you mean '--listen'?"},
           Row{known, "--bind", "unknown flag '--bind'; did you mean '--listen'?"},
           // A few slips from --admin-token too: the other tool's word is the sure one.
           Row{known, "--admin-port",
               "unknown flag '--admin-port'; did you mean '--admin-listen'?"},
           Row{fleet, "--retry-after",
               "unknown flag '--retry-after'; did you mean '--provider-retry-after'?"},
           // The end of two flags names neither.
           Row{{"--read-timeout", "--connect-timeout"}, "--timeout", "unknown flag '--timeout'"},
           // Another tool's word for a flag this command does not have: nothing to suggest.
           Row{fleet, "--port", "unknown flag '--port'"},
       }) {
    CAPTURE(r.given);
    const auto got = unknown_flag({r.given, "1"}, r.known);
    REQUIRE(got);
    CHECK(*got == r.says);
  }
}
