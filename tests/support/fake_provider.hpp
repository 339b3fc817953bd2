#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

// The real fakeprovider binary on loopback ports, as the target of the tests.
namespace support {

struct ProviderOptions {
  int port = 0;         // the data plane's port (to restart one where it was); 0: ephemeral
  bool record = false;  // --arrivals-out and --stats-out into its directory
};

// fakeprovider on 127.0.0.1 with an ephemeral admin port, ready once it has printed where it
// listens (its first two lines); SIGKILLed with the object if still running.
class FakeProvider {
 public:
  explicit FakeProvider(std::vector<std::string> args, ProviderOptions options = {});
  FakeProvider(const FakeProvider&) = delete;
  FakeProvider& operator=(const FakeProvider&) = delete;

  bool started() const { return data_port_ > 0 && admin_port_ > 0; }
  const std::string& url() const { return url_; }      // the data plane's /v1/messages
  const std::string& admin() const { return admin_; }  // the admin API's base URL
  int data_port() const { return data_port_; }
  int admin_port() const { return admin_port_; }
  // Its stdout up to the admin line.
  const std::vector<std::string>& first_lines() const { return first_lines_; }
  const TempDir& dir() const { return dir_; }
  std::string arrivals_path() const { return dir_.file("arrivals.csv"); }  // with record
  std::string stats_path() const { return dir_.file("stats.json"); }       // with record
  // GET /admin/stats, parsed; null when it does not answer 200.
  nlohmann::json stats(const Headers& headers = {}) const;

  Process& process() { return process_; }
  pid_t pid() const { return process_.pid(); }
  void signal(int sig) { process_.signal(sig); }
  // Waits until /proc shows the process in this state ('T': stopped); false on timeout.
  bool wait_state(char state) const;
  // SIGTERM and wait for the exit code (-1 if it had to be killed).
  int stop();
  std::string err() const { return process_.err(); }

 private:
  bool read_ports();

  TempDir dir_;
  Process process_;
  std::string url_, admin_;
  int data_port_ = 0, admin_port_ = 0;
  std::vector<std::string> first_lines_;
};

// A recording fakeprovider: ProviderOptions::record.
class RecordingProvider : public FakeProvider {
 public:
  explicit RecordingProvider(std::vector<std::string> args)
      : FakeProvider(std::move(args), {.port = 0, .record = true}) {}
};

// Runs fakeprovider with args to its exit, for the runs that must refuse to start.
Exited run_provider_to_exit(const std::vector<std::string>& args);

// Provider flags for fakeprovider from scenario fields, and the same fields as the config the
// test replays through the model: one list, so the two cannot drift.
using Fields = std::vector<std::pair<std::string, std::string>>;
std::vector<std::string> provider_args(const Fields& fields);
stampede::ProviderConfig provider_config(const Fields& fields);

}  // namespace support
