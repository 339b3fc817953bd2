#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "log_histogram.hpp"
#include "parsed.hpp"

namespace stampede {

// The results' "live" section (docs/RESULTS.md, "Live runs only"): how a fleet ran on the
// wall, written by `loadgen run`, added up over shards by `loadgen merge` and by the
// supervisor of `loadgen run --processes`. Each field says beside it how shards merge.

// One process of the fleet as getrusage saw it: live.processes[i].
struct ProcessUsage {
  std::string role;                   // "run" (a shard's own), "supervisor"
  std::optional<std::int64_t> shard;  // a run's shard index; none for the supervisor
  std::int64_t max_rss_kib = 0;
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
};

// How an https target was trusted: live.tls. Paths are null when not given.
struct TlsRecord {
  bool verify_peer = true;
  std::optional<std::string> ca_from;
  std::optional<std::string> ca_file;
  std::optional<std::string> ca_path;
  std::optional<std::string> client_cert;
};

struct LiveSection {
  // The command's own: the first shard's.
  std::string url;  // credentials removed
  std::string method;
  double time_scale = 1;
  bool latency_compensated = false;
  double max_duration_s = 0;
  std::string http_client;  // "native" or "libcurl"
  std::optional<TlsRecord> tls;
  std::optional<double> start_at;  // --start-at, Unix seconds
  // Added.
  std::int64_t loops = 0;
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
  std::int64_t first_sends = 0;
  std::int64_t first_send_connect_errors = 0;
  std::optional<double> cpu_wait_s;  // unknown when any shard's kernel kept none
  LogHistogram send_lateness_ns;
  std::map<std::string, std::int64_t> source_addresses;  // per address
  std::vector<ProcessUsage> processes;                   // side by side
  // The latest.
  double wall_s = 0;
  double end_s = 0;
  std::optional<double> start_late_s;  // with start_at
  // The first shard's that says one.
  std::string stopped;  // to_string(StopReason); "" when the run was not stopped
};

nlohmann::json to_json(const LiveSection& live);
// Refuses a section whose fields are missing or of the wrong type, naming the field.
Parsed<LiveSection> live_section_from_json(const nlohmann::json& j);
// The shards' sections as one fleet's, by each field's rule above. shards: at least one.
LiveSection merge_live_sections(const std::vector<LiveSection>& shards);

}  // namespace stampede
