// --help of every loadgen command and of fakeprovider, read as a user reads it: each flag
// that takes a value says what type of value (--clients INT=100) and, where it has one, its
// default; a flag added without them fails here.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "scenario_fields.hpp"
#include "scenario_flags.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

// One option as --help lists it: the part before the description, its group and its text.
struct HelpOption {
  std::string spec;  // "--clients INT=100", "-q,--quiet", "results FILE ... REQUIRED"
  std::string group;
  std::string description;
  std::string name() const { return spec.substr(0, spec.find(' ')); }
  std::string type() const {
    const auto space = spec.find(' ');
    if (space == std::string::npos) return "";
    const auto end = spec.find_first_of(" =", space + 1);
    return spec.substr(space + 1, end == std::string::npos ? end : end - space - 1);
  }
};

constexpr std::size_t kDescriptionColumn = 30;  // CLI11's default column width

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  const auto b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The option lines of a --help text: in a section headed "Options:", "Positionals:" or a
// group's name, not the subcommand list or the examples. A spec too long for its column is on
// a line of its own, its description on the next ones.
std::vector<HelpOption> help_options(const std::string& text) {
  std::vector<std::string> all;
  for (std::size_t from = 0; from < text.size();) {
    const auto nl = text.find('\n', from);
    all.push_back(text.substr(from, nl == std::string::npos ? nl : nl - from));
    from = nl == std::string::npos ? text.size() : nl + 1;
  }
  const std::string continuation(kDescriptionColumn, ' ');
  std::vector<HelpOption> out;
  std::string group;
  bool listing = false;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& line = all[i];
    if (line.empty()) continue;
    if (line[0] != ' ') {
      const bool header = line.back() == ':';
      group = header ? line.substr(0, line.size() - 1) : "";
      listing = header && group != "Subcommands" && group != "Example" && group != "Examples";
      continue;
    }
    if (!listing || line.rfind(continuation, 0) == 0) {
      if (!out.empty() && line.rfind(continuation, 0) == 0) out.back().description += line;
      continue;
    }
    const bool wrapped = i + 1 < all.size() && all[i + 1].rfind(continuation, 0) == 0 &&
                         line.size() > kDescriptionColumn;
    const auto spec = wrapped ? line : line.substr(0, kDescriptionColumn);
    const auto description = wrapped ? "" : line.substr(std::min(line.size(), kDescriptionColumn));
    out.push_back({trim(spec), group, description});
  }
  return out;
}

// The flags that take no value: they have no type to show.
bool is_switch(const std::string& name) {
  static const std::vector<std::string> kSwitches{"-h,--help",
                                                  "--version",
                                                  "--no-report",
                                                  "-q,--quiet",
                                                  "--expect-none",
                                                  "--allow-time-scale",
                                                  "-k,--insecure",
                                                  "--no-trace-headers",
                                                  "--stream",
                                                  "--json",
                                                  "--check",
                                                  "--partial",
                                                  "--wait-ready",
                                                  "--no-latency-compensation",
                                                  "--upstream-insecure",
                                                  "--upstream-strip-headers"};
  return std::find(kSwitches.begin(), kSwitches.end(), name) != kSwitches.end();
}

// "(default 7d)", "(default 1)": a plain value the help text names as the default.
std::string stated_default(const std::string& description) {
  for (const std::string marker : {"(default ", "; default "}) {
    const auto at = description.find(marker);
    if (at == std::string::npos) continue;
    const auto from = at + marker.size();
    const auto end = description.find_first_of(";), ", from);
    const auto value = description.substr(from, end == std::string::npos ? end : end - from);
    if (!value.empty() && value[0] >= '0' && value[0] <= '9') return value;
  }
  return "";
}

struct HelpPage {
  std::string binary;
  std::vector<std::string> args;
};

std::vector<HelpPage> every_help_page() {
  std::vector<HelpPage> pages{{"loadgen", {"--help"}}, {"fakeprovider", {"--help"}}};
  for (const char* cmd : {"simulate", "run", "exec", "report", "merge", "gate", "advise"})
    pages.push_back({"loadgen", {cmd, "--help"}});
  return pages;
}

std::vector<HelpOption> help_of(const HelpPage& page) {
  const auto r = run_binary(page.binary, page.args);
  REQUIRE(r.code == 0);
  return help_options(r.out);
}

HelpOption option_in(const std::vector<HelpOption>& options, const std::string& name) {
  for (const auto& o : options) {
    if (o.name() == name) return o;
  }
  FAIL("no " << name << " in the help");
  return {};
}

}  // namespace

