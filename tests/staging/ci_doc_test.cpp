// docs/CI.md, run: every command in it (each line of its ```sh blocks, and each inline `code`
// span of three words or more that starts with a program) is run here as written, in a
// directory laid out as a user's repository (ci/staging.json, out/), with $STAGING_URL
// pointing at nginx on loopback as the stand-in staging API; or it is listed below with why
// it is not run here and what runs it instead. A command the doc gains, or one this table
// names that the doc lost, fails the first case: the doc and this test change together.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/files.hpp"
#include "support/nginx.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using nlohmann::json;
using support::contains;
using support::count_status;
using support::EnvChanges;
using support::NginxStaging;
using support::Process;
using support::read_file;
using support::start_nginx;
using support::TempDir;
using support::write_file;

namespace {

const std::string kSource = support::source_dir();
const std::string kBin = support::bin_dir();
const std::vector<std::string> kPrograms{"loadgen", "fakeprovider", "make",  "apt-get",
                                         "docker",  "openssl",      "cmake", "curl"};
constexpr int kDocRunWaitMs = 300'000;

// How a command of the doc is covered: run by the case named, or not run, and why.
struct Coverage {
  std::string starts;  // the command's first words, enough to tell it from the others
  std::string contains;
  std::string how;
};

const std::vector<Coverage> kCoverage{
    {"make package", "",
     "not run here: it builds the .deb (minutes, with the build's own packages); the slow "
     "case of tests/package/ builds it and installs it into a bare Debian 12"},
    {"apt-get install -y ./stampede_", "",
     "not run here: it installs into this machine's system as root; tests/package/ installs "
     "the .deb into a bare Debian 12 made by debootstrap, as the Dockerfile's runtime stage "
     "does, and runs both binaries"},
    {"docker build -t stampede .", "",
     "not run here: there is no docker on this machine; tests/package/ builds the "
     "Dockerfile's stages with the same commands"},
    {"make install PREFIX=", "", "run: the recipe (cmake --install), not `make build` before it"},
    {"loadgen run --scenario ci/staging.json", "--dead-letter", "run: against nginx over http"},
    {"loadgen run --scenario ci/staging.json", "--cacert", "run: against nginx over https, mTLS"},
    {"openssl rehash DIR", "", "run: on a directory holding the test CA"},
    {"loadgen report A.json B.json -o compare.html", "", "run: on two runs' results"},
};

std::string squeeze(const std::string& text) {
  std::istringstream in(text);
  std::string word, out;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

bool is_command(const std::string& text) {
  const auto words = squeeze(text);
  const auto first = words.substr(0, words.find(' '));
  return std::count(words.begin(), words.end(), ' ') >= 2 &&
         std::find(kPrograms.begin(), kPrograms.end(), first) != kPrograms.end();
}

// The doc's commands: its ```sh lines (continuations joined, comments dropped) and its inline
// spans that are commands, whitespace squeezed.
std::vector<std::string> doc_commands(const std::string& doc) {
  std::vector<std::string> commands;
  std::istringstream in(doc);
  std::string prose, pending;
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced && line == "```sh";
      continue;
    }
    if (!fenced) {
      prose += line + "\n";
      continue;
    }
    if (const auto hash = line.find(" #"); hash != std::string::npos) line.erase(hash);
    if (!line.empty() && line.back() == '\\') {
      pending += line.substr(0, line.size() - 1) + " ";
      continue;
    }
    if (const auto c = squeeze(pending + line); !c.empty()) commands.push_back(c);
    pending.clear();
  }
  for (auto at = prose.find('`'); at != std::string::npos; at = prose.find('`', at + 1)) {
    const auto end = prose.find('`', at + 1);
    if (end == std::string::npos) break;
    const std::string span = prose.substr(at + 1, end - at - 1);
    if (is_command(span)) commands.push_back(squeeze(span));
    at = end;
  }
  return commands;
}

const Coverage* coverage_of(const std::string& command) {
  for (const auto& c : kCoverage) {
    if (command.rfind(c.starts, 0) == 0 && contains(command, c.contains)) return &c;
  }
  return nullptr;
}

// The doc's one command that the coverage entry `starts` (and `has`) names.
std::string doc_command(const std::string& starts, const std::string& has = "") {
  for (const auto& c : doc_commands(read_file(kSource + "/docs/CI.md"))) {
    if (c.rfind(starts, 0) == 0 && contains(c, has)) return c;
  }
  FAIL("docs/CI.md has no command starting '" << starts << "'");
  return "";
}

