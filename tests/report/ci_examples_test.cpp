#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "assertion.hpp"
#include "report_test_support.hpp"
#include "scenario.hpp"
#include "scenario_clock.hpp"
#include "scenario_flags.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

using namespace stampede;
using namespace report_test;
using namespace support;

namespace {

const std::vector<std::string> kCiFiles{"examples/ci/github-actions.yml",
                                        "examples/ci/gitlab-ci.yml"};

// `loadgen run`'s own flags (the scenario's come from scenario_flags.hpp); the ones that take
// no value are the switches.
const std::set<std::string> kRunOwnFlags{
    "--url",   "--out",         "--assert",         "--junit",      "--report", "--no-report",
    "--quiet", "--dead-letter", "--provider-admin", "--time-scale", "--api-key"};
const std::set<std::string> kSwitches{"--quiet", "-q", "--no-report"};

// Every scenario flag loadgen takes and the field it sets: a provider flag whose name a fleet
// flag already has is spelled with a "provider-" prefix, as loadgen's main.cpp registers it.
std::map<std::string, std::string> scenario_flag_fields() {
  std::map<std::string, std::string> fields;
  for (const auto& f : scenario_fields()) {
    if ((f.in & kLoadgen) != 0) fields[loadgen_flag(f)] = f.name;
  }
  return fields;
}

bool covered(const std::string& path, const nlohmann::json& artifact_paths) {
  for (const auto& a : artifact_paths) {
    const auto p = a.get<std::string>();
    if (path == p || (p.ends_with("/") && path.starts_with(p))) return true;
  }
  return false;
}

// The pipelines read their scenario from ci/ of the user's repository: a copy of examples/ci/.
std::string scenario_path(const std::string& in_pipeline) {
  REQUIRE_MESSAGE(in_pipeline.starts_with("ci/"), "a scenario outside the user's ci/ folder");
  return source_path("examples/" + in_pipeline);
}

nlohmann::json ci_commands() {
  std::string files;
  for (const auto& f : kCiFiles) files += " " + quote(source_path(f));
  const auto p =
      run("timeout 60 python3 " + quote(source_path("tests/report/check_ci_yaml.py")) + files);
  REQUIRE_MESSAGE(p.exit_code == 0, p.output);
  return nlohmann::json::parse(p.output);
}

// `loadgen --version`: the install step's check that the binary runs.
bool is_version_check(const nlohmann::json& c) {
  return c["argv"] == nlohmann::json::array({"--version"});
}

// One `loadgen run` command: real flags, values their parsers accept, the CI outputs asked for
// and kept as artifacts.
void check_loadgen_run(const nlohmann::json& c) {
  const auto argv = c["argv"].get<std::vector<std::string>>();
  REQUIRE(!argv.empty());
  CHECK(argv[0] == "run");
  const auto fields = scenario_flag_fields();
  std::map<std::string, std::vector<std::string>> values;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const auto& flag = argv[i];
    CAPTURE(flag);
    REQUIRE_MESSAGE(flag.starts_with("-"), "a word that is neither a flag nor its value");
    CHECK_MESSAGE((fields.count(flag) || kRunOwnFlags.count(flag) || flag == "--scenario"),
                  "not a flag of loadgen run");
    if (kSwitches.count(flag)) continue;
    REQUIRE_MESSAGE(i + 1 < argv.size(), "the flag's value is missing");
    values[flag].push_back(argv[++i]);
  }
  for (const char* required : {"--url", "--assert", "--junit", "--out", "--report"}) {
    CHECK_MESSAGE(values.count(required), "the CI command needs " << required);
  }
  REQUIRE(values.count("--scenario"));
  auto scenario = build_scenario(scenario_path(values["--scenario"][0]), {});
  REQUIRE_MESSAGE(scenario, scenario.error());
  Scenario s = *scenario;
  for (const auto& [flag, given] : values) {
    if (const auto it = fields.find(flag); it != fields.end()) {
      for (const auto& v : given) {
        CAPTURE(v);
        CHECK_FALSE(set_field(s, it->second, v));
      }
    }
  }
  CHECK(validate(s).empty());
  for (const auto& a : values["--assert"]) {
    auto parsed = parse_assertion(a);
    CHECK_MESSAGE(parsed, a << ": " << parsed.error());
  }
  for (const auto& t : values["--time-scale"]) CHECK(parse_time_scale(t));
  const auto url = values["--url"][0];
  CHECK((url.starts_with("http://127.0.0.1:") || url.starts_with("$")));
  CHECK(covered(values["--report"][0], c["artifacts"]));
  CHECK(covered(values["--junit"][0], c["artifacts"]));
  CHECK(covered(values["--junit"][0], c["junit"]));
}

}  // namespace

