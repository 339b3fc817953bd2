// The results' exec section as a type: written and read back as it was, a malformed one
// refused.
#include <doctest/doctest.h>

#include <string>

#include "exec_section.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

ExecSection released_fleet() {
  ExecSection e;
  e.command = {"curl", "-s", "{url}"};
  e.url = "http://127.0.0.1:8080/v1/messages";
  e.clients = 24;
  e.processes = 24;
  e.wait_ready = true;
  e.max_duration_s = 60;
  e.timeout_s = 5;
  e.grace_s = 2;
  e.logs = "logs";
  e.log_limit_bytes = 65536;
  e.stopped = "none";
  e.released = true;
  e.spawn_s = 0.125;
  e.ready_wait_s = 0.5;
  e.wall_s = 3.25;
  e.process_ends = {{"0", 23}, {"SIGKILL", 1}};
  e.output_bytes = 1024;
  e.first_arrivals = FirstArrivals{10, 7, 24, 1.5, 30.25, std::nullopt};
  return e;
}

}  // namespace

TEST_CASE("exec section: a released fleet's and a stopped one's are read back as written") {
  ExecSection stopped;
  stopped.command = {"./worker"};
  stopped.stopped = "max_duration";
  ExecSection unwatched = released_fleet();
  unwatched.first_arrivals->first_by_ms.reset();
  unwatched.first_arrivals->all_by_ms.reset();
  unwatched.first_arrivals->error = "connection refused";
  for (const auto& e : {released_fleet(), stopped, unwatched}) {
    const json written = to_json(e);
    CAPTURE(written.dump());
    const auto read = exec_section_from_json(written);
    REQUIRE(read);
    CHECK(to_json(*read) == written);
  }
  const json s = to_json(stopped);
  CHECK(s["timeout_s"].is_null());
  CHECK(s["logs"].is_null());
  CHECK_FALSE(s.contains("first_arrivals"));
  CHECK(s["time_scale"] == 1);
}

TEST_CASE("exec section: a malformed one is refused, naming the field") {
  json e = to_json(released_fleet());
  e.erase("process_ends");
  const auto read = exec_section_from_json(e);
  REQUIRE_FALSE(read);
  CHECK(read.error().find("process_ends") != std::string::npos);
  json fractional = to_json(released_fleet());
  fractional["clients"] = 2.5;
  CHECK_FALSE(exec_section_from_json(fractional));
}
