#include <doctest/doctest.h>

#include <iostream>
#include <sstream>
#include <string>

#include "report_command.hpp"
#include "report_test_support.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace stampede;
using namespace report_test;
using namespace support;

namespace {

struct Outcome {
  int exit_code;
  std::string out;
  std::string err;
};

Outcome run_report(const ReportCommand& cmd) {
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  const int code = run_report_command(cmd);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {code, out.str(), err.str()};
}

ReportCommand command(std::vector<std::string> inputs, std::string out,
                      std::vector<std::string> labels = {}, bool quiet = false) {
  return {std::move(inputs), std::move(out), std::move(labels), quiet};
}

std::string fixture_path(const std::string& name) {
  return source_path("tests/report/golden/" + name);
}

}  // namespace

TEST_CASE("report writes one page from one or several results files") {
  TempDir dir;
  const auto one =
      run_report(command({fixture_path("storm_full_jitter.results.json")}, dir.file("one.html")));
  CHECK(one.exit_code == 0);
  CHECK(one.out == "report: " + dir.file("one.html") + "\n");
  CHECK(one.err.empty());
  const auto both = run_report(command({fixture_path("storm_exponential.results.json"),
                                        fixture_path("storm_full_jitter.results.json")},
                                       dir.file("both.html"), {"lockstep", "jittered"}, true));
  CHECK(both.exit_code == 0);
  CHECK(both.out.empty());
  const auto html = read_file(dir.file("both.html"));
  CHECK(html.find("lockstep vs jittered") != std::string::npos);
}

TEST_CASE("empty, malformed or missing results files are bad input: one line, exit 2") {
  TempDir dir;
  write_file(dir.file("empty.json"), "");
  write_file(dir.file("broken.json"), "{\"format\": 1, \"engine\": ");
  write_file(dir.file("other.json"), "{\"hello\": \"world\"}");
  write_file(dir.file("partial.json"), "{\"format\": 1, \"engine\": \"simulate\"}");
  struct Case {
    std::string file;
    std::string says;
  };
  const Case cases[] = {
      {"empty.json", "is empty"},
      {"broken.json", "is not valid JSON"},
      {"other.json", "not a stampede results document"},
      {"partial.json", "malformed results document"},
      {"missing.json", "cannot read results file"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    const auto r = run_report(command(
        {fixture_path("storm_full_jitter.results.json"), dir.file(c.file)}, dir.file("r.html")));
    CHECK(r.exit_code == 2);
    CHECK(r.err.starts_with("loadgen report: "));
    CHECK(r.err.find(dir.file(c.file)) != std::string::npos);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(dir.file("r.html")));
  }
}

TEST_CASE("no input, no output or labels that do not match the inputs: exit 2") {
  TempDir dir;
  const auto fj = fixture_path("storm_full_jitter.results.json");
  CHECK(run_report(command({}, dir.file("r.html"))).exit_code == 2);
  CHECK(run_report(command({fj}, "")).exit_code == 2);
  const auto r = run_report(command({fj, fj}, dir.file("r.html"), {"only one"}));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("1 labels for 2 results files") != std::string::npos);
}

TEST_CASE("a report into a missing folder is bad input, found before any input is read") {
  TempDir dir;
  const auto r = run_report(command({dir.file("not-read.json")}, dir.file("no/such/dir/r.html")));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "loadgen report: -o: '" + dir.file("no/such/dir/r.html") + "': folder '" +
                     dir.file("no/such/dir") + "' does not exist\n");
}

TEST_CASE("unlabelled runs are named by strategy, else file name, else path") {
  CHECK(input_labels({"a/x.json", "b/y.json"}, {"exponential", "full-jitter"}) ==
        std::vector<std::string>{"exponential", "full-jitter"});
  CHECK(input_labels({"a/x.json", "b/y.json"}, {"full-jitter", "full-jitter"}) ==
        std::vector<std::string>{"x", "y"});
  CHECK(input_labels({"a/x.json", "b/x.json"}, {"full-jitter", "full-jitter"}) ==
        std::vector<std::string>{"a/x.json", "b/x.json"});
  CHECK(input_labels({"a/x.json"}, {"none"}) == std::vector<std::string>{"none"});
}