TEST_CASE("the CI examples parse and run loadgen with real flags and kept outputs" *
          doctest::test_suite("long")) {
  if (!require_tool(have_python_yaml(), "python3-yaml", "apt-get install python3-yaml")) return;
  const auto commands = ci_commands();
  std::set<std::string> files_with_run;
  for (const auto& c : commands) {
    CAPTURE(c["file"].get<std::string>());
    CAPTURE(c["job"].get<std::string>());
    if (is_version_check(c)) continue;
    if (c["program"] == "loadgen") {
      check_loadgen_run(c);
      files_with_run.insert(c["file"]);
    }
  }
  CHECK(files_with_run.size() == kCiFiles.size());
}

TEST_CASE("the CI examples' flags are in the binaries' own --help" * doctest::test_suite("long")) {
  if (!require_tool(have_python_yaml(), "python3-yaml", "apt-get install python3-yaml")) return;
  const auto provider_help = run("timeout 10 " + quote(bin_path("fakeprovider")) + " --help");
  REQUIRE_MESSAGE(provider_help.exit_code == 0, provider_help.output);
  const auto provider_flags = flags_in(provider_help.output);
  const auto run_help = run("timeout 10 " + quote(bin_path("loadgen")) + " run --help");
  const auto run_flags = flags_in(run_help.output);
  int fakeprovider_commands = 0;
  for (const auto& c : ci_commands()) {
    CAPTURE(c["file"].get<std::string>());
    if (is_version_check(c)) continue;
    const auto argv = c["argv"].get<std::vector<std::string>>();
    const bool provider = c["program"] == "fakeprovider";
    fakeprovider_commands += provider ? 1 : 0;
    if (!provider && run_help.exit_code != 0) {
      MESSAGE("loadgen has no run subcommand in this build; its flags were checked by name only");
      continue;
    }
    for (const auto& word : argv) {
      if (!word.starts_with("--")) continue;
      CAPTURE(word);
      CHECK((provider ? provider_flags : run_flags).count(word));
    }
    if (provider) {
      const auto scenario = std::find(argv.begin(), argv.end(), "--scenario");
      REQUIRE(scenario + 1 < argv.end());
      CHECK(build_scenario(scenario_path(*(scenario + 1)), {}));
    }
  }
  CHECK(fakeprovider_commands == 2);
}

TEST_CASE("the CI checker fails on YAML that is broken or the wrong shape" *
          doctest::test_suite("long")) {
  if (!require_tool(have_python_yaml(), "python3-yaml", "apt-get install python3-yaml")) return;
  TempDir dir;
  const auto checker = "timeout 60 python3 " + quote(source_path("tests/report/check_ci_yaml.py"));
  write_file(dir.file("broken.yml"), "jobs: [\n");
  auto p = run(checker + " " + quote(dir.file("broken.yml")));
  CHECK(p.exit_code == 1);
  CHECK(p.output.find("not valid YAML") != std::string::npos);
  write_file(dir.file("no-artifacts.yml"),
             "on: push\njobs:\n  j:\n    runs-on: x\n    steps:\n"
             "      - run: loadgen run --url http://127.0.0.1:1 --report r.html\n"
             "      - uses: actions/upload-artifact@v4\n        with:\n          path: r.html\n");
  p = run(checker + " " + quote(dir.file("no-artifacts.yml")));
  CHECK(p.exit_code == 1);
  CHECK(p.output.find("if: always()") != std::string::npos);
}

// A pipeline's own lines, without its comments (which may name stampede's make targets).
std::string without_comments(const std::string& yaml) {
  std::string kept;
  std::istringstream in(yaml);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] != '#') kept += line + "\n";
  }
  return kept;
}

TEST_CASE("the CI examples install stampede from its package or image and build nothing") {
  for (const auto& f : kCiFiles) {
    CAPTURE(f);
    const auto text = without_comments(read_file(source_path(f)));
    CHECK(text.find("make ") == std::string::npos);
    CHECK(text.find("build/bin/") == std::string::npos);
    const bool from_package =
        text.find("apt-get install -y -q /tmp/stampede.deb") != std::string::npos;
    const bool from_image = text.find("image: $STAMPEDE_IMAGE") != std::string::npos;
    CHECK((from_package || from_image));
  }
}
