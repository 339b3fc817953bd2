#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "parsed.hpp"

namespace stampede {

// The results' "exec" section (docs/RESULTS.md, "loadgen exec"): how `loadgen exec` ran the
// user's program as the fleet. One process writes it; nothing merges it.

// The spread of the fleet's first sends as the provider numbered them, polled from the
// release: exec.first_arrivals.
struct FirstArrivals {
  std::int64_t poll_ms = 0;
  std::int64_t polls = 0;
  std::int64_t first_sends = 0;
  std::optional<double> first_by_ms;  // none: the provider saw no first send
  std::optional<double> all_by_ms;    // none: not every client's first send was seen
  std::optional<std::string> error;   // why the watch stopped early
};

struct ExecSection {
  std::vector<std::string> command;  // CMD and its arguments, as given
  std::string url;                   // credentials removed
  std::int64_t clients = 0;
  std::int64_t per_process = 1;
  std::int64_t processes = 0;
  bool wait_ready = false;
  double max_duration_s = 0;
  std::optional<double> timeout_s;
  double grace_s = 0;
  std::optional<std::string> logs;  // --logs DIR
  std::int64_t log_limit_bytes = 0;
  std::string stopped;  // to_string(FleetStop)
  bool released = false;
  double spawn_s = 0;
  double ready_wait_s = 0;                           // 0 unless released
  double wall_s = 0;                                 // from the release; 0 unless released
  std::map<std::string, std::int64_t> process_ends;  // by how each ended: "0", "SIGKILL"
  std::int64_t exec_failures = 0;
  std::int64_t output_bytes = 0;
  std::int64_t logs_truncated = 0;
  std::optional<FirstArrivals> first_arrivals;  // released fleets only
};

nlohmann::json to_json(const FirstArrivals& f);
nlohmann::json to_json(const ExecSection& e);
// Refuses a section whose fields are missing or of the wrong type, naming the field.
Parsed<ExecSection> exec_section_from_json(const nlohmann::json& j);

}  // namespace stampede
