// --help read as a newcomer reads it, from the top: the purpose, an example to run, the flags
// a first run needs, and the plumbing last; in words, never the parser's notation; and one name
// for one thing in both binaries, an old spelling still working and saying the new one.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

constexpr std::size_t kFirstScreen = 20;  // `--help | head -20`

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t from = 0; from < text.size();) {
    const auto nl = text.find('\n', from);
    lines.push_back(text.substr(from, nl == std::string::npos ? nl : nl - from));
    from = nl == std::string::npos ? text.size() : nl + 1;
  }
  return lines;
}

// The line that lists flag (an option's line starts with its names: "  -k,--insecure ..."),
// or lines.size().
std::size_t line_of_flag(const std::vector<std::string>& lines, const std::string& flag) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.rfind("  ", 0) != 0 || l.size() < 3 || l[2] == ' ') continue;
    const auto names = "," + l.substr(2, l.find(' ', 2) - 2) + ",";
    if (names.find("," + flag + ",") != std::string::npos) return i;
  }
  return lines.size();
}

std::size_t line_of(const std::vector<std::string>& lines, const std::string& exact) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == exact) return i;
  }
  return lines.size();
}

struct Page {
  std::string binary;
  std::vector<std::string> args;
  std::string purpose;                // on the first line
  std::vector<std::string> first;     // in this order, on the first screen, after the example
  std::vector<std::string> advanced;  // under "Advanced:", the last group
};

const std::vector<Page>& first_pages() {
  static const std::vector<Page> pages{
      {"loadgen",
       {"run", "--help"},
       "Run a fleet of retrying HTTP clients",
       {"--url", "--clients", "--strategy", "--allowance", "--outage", "--scenario",
        "--provider-admin"},
       {"--loops", "--processes", "--connections-per-source", "--http-client",
        "--no-latency-compensation", "--shard", "--start-at"}},
      {"loadgen",
       {"simulate", "--help"},
       "Simulate a fleet of retrying clients",
       {"--clients", "--strategy", "--allowance", "--outage", "--scenario", "--out"},
       {"--shard", "--trials"}},
      {"loadgen",
       {"exec", "--help"},
       "Run your own program as a fleet",
       {"CMD", "--provider-admin", "--url", "--clients", "--allowance", "--outage"},
       {"--per-process", "--wait-ready", "--log-limit", "--time-scale"}},
      {"fakeprovider",
       {"--help"},
       "A rate-limited HTTP provider",
       {"--allowance", "--outage", "--listen", "--admin-listen", "--scenario"},
       {"--arrival-stamp", "--http-server", "--store", "--threads", "--processes",
        "--max-connections", "--idle-timeout", "--header-timeout"}},
  };
  return pages;
}

// Every page a user can ask for; the supervisor's hidden worker is not one.
std::vector<std::vector<std::string>> every_page() {
  std::vector<std::vector<std::string>> pages{{"loadgen", "--help"}, {"fakeprovider", "--help"}};
  for (const char* cmd : {"simulate", "run", "exec", "report", "merge", "gate", "advise"})
    pages.push_back({"loadgen", cmd, "--help"});
  return pages;
}

}  // namespace

TEST_CASE("help order: the first screen says the purpose, an example, then the first flags") {
  for (const auto& p : first_pages()) {
    CAPTURE(p.binary);
    CAPTURE(p.args.front());
    const auto r = run_binary(p.binary, p.args);
    REQUIRE(r.code == 0);
    const auto lines = lines_of(r.out);
    REQUIRE(!lines.empty());
    CHECK(lines[0].find(p.purpose) != std::string::npos);
    auto at = line_of(lines, "Example:");
    CHECK(at < kFirstScreen);
    for (const auto& flag : p.first) {
      CAPTURE(flag);
      const auto next = line_of_flag(lines, flag);
      CHECK(next < kFirstScreen);
      CHECK(next > at);
      at = next;
    }
  }
}

TEST_CASE("help order: the plumbing is in the Advanced group, the last one") {
  for (const auto& p : first_pages()) {
    CAPTURE(p.binary);
    CAPTURE(p.args.front());
    const auto r = run_binary(p.binary, p.args);
    REQUIRE(r.code == 0);
    const auto lines = lines_of(r.out);
    const auto advanced = line_of(lines, "Advanced:");
    REQUIRE(advanced < lines.size());
    for (auto i = advanced + 1; i < lines.size(); ++i) {
      CAPTURE(lines[i]);
      CHECK_FALSE((!lines[i].empty() && lines[i][0] != ' ' && lines[i].back() == ':' &&
                   lines[i] != "Examples:" && lines[i] != "Example:"));
    }
    for (const auto& flag : p.advanced) {
      CAPTURE(flag);
      const auto at = line_of_flag(lines, flag);
      CHECK(at < lines.size());
      CHECK(at > advanced);
    }
  }
}

TEST_CASE("help order: no page shows the parser's notation") {
  for (const auto& args : every_page()) {
    CAPTURE(args[1]);
    const auto r = run_binary(args.front(), {args.begin() + 1, args.end()});
    REQUIRE(r.code == 0);
    for (const char* notation :
         {"INT:", "TEXT:", "TEXT ", "Excludes:", "Needs:", " in [", "REQUIRED", "(Env:"}) {
      CAPTURE(notation);
      CHECK(r.out.find(notation) == std::string::npos);
    }
  }
}

