#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checked.hpp"
#include "listen_address.hpp"
#include "model/send_attribution.hpp"
#include "model/shared_quota.hpp"
#include "scenario.hpp"
#include "scenario_flags.hpp"
#include "server/data_plane.hpp"
#include "upstream/upstream_flags.hpp"

namespace stampede {

// fakeprovider's flags as given (main.cpp declares them; the defaults are what --help shows).
struct ProviderArgs {
  std::string scenario;
  FlagValues values;  // field -> flag values
  std::string listen = "127.0.0.1:8080";
  std::string admin_listen = "127.0.0.1:8081";
  std::string time_scale = "1";
  std::string bin = "1s";
  std::string arrivals_out;
  std::string stats_out;
  std::string results_out;
  std::string admin_token;
  unsigned max_connections = 16000;
  unsigned threads = 2;
  unsigned processes = 1;
  std::string arrival_stamp = "kernel";
  std::string http_server = "auto";
  std::string idle_timeout = "600s";
  std::string header_timeout = "10s";
  std::string store;
  std::string attempt_header;
  std::string item_header = "X-Request-Id,amz-sdk-invocation-id,Idempotency-Key";
  std::string client_header = "X-Client-Id";
  std::string max_items = "1000000";
  std::string hint_tolerance = "100ms";
  UpstreamFlags upstream;  // its url is the scenario's provider.upstream (--upstream)
};

// --store: the Redis the quota layers live in, and the limits its script enforces.
struct StoreSettings {
  RedisTarget target;
  ScriptLimits limits;
};

// The provider to serve, from flags that were all checked.
struct ProviderRun {
  Scenario scenario;
  double time_scale = 1;
  std::int64_t bin_ns = 0;
  // Its max_connections as asked: the open-file limit may lower it when the server starts.
  DataPlaneConfig data_plane;
  ListenAddress admin_listen;
  std::string admin_token;
  unsigned processes = 1;
  SendRules send_rules;
  std::optional<StoreSettings> store;
  // How long requests in flight may take to finish at a stop (wall time).
  std::int64_t stop_wait_ns = 0;
  std::string arrivals_out, stats_out, results_out;
};

// The provider to serve, or every usage error in the flags, each one line naming its flag and
// how to fix it. Reads the scenario file and looks at the output paths; binds, connects and
// starts nothing, so a mistake costs no port and no Redis round trip.
Checked<ProviderRun> check_provider_run(const ProviderArgs& args);

}  // namespace stampede