TEST_CASE("help: every flag that takes a value shows its type, and the default its text names") {
  for (const auto& page : every_help_page()) {
    CAPTURE(page.binary);
    CAPTURE(page.args.front());
    const auto options = help_of(page);
    CHECK(options.size() >= 2);
    for (const auto& o : options) {
      CAPTURE(o.spec);
      if (is_switch(o.name())) {
        CHECK(o.type().empty());
        continue;
      }
      const auto type = o.type();
      CHECK_FALSE(type.empty());
      // CLI11's own word for a string says nothing: a flag must name what it takes.
      CHECK(type != "TEXT");
      CHECK(type.rfind("TEXT:", 0) == std::string::npos);
      CHECK(type != "REQUIRED");
      CHECK(type != "Excludes:");
      CHECK(type != "(Env:");
      if (const auto d = stated_default(o.description); !d.empty())
        CHECK(o.spec.find("=" + d) != std::string::npos);
    }
  }
}

TEST_CASE("help: the scenario flags show the scenario's defaults") {
  struct Row {
    std::string command, flag, spec;
  };
  for (const Row& r :
       {Row{"simulate", "--clients", "--clients INT=100"},
        Row{"run", "--clients", "--clients INT=100"}, Row{"run", "--base", "--base DURATION=1s"},
        Row{"run", "--strategy", "--strategy STRATEGY=full-jitter"},
        Row{"run", "--max-duration", "--max-duration DURATION=1h"},
        Row{"simulate", "--horizon", "--horizon DURATION=7d"},
        Row{"advise", "--cap", "--cap DURATION=60s"},
        Row{"exec", "--grace", "--grace DURATION=2s"}}) {
    CAPTURE(r.command);
    CHECK(option_in(help_of({"loadgen", {r.command, "--help"}}), r.flag).spec == r.spec);
  }
  const auto provider = help_of({"fakeprovider", {"--help"}});
  CHECK(option_in(provider, "--limiter").spec == "--limiter LIMITER=per-second");
  CHECK(option_in(provider, "--bin").spec == "--bin DURATION=1s");
}

TEST_CASE("help: run lists --allowance with the target, as what its live peak is measured by") {
  const auto options = help_of({"loadgen", {"run", "--help"}});
  const auto allowance = option_in(options, "--allowance");
  CHECK(allowance.group == "Start here");
  CHECK(allowance.group == option_in(options, "--url").group);
  CHECK(allowance.description.find("peak_ratio") != std::string::npos);
}

TEST_CASE("help: run says --api-key falls back to STAMPEDE_API_KEY") {
  const auto key = option_in(help_of({"loadgen", {"run", "--help"}}), "--api-key");
  CHECK(key.description.find("$STAMPEDE_API_KEY") != std::string::npos);
}

// The flags are made from the field table: an entry added there is in these pages as it says,
// and spelled the same in both binaries.
TEST_CASE(
    "help: every scenario field's flag is in its binaries' --help with its type and default") {
  struct Page {
    HelpPage page;
    unsigned binary;
    bool fleet;  // loadgen exec takes the provider's fields only
  };
  for (const auto& p : {Page{{"loadgen", {"simulate", "--help"}}, stampede::kLoadgen, true},
                        Page{{"loadgen", {"run", "--help"}}, stampede::kLoadgen, true},
                        Page{{"loadgen", {"exec", "--help"}}, stampede::kLoadgen, false},
                        Page{{"fakeprovider", {"--help"}}, stampede::kFakeprovider, false}}) {
    CAPTURE(p.page.args.front());
    const auto options = help_of(p.page);
    for (const auto& f : stampede::scenario_fields()) {
      if ((f.in & p.binary) == 0 || (f.section() == "fleet" && !p.fleet)) continue;
      CAPTURE(f.name);
      const auto flag = stampede::loadgen_flag(f);
      const auto o = option_in(options, flag);
      std::string spec = flag + " " + std::string(f.type);
      if (!f.default_text.empty()) spec += "=" + std::string(f.default_text);
      CHECK(o.spec.rfind(spec, 0) == 0);
      CHECK(o.description.find(std::string(f.help.substr(0, 20))) != std::string::npos);
      if (p.binary == stampede::kFakeprovider && o.group != "Start here")
        CHECK(o.group == (f.dialect ? "Dialect" : "Provider"));
    }
  }
}