// A user's repository: ci/staging.json, the example's, and an out/ folder for the files.
void lay_out_repository(const TempDir& repo) {
  std::filesystem::create_directories(repo.file("ci"));
  std::filesystem::create_directories(repo.file("out"));
  std::filesystem::copy_file(kSource + "/examples/ci/staging.json", repo.file("ci/staging.json"));
}

struct Shell {
  int code = -1;
  std::string out, err;
};

// The command as a pipeline's shell runs it: in the repository, the binaries in PATH.
Shell run_in(const TempDir& repo, const std::string& command, EnvChanges env) {
  env.push_back({"PATH", kBin + ":" + std::getenv("PATH")});
  // This machine sets them for other programs; a runner need not: neither may decide a case.
  for (const char* name : {"CURL_CA_BUNDLE", "SSL_CERT_DIR", "SSL_CERT_FILE"})
    env.push_back({name, std::nullopt});
  Process p("/bin/sh", {"-c", "cd '" + repo.file("") + "' && " + command}, repo, "sh", env);
  Shell s;
  s.code = p.wait(kDocRunWaitMs);
  s.out = p.out();
  s.err = p.err();
  return s;
}

// examples/ci/staging.json's allowance, 4000/min, as a provider that enforces it a second at a
// time would (66 at once, then one every 15 ms): a staging API the example passes against with
// full jitter. The example runs as it is, on the wall's clock (about ten seconds): on a scaled
// one the harness's CPU wait on a loaded machine bunches the jittered retries as no fleet would.
support::NginxOptions staging_limit() {
  return {.limit_rate = "4000r/m", .burst = 65};
}

// What the gate must come to: passed, or (over https) a verdict on the fleet, either way.
enum class Verdict { kPassed, kReached };

void check_outputs(const TempDir& repo, const Shell& s, const std::vector<std::string>& files,
                   Verdict verdict = Verdict::kPassed) {
  INFO("stdout: " << s.out);
  INFO("stderr: " << s.err);
  if (verdict == Verdict::kPassed)
    CHECK(s.code == 0);
  else
    CHECK((s.code == 0 || s.code == 1));  // not a usage error, not an unreachable target
  for (const auto& f : files) {
    CAPTURE(f);
    CHECK(std::filesystem::exists(repo.file(f)));  // the dead letters: empty, when none
    CHECK(contains(s.err, " to " + f + "\n"));     // named on stderr
  }
  const auto results = json::parse(read_file(repo.file("out/results.json")));
  // Over https the fleet is the machine's (below): most of it through is enough there.
  if (verdict == Verdict::kPassed)
    CHECK(results["counts"]["delivered"] == results["counts"]["items"]);
  else
    CHECK(results["counts"]["delivered"].get<int>() * 2 > results["counts"]["items"].get<int>());
  CHECK(results["scenario"]["name"] == "staging-retry-check");
  const auto junit = read_file(repo.file("out/junit.xml"));
  CHECK(contains(junit,
                 verdict == Verdict::kPassed ? "failures=\"0\" errors=\"0\"" : "errors=\"0\""));
  CHECK(contains(junit, "name=\"peak_retry_ratio &lt;= 4\""));
}

// The staging command of section 3 against nginx over http, its files, and section 5's
// comparison of two runs' results.
void run_staging_and_report() {
  const auto started = start_nginx(staging_limit());
  if (!started) return;
  TempDir repo;
  lay_out_repository(repo);
  // The key as the pipelines pass it: in the environment, out of the command line.
  const auto s =
      run_in(repo, doc_command("loadgen run --scenario ci/staging.json", "--dead-letter"),
             {{"STAGING_URL", started->http_url("/v1/messages")},
              {"STAMPEDE_API_KEY", "staging-key-from-a-secret"}});
  check_outputs(repo, s,
                {"out/junit.xml", "out/results.json", "out/report.html", "out/dead-letter.jsonl"});
  // The key goes to the API, never into what the pipeline publishes.
  for (const char* f : {"out/results.json", "out/report.html", "out/junit.xml"})
    CHECK_FALSE(contains(read_file(repo.file(f)), "staging-key-from-a-secret"));
  const auto log = started->stop_and_read_log();
  CHECK(count_status(log, 200) > 0);

  std::filesystem::copy_file(repo.file("out/results.json"), repo.file("A.json"));
  std::filesystem::copy_file(repo.file("out/results.json"), repo.file("B.json"));
  const auto r = run_in(repo, doc_command("loadgen report A.json B.json"), {});
  INFO("report stderr: " << r.err);
  CHECK(r.code == 0);
  CHECK(contains(read_file(repo.file("compare.html")), "staging-retry-check"));
}

}  // namespace

