// deploy/k8s/ checked without a cluster: every manifest parsed, the fields each kind needs,
// the Indexed Job's shard count in agreement, and every flag one the binaries accept (their
// --help, from this build). tests/shards/check_k8s.py does the checking.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

using namespace support;

namespace {

const std::string kBin = bin_dir();
const std::string kSource = source_dir();

// The binaries' --help, as check_k8s.py reads them.
void write_helps(const TempDir& dir) {
  for (const auto& [name, command] :
       {std::pair<std::string, std::string>{"loadgen-run", "loadgen run"},
        {"loadgen-merge", "loadgen merge"},
        {"loadgen-report", "loadgen report"},
        {"fakeprovider", "fakeprovider"}}) {
    const std::string cmd = kBin + "/" + command + " --help > '" + dir.file(name + ".txt") + "'";
    REQUIRE(std::system(cmd.c_str()) == 0);
  }
}

struct Check {
  int code = -1;
  std::string output;
};

Check check(const std::string& manifests, const TempDir& helps) {
  const std::string out = helps.file("check.out");
  const std::string cmd = "timeout 60 python3 '" + kSource + "/tests/shards/check_k8s.py' '" +
                          manifests + "' '" + helps.file("") + "' > '" + out + "' 2>&1";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out)};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("the Kubernetes manifests pass the schema check" * doctest::test_suite("long")) {
  if (!require_tool(have_python_yaml(), "python3-yaml", "apt-get install python3-yaml")) return;
  TempDir dir;
  write_helps(dir);
  const auto c = check(kSource + "/deploy/k8s", dir);
  INFO(c.output);
  CHECK(c.code == 0);
  CHECK(c.output.find("documents ok") != std::string::npos);
}

TEST_CASE("the schema check catches a broken manifest" * doctest::test_suite("long")) {
  if (!require_tool(have_python_yaml(), "python3-yaml", "apt-get install python3-yaml")) return;
  TempDir dir;
  write_helps(dir);
  const std::string job = read_file(kSource + "/deploy/k8s/loadgen-job.yaml");
  const std::pair<std::string, std::string> breaks[] = {
      {"parallelism: 10", "parallelism: 5"},
      {"value: \"10\"", "value: \"8\""},
      {"- --no-report", "- --no-such-flag"},
      {"completionMode: Indexed", "completionMode: NonIndexed"},
      {"claimName: stampede-results", "claimName: elsewhere"},
  };
  for (const auto& [from, to] : breaks) {
    const std::string manifests = dir.file("broken");
    std::filesystem::remove_all(manifests);
    std::filesystem::create_directories(manifests);
    for (const auto& f : std::filesystem::directory_iterator(kSource + "/deploy/k8s")) {
      if (f.path().extension() == ".yaml")
        std::filesystem::copy_file(f.path(), manifests + "/" + f.path().filename().string());
    }
    write_file(manifests + "/loadgen-job.yaml", replaced(job, from, to));
    const auto c = check(manifests, dir);
    INFO(to << ": " << c.output);
    CHECK(c.code == 1);
  }
}
