#include "support/fake_provider.hpp"

#include <signal.h>

#include <cstdlib>
#include <stdexcept>

#include "scenario_flags.hpp"
#include "support/files.hpp"

namespace support {
namespace {

// Safety nets against a hung server, never a pass/fail threshold: a healthy start takes
// milliseconds where these allow seconds.
constexpr int kStartupTimeoutMs = 20'000;
constexpr int kExitTimeoutMs = 30'000;

std::vector<std::string> provider_command(std::vector<std::string> args,
                                          const ProviderOptions& options, const TempDir& dir) {
  std::vector<std::string> fixed{"--listen", "127.0.0.1:" + std::to_string(options.port),
                                 "--admin-listen", "127.0.0.1:0"};
  if (options.record) {
    fixed.insert(fixed.end(), {"--arrivals-out", dir.file("arrivals.csv"), "--stats-out",
                               dir.file("stats.json")});
  }
  args.insert(args.begin(), fixed.begin(), fixed.end());
  return args;
}

int port_of(const std::string& url) {
  const auto colon = url.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(url.c_str() + colon + 1);
}

}  // namespace

FakeProvider::FakeProvider(std::vector<std::string> args, ProviderOptions options)
    : process_(bin_path("fakeprovider"), provider_command(std::move(args), options, dir_), dir_,
               "fakeprovider") {
  // A child that exited before printing both lines will not print them: no point waiting.
  wait_until([&] { return read_ports() || !process_.running(); }, kStartupTimeoutMs);
}

// The two lines fakeprovider prints once it serves: "listening on URL", "admin on URL".
bool FakeProvider::read_ports() {
  const std::string text = process_.out();
  const auto admin_at = text.find("admin on ");
  const auto admin_end = text.find('\n', admin_at);
  const auto listen_at = text.find("listening on ");
  if (admin_at == std::string::npos || admin_end == std::string::npos ||
      listen_at == std::string::npos || listen_at > admin_at)
    return false;
  const std::string listen =
      text.substr(listen_at + 13, text.find('\n', listen_at) - listen_at - 13);
  admin_ = text.substr(admin_at + 9, admin_end - admin_at - 9);
  url_ = listen + "/v1/messages";
  data_port_ = port_of(listen);
  admin_port_ = port_of(admin_);
  first_lines_ = lines(text.substr(0, admin_end));
  return true;
}

nlohmann::json FakeProvider::stats(const Headers& headers) const {
  const auto r = http(admin_port_, "GET", "/admin/stats", headers);
  return r.status == 200 ? nlohmann::json::parse(r.body) : nlohmann::json();
}

bool FakeProvider::wait_state(char state) const {
  const std::string path = "/proc/" + std::to_string(process_.pid()) + "/stat";
  return wait_until(
      [&] {
        const auto stat = read_file(path);
        const auto paren = stat.rfind(')');
        return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == state;
      },
      kStartupTimeoutMs);
}

int FakeProvider::stop() {
  process_.signal(SIGTERM);
  return process_.wait(kExitTimeoutMs);
}

Exited run_provider_to_exit(const std::vector<std::string>& args) {
  return run_binary("fakeprovider", args, kExitTimeoutMs);
}

std::vector<std::string> provider_args(const Fields& fields) {
  std::vector<std::string> args;
  for (const auto& [field, value] : fields) {
    for (const auto& f : stampede::scenario_fields()) {
      if (f.name == field && (f.in & stampede::kFakeprovider) != 0) {
        args.push_back(stampede::loadgen_flag(f));
        args.push_back(value);
      }
    }
  }
  return args;
}

stampede::ProviderConfig provider_config(const Fields& fields) {
  std::vector<stampede::FieldOverride> overrides;
  nlohmann::json outages = nlohmann::json::array();
  for (const auto& [field, value] : fields) {
    if (field == "provider.outages") {
      outages.push_back(value);
    } else {
      overrides.push_back({field, value});
    }
  }
  if (!outages.empty()) overrides.push_back({"provider.outages", outages});
  const auto s = stampede::build_scenario("", overrides);
  if (!s) throw std::runtime_error(s.error());
  return s->provider;
}

}  // namespace support
