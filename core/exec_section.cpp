#include "exec_section.hpp"

#include <stdexcept>

#include "json_int.hpp"
#include "json_optional.hpp"

namespace stampede {
namespace {

using nlohmann::json;

FirstArrivals first_arrivals_from(const json& j) {
  FirstArrivals f{json_int64(j.at("poll_ms")),
                  json_int64(j.at("polls")),
                  json_int64(j.at("first_sends")),
                  optional_field<double>(j, "first_by_ms"),
                  optional_field<double>(j, "all_by_ms"),
                  std::nullopt};
  if (j.contains("error")) f.error = j.at("error").get<std::string>();
  return f;
}

// How the fleet was asked to run: the command line's.
void read_asked(const json& j, ExecSection& e) {
  e.command = j.at("command").get<std::vector<std::string>>();
  e.url = j.at("url").get<std::string>();
  e.clients = json_int64(j.at("clients"));
  e.per_process = json_int64(j.at("per_process"));
  e.wait_ready = j.at("wait_ready").get<bool>();
  e.max_duration_s = j.at("max_duration_s").get<double>();
  e.timeout_s = optional_field<double>(j, "timeout_s");
  e.grace_s = j.at("grace_s").get<double>();
  e.logs = optional_field<std::string>(j, "logs");
  e.log_limit_bytes = json_int64(j.at("log_limit_bytes"));
}

// How it went.
void read_ran(const json& j, ExecSection& e) {
  e.processes = json_int64(j.at("processes"));
  e.stopped = j.at("stopped").get<std::string>();
  e.released = j.at("released").get<bool>();
  e.spawn_s = j.at("spawn_s").get<double>();
  e.ready_wait_s = j.at("ready_wait_s").get<double>();
  e.wall_s = j.at("wall_s").get<double>();
  for (const auto& [end, n] : j.at("process_ends").items()) e.process_ends[end] = json_int64(n);
  e.exec_failures = json_int64(j.at("exec_failures"));
  e.output_bytes = json_int64(j.at("output_bytes"));
  e.logs_truncated = json_int64(j.at("logs_truncated"));
  if (j.contains("first_arrivals")) e.first_arrivals = first_arrivals_from(j.at("first_arrivals"));
}

}  // namespace

json to_json(const FirstArrivals& f) {
  json j{{"poll_ms", f.poll_ms},
         {"polls", f.polls},
         {"first_sends", f.first_sends},
         {"first_by_ms", or_null(f.first_by_ms)},
         {"all_by_ms", or_null(f.all_by_ms)}};
  if (f.error) j["error"] = *f.error;
  return j;
}

json to_json(const ExecSection& e) {
  json j{{"command", e.command},
         {"url", e.url},
         {"clients", e.clients},
         {"per_process", e.per_process},
         {"processes", e.processes},
         {"wait_ready", e.wait_ready},
         {"time_scale", 1},  // the programs run on the wall clock
         {"max_duration_s", e.max_duration_s},
         {"timeout_s", or_null(e.timeout_s)},
         {"grace_s", e.grace_s},
         {"logs", or_null(e.logs)},
         {"log_limit_bytes", e.log_limit_bytes},
         {"stopped", e.stopped},
         {"released", e.released},
         {"spawn_s", e.spawn_s},
         {"ready_wait_s", e.ready_wait_s},
         {"wall_s", e.wall_s},
         {"process_ends", e.process_ends},
         {"exec_failures", e.exec_failures},
         {"output_bytes", e.output_bytes},
         {"logs_truncated", e.logs_truncated}};
  if (e.first_arrivals) j["first_arrivals"] = to_json(*e.first_arrivals);
  return j;
}

Parsed<ExecSection> exec_section_from_json(const json& j) {
  try {
    ExecSection e;
    read_asked(j, e);
    read_ran(j, e);
    return Parsed<ExecSection>::ok(std::move(e));
  } catch (const std::exception& ex) {
    return Parsed<ExecSection>::fail(std::string("exec: ") + ex.what());
  }
}

}  // namespace stampede
