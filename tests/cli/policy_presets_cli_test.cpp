#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using nlohmann::json;

namespace {

struct PresetRow {
  std::string name;
  bool bounded;  // gives up after a few attempts, so the 30 s outage dead-letters items
};

}  // namespace

TEST_CASE("simulate --policy runs every preset against the storm") {
  const TempDir dir;
  for (const PresetRow& row :
       {PresetRow{"aws-standard", true}, PresetRow{"aws-adaptive", true}, PresetRow{"grpc", true},
        PresetRow{"grpc-go", false}, PresetRow{"polly", true},
        PresetRow{"tenacity-exponential-jitter", false}, PresetRow{"resilience4j", true},
        PresetRow{"sre", true}}) {
    CAPTURE(row.name);
    const auto out = dir.file(row.name + ".json");
    const auto r = run_binary("loadgen", {"simulate", "--scenario", kStorm, "--policy", row.name,
                                          "--quiet", "--no-report", "--out", out});
    // The storm's expectations are for its own policy: pass or fail, but no usage error.
    CHECK((r.code == 0 || r.code == 1));
    CHECK(r.err.empty());
    const auto doc = json::parse(read_file(out));
    CHECK(doc.at("scenario").at("fleet").at("policy") == row.name);
    const auto& s = doc.at("summary");
    CHECK(s.at("delivered").get<long>() + s.at("dead_lettered").get<long>() == 1000);
    if (row.bounded) {
      // Four attempts at most (grpc's), all inside the outage for the first item of each.
      CHECK(s.at("dead_lettered").get<long>() > 0);
      CHECK(s.at("requests").get<long>() <= 4000);
    } else {
      CHECK(s.at("delivered") == 1000);
    }
  }
}

TEST_CASE("simulate --policy with a field after it: the field wins") {
  const TempDir dir;
  const auto out = dir.file("r.json");
  const auto r =
      run_binary("loadgen", {"simulate", "--scenario", kStorm, "--max-attempts", "0", "--policy",
                             "aws-standard", "--quiet", "--no-report", "--out", out});
  CHECK((r.code == 0 || r.code == 1));
  const auto doc = json::parse(read_file(out));
  CHECK(doc.at("scenario").at("fleet").at("max_attempts") == 0);
  CHECK(doc.at("scenario").at("fleet").at("cap") == "20s");
}

TEST_CASE("an unknown --policy exits 2 and lists the presets") {
  for (const char* command : {"simulate", "run"}) {
    CAPTURE(command);
    std::vector<std::string> args{command, "--scenario", kStorm, "--policy", "aws-legacy"};
    if (std::string(command) == "run") args.insert(args.end(), {"--url", "http://127.0.0.1:9/"});
    const auto r = run_binary("loadgen", args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err).size() == 1);
    CHECK(r.err.find("'aws-legacy' is not a policy preset") != std::string::npos);
    for (const char* name : {"aws-standard", "aws-adaptive", "grpc", "grpc-go", "polly",
                             "tenacity-exponential-jitter", "resilience4j", "sre"}) {
      CHECK(r.err.find(name) != std::string::npos);
    }
  }
}