TEST_CASE("docs/CI.md: each command is run here, or listed with why not") {
  const auto commands = doc_commands(read_file(kSource + "/docs/CI.md"));
  REQUIRE(commands.size() >= 4);
  std::map<const Coverage*, int> seen;
  for (const auto& c : commands) {
    CAPTURE(c);
    const auto* coverage = coverage_of(c);
    CHECK_MESSAGE(coverage != nullptr,
                  "a command docs/CI.md gained: run it in this test, or "
                  "list it in kCoverage with why it is not run");
    if (coverage) ++seen[coverage];
  }
  for (const auto& c : kCoverage) {
    CAPTURE(c.starts);
    CAPTURE(c.how);
    CHECK_MESSAGE(seen[&c] == 1, "kCoverage names a command docs/CI.md no longer has");
  }
}

TEST_CASE("docs/CI.md: the staging command against nginx, then the comparison of two runs") {
  run_staging_and_report();
}

TEST_CASE("docs/CI.md: the https command with a private CA and a client certificate") {
  auto options = staging_limit();
  options.http = false;
  options.https = true;
  options.verify_client = true;
  const auto started = start_nginx(options);
  if (!started) return;
  const auto& pki = started->pki();
  TempDir repo;
  lay_out_repository(repo);
  std::filesystem::copy_file(pki.ca_cert(), repo.file("ci/staging-ca.pem"));
  std::filesystem::copy_file(pki.client_cert(), repo.file("ci/client.pem"));
  const auto s = run_in(
      repo, doc_command("loadgen run --scenario ci/staging.json", "--cacert"),
      {{"STAGING_URL", started->https_url("/v1/messages")}, {"CLIENT_KEY_FILE", pki.client_key()}});
  // 400 TLS handshakes with a client certificate at once: on a loaded two-core machine they
  // take seconds of CPU, which bunches the fleet's retries as no fleet would, so the retry
  // gate's verdict is the machine's here. What this case checks is the command: the private CA,
  // the client certificate, the files (the gate itself: staging_gate_nginx_test.cpp).
  check_outputs(repo, s, {"out/junit.xml", "out/results.json"}, Verdict::kReached);
  const auto log = started->stop_and_read_log();
  REQUIRE_FALSE(log.empty());
  for (const auto& line : log) CHECK(line.client_verify == "SUCCESS");

  // Section 4's --capath DIR wants the CAs under their hashes: the doc's command makes them.
  std::filesystem::create_directories(repo.file("cas"));
  std::filesystem::copy_file(pki.ca_cert(), repo.file("cas/ca.pem"));
  auto rehash = doc_command("openssl rehash DIR");
  rehash.replace(rehash.find("DIR"), 3, "cas");
  const auto r = run_in(repo, rehash, {});
  INFO("openssl: " << r.err);
  CHECK(r.code == 0);
  bool hashed = false;
  for (const auto& e : std::filesystem::directory_iterator(repo.file("cas")))
    hashed = hashed || e.path().extension() == ".0";
  CHECK(hashed);
}

TEST_CASE("docs/CI.md: make install PREFIX=... puts the two binaries there") {
  // `make install` runs `make build` first, which installs the build's packages and builds
  // again; its own recipe is what puts the files in place, from this build.
  CHECK_FALSE(doc_command("make install PREFIX=").empty());
  CHECK(contains(read_file(kSource + "/Makefile"),
                 "install: build\n\tcmake --install $(BUILD) "
                 "--prefix $(PREFIX)\n"));
  TempDir repo;
  const auto s =
      run_in(repo, "cmake --install '" + kBin + "/..' --prefix '" + repo.file("usr") + "'", {});
  INFO("stderr: " << s.err);
  CHECK(s.code == 0);
  for (const char* binary : {"loadgen", "fakeprovider"}) {
    CAPTURE(binary);
    const auto v = run_in(repo, repo.file("usr/bin/") + binary + " --version", {});
    CHECK(v.code == 0);
    CHECK(contains(v.out, binary));
  }
}
