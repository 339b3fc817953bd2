// The results' live section as a type: what it writes, what it reads back, and how shards merge,
// field by field.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "live_section.hpp"

using namespace stampede;
using nlohmann::json;

namespace {

LiveSection shard(std::int64_t index, double wall_s, std::optional<double> cpu_wait_s,
                  std::string stopped = "") {
  LiveSection l;
  l.url = "https://staging.example/v1/messages";
  l.method = "POST";
  l.time_scale = 0.5;
  l.latency_compensated = true;
  l.max_duration_s = 60;
  l.http_client = "native";
  l.loops = 2;
  l.cpu_user_s = 0.25 * static_cast<double>(index + 1);
  l.cpu_sys_s = 0.5;
  l.cpu_wait_s = cpu_wait_s;
  l.first_sends = 100;
  l.first_send_connect_errors = index;
  l.send_lateness_ns.record(1'000 * (index + 1));
  l.source_addresses = {{"127.0.0.2", 10}, {"127.0.0.3", index}};
  l.processes = {{"run", index, 2048 * (index + 1), 0.25, 0.5}};
  l.wall_s = wall_s;
  l.end_s = wall_s / 2;
  l.stopped = std::move(stopped);
  return l;
}

}  // namespace

TEST_CASE("live section: what it writes it reads back, every field") {
  auto l = shard(1, 3.5, 0.75, "a signal");
  l.tls = TlsRecord{false, "--cacert", "ca.pem", std::nullopt, "client.pem"};
  l.start_at = 1'700'000'000.25;
  l.start_late_s = 0.002;
  const json written = to_json(l);
  const auto read = live_section_from_json(written);
  REQUIRE(read);
  CHECK(to_json(*read) == written);
  CHECK(written["tls"]["ca_path"].is_null());
  CHECK(written["processes"][0]["shard"] == 1);
  CHECK(written["send_lateness_p50_ms"].get<double>() > 0);
}

TEST_CASE("live section: optional fields are left out, or null, as a run without them writes") {
  auto l = shard(0, 1, std::nullopt);
  l.source_addresses.clear();
  l.processes.clear();
  const json j = to_json(l);
  CHECK(j["cpu_wait_s"].is_null());
  for (const char* absent : {"tls", "start_at", "start_late_s", "source_addresses", "processes"})
    CHECK_FALSE(j.contains(absent));
  const auto read = live_section_from_json(j);
  REQUIRE(read);
  CHECK_FALSE(read->cpu_wait_s);
  CHECK(read->processes.empty());
}

TEST_CASE("live section: a missing or mistyped field is refused, naming it") {
  const json good = to_json(shard(0, 1, 0.5));
  for (const char* field : {"url", "loops", "wall_s", "stopped", "send_lateness_ns"}) {
    CAPTURE(field);
    json missing = good;
    missing.erase(field);
    const auto read = live_section_from_json(missing);
    REQUIRE_FALSE(read);
    CHECK(read.error().find(field) != std::string::npos);
  }
  json wrong = good;
  wrong["loops"] = 2.5;  // a count is a whole number
  CHECK_FALSE(live_section_from_json(wrong));
}

TEST_CASE("live section: shards merge by each field's rule") {
  const auto merged = merge_live_sections(
      {shard(0, 2.0, 0.25), shard(1, 3.0, 0.5, "a signal"), shard(2, 2.5, 0.25, "--max-duration")});
  // The command's own: the first shard's.
  CHECK(merged.url == "https://staging.example/v1/messages");
  CHECK(merged.time_scale == 0.5);
  // Added.
  CHECK(merged.loops == 6);
  CHECK(merged.cpu_user_s == doctest::Approx(0.25 + 0.5 + 0.75));
  CHECK(merged.first_sends == 300);
  CHECK(merged.first_send_connect_errors == 0 + 1 + 2);
  REQUIRE(merged.cpu_wait_s);
  CHECK(*merged.cpu_wait_s == doctest::Approx(1.0));
  CHECK(merged.send_lateness_ns.count() == 3);
  CHECK(merged.source_addresses.at("127.0.0.2") == 30);
  CHECK(merged.source_addresses.at("127.0.0.3") == 3);
  REQUIRE(merged.processes.size() == 3);
  CHECK(merged.processes[2].shard == 2);
  // The latest.
  CHECK(merged.wall_s == 3.0);
  CHECK(merged.end_s == 1.5);
  // The first that says one.
  CHECK(merged.stopped == "a signal");
}

TEST_CASE("live section: one shard without a CPU-wait figure leaves the fleet's unknown") {
  const auto merged = merge_live_sections({shard(0, 1, 0.25), shard(1, 1, std::nullopt)});
  CHECK_FALSE(merged.cpu_wait_s);
  const auto one = merge_live_sections({shard(0, 1, 0.25)});
  CHECK(to_json(one) == to_json(shard(0, 1, 0.25)));
}