TEST_CASE("help order: what the notation said is said in words") {
  struct Row {
    std::vector<std::string> args;
    std::string flag, words;
  };
  for (const auto& row : {
           Row{{"run", "--help"}, "--url", "(required)"},
           Row{{"run", "--help"}, "--api-keys-file", "(not with --api-key)"},
           Row{{"run", "--help"}, "--processes", "1 to 1000000"},
           Row{{"run", "--help"}, "--provider-admin-token", "$FAKEPROVIDER_ADMIN_TOKEN"},
           Row{{"exec", "--help"}, "--clients", "1 to 10000000"},
           Row{{"simulate", "--help"}, "--trials", "1 to 1000000"},
       }) {
    CAPTURE(row.flag);
    const auto r = run_binary("loadgen", row.args);
    REQUIRE(r.code == 0);
    const auto lines = lines_of(r.out);
    const auto at = line_of_flag(lines, row.flag);
    REQUIRE(at < lines.size());
    // A long name's description starts on the next line.
    const auto text = lines[at] + (at + 1 < lines.size() ? lines[at + 1] : "");
    CHECK(text.find(row.words) != std::string::npos);
  }
}

TEST_CASE("help order: a provider flag has one name in both binaries; the old one still works") {
  struct Row {
    std::string old_name, name, bad_value, field;
  };
  for (const auto& row :
       {Row{"--retry-after", "--provider-retry-after", "maybe", "provider.retry_after"},
        Row{"--seed", "--provider-seed", "-1", "provider.seed"}}) {
    CAPTURE(row.old_name);
    const auto help = run_binary("fakeprovider", {"--help"});
    const auto lines = lines_of(help.out);
    CHECK(line_of_flag(lines, row.name) < lines.size());
    CHECK(line_of_flag(lines, row.old_name) == lines.size());
    CHECK(line_of_flag(lines_of(run_binary("loadgen", {"simulate", "--help"}).out), row.name) <
          lines.size());
    // A bad value shows where it went: the old name's value reaches the field the new one sets.
    const auto renamed = "fakeprovider: " + row.old_name + " is now " + row.name;
    const auto old = run_binary("fakeprovider", {row.old_name, row.bad_value});
    CHECK(old.code == 2);
    CHECK(old.err.find(renamed) != std::string::npos);
    CHECK(old.err.find(row.name + " (" + row.field + "): '" + row.bad_value + "'") !=
          std::string::npos);
    const auto now = run_binary("fakeprovider", {row.name, row.bad_value});
    CHECK(now.code == 2);
    CHECK(now.err.find(" is now ") == std::string::npos);
    CHECK(now.err.find(row.name + " (" + row.field + "): '" + row.bad_value + "'") !=
          std::string::npos);
  }
  // fakeprovider's network is simulate's --hop-delay on the wire: the same name in both.
  const auto hop = "--hop-delay";
  const auto provider = lines_of(run_binary("fakeprovider", {"--help"}).out);
  CHECK(line_of_flag(provider, hop) < provider.size());
  const auto simulate = lines_of(run_binary("loadgen", {"simulate", "--help"}).out);
  CHECK(line_of_flag(simulate, hop) < simulate.size());
}

TEST_CASE("help order: loadgen's --tokens is now --input-tokens; the old name still works") {
  for (const auto* command : {"run", "simulate"}) {
    CAPTURE(command);
    const auto lines = lines_of(run_binary("loadgen", {command, "--help"}).out);
    CHECK(line_of_flag(lines, "--input-tokens") < lines.size());
    CHECK(line_of_flag(lines, "--tokens") == lines.size());
  }
  const auto old = run_binary("loadgen", {"simulate", "--tokens", "-5"});
  CHECK(old.code == 2);
  CHECK(old.err.find("loadgen: --tokens is now --input-tokens") != std::string::npos);
  CHECK(old.err.find("--input-tokens (fleet.tokens): '-5'") != std::string::npos);
  // The old name's value reaches the field: a run with it charges as the new name's does.
  const TempDir dir;
  auto with = [&](const std::string& flag) {
    const auto out = dir.file(flag.substr(2) + ".json");
    const auto run =
        run_binary("loadgen", {"simulate", "--clients", "3", "--token-allowance", "250/h",
                               "--limiter", "fixed-window", flag, "100", "--max-attempts", "1",
                               "--out", out, "--no-report", "-q"});
    CHECK(run.code == 0);
    return nlohmann::json::parse(read_file(out));
  };
  const auto by_old = with("--tokens"), by_new = with("--input-tokens");
  CHECK(by_new["scenario"]["fleet"]["tokens"] == 100);
  // Two items of 100 tokens fit the 250: the third is refused and, with one attempt, lost.
  CHECK(by_new["counts"]["delivered"] == 2);
  CHECK(by_new["counts"]["dead_lettered"] == 1);
  CHECK(by_old["counts"] == by_new["counts"]);
  CHECK(by_old["histograms"] == by_new["histograms"]);
}
