#include "support/loadgen_run.hpp"

#include <chrono>
#include <cstdlib>
#include <string_view>
#include <thread>

#include "support/files.hpp"

namespace support {

const EnvChanges kNoProxyForLoopback{{"no_proxy", "127.0.0.1,localhost"},
                                     {"NO_PROXY", "127.0.0.1,localhost"}};

namespace {

// The results document and the JSON-lines files, as far as loadgen wrote them.
void read_outputs(Run& r, const std::string& results, const std::string& dead) {
  const std::string text = read_file(results);
  if (!text.empty()) r.results = nlohmann::json::parse(text, nullptr, false);
  r.dead_letters = read_json_lines(dead);
}

Run finish(Process& p) {
  Run r;
  r.code = p.wait();
  r.out = p.out();
  r.err = p.err();
  return r;
}

}  // namespace

Run run_loadgen(const std::vector<std::string>& args, const EnvChanges& env) {
  TempDir dir;
  std::vector<std::string> all{"run",
                               "--quiet",
                               "--out",
                               dir.file("results.json"),
                               "--dead-letter",
                               dir.file("dead.jsonl"),
                               "--attempts-out",
                               dir.file("attempts.jsonl")};
  all.insert(all.end(), args.begin(), args.end());
  Process p(bin_path("loadgen"), all, dir, "loadgen", env);
  Run r = finish(p);
  read_outputs(r, dir.file("results.json"), dir.file("dead.jsonl"));
  r.attempts = read_json_lines(dir.file("attempts.jsonl"));
  return r;
}

Run run_exec(const TempDir& dir, std::vector<std::string> args,
             const std::vector<std::string>& command) {
  const std::string out = dir.file("results.json");
  const std::string dead = dir.file("dead.jsonl");
  args.insert(args.end(), {"--out", out, "--dead-letter", dead, "--no-report", "--quiet", "--"});
  args.insert(args.end(), command.begin(), command.end());
  args.insert(args.begin(), "exec");
  Process p(bin_path("loadgen"), args, dir, "loadgen", kNoProxyForLoopback);
  Run r = finish(p);
  read_outputs(r, out, dead);
  return r;
}

}  // namespace support

namespace support {

std::string dashboard_url(Process& loadgen) {
  constexpr std::string_view kSays = "loadgen: dashboard on ";
  for (int i = 0; i < 600 && loadgen.running(); ++i) {
    const auto err = loadgen.err();
    if (const auto at = err.find(kSays); at != std::string::npos) {
      const auto from = at + kSays.size();
      if (const auto end = err.find('\n', from); end != std::string::npos)
        return err.substr(from, end - from);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

int dashboard_port(const std::string& url) {
  const auto colon = url.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(url.c_str() + colon + 1);
}

}  // namespace support
