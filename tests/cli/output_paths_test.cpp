// Output paths that would damage the machine or lose the run (issue 14, item 2): every output
// flag of loadgen run, simulate, merge and report and of fakeprovider is checked before any
// load or any server, a bad one is exit 2 with one line naming the flag; a device given as an
// output stays a device; --out FOLDER never writes FOLDER.html. Outputs point at a private
// /dev/null twin (support/null_twin.hpp), never at a real device.
#include <doctest/doctest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/null_twin.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

// A process that wrongly went on to run or serve is killed after this, and the case fails.
constexpr int kWentOnBoundMs = 10'000;

bool exists(const std::string& path) {
  std::error_code ignored;
  return std::filesystem::exists(std::filesystem::symlink_status(path, ignored));
}

// A loopback listener that counts the connections made to it, to show a run sent nothing.
class CountingListener {
 public:
  CountingListener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0);
    REQUIRE(listen(fd_, 64) == 0);
    REQUIRE(getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
  }
  ~CountingListener() { close(fd_); }
  CountingListener(const CountingListener&) = delete;
  CountingListener& operator=(const CountingListener&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  // Connections made since the last call (the kernel completes them without an accept).
  int take_connections() {
    int n = 0;
    for (int c; (c = accept(fd_, nullptr, nullptr)) >= 0; ++n) close(c);
    return n;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

struct Command {
  std::string binary;
  std::vector<std::string> args;  // everything but the output flag
};

// The flag given path is refused with exit 2 and one line naming flag, path and problem.
void check_refused(const Command& c, const std::vector<std::string>& output,
                   const std::string& flag, const std::string& path, const std::string& problem) {
  const auto args = with(c.args, output);
  std::string joined = c.binary;
  for (const auto& a : args) joined += " '" + a + "'";
  CAPTURE(joined);
  const auto r = run_binary(c.binary, args, kWentOnBoundMs);
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());  // fakeprovider says "listening on" only once it serves
  CHECK(r.err.find('\n') == r.err.size() - 1);
  CHECK(contains(r.err, flag + ": '" + path + "'"));
  CHECK(contains(r.err, problem));
}

// A missing folder and a folder, for one output flag of one command; neither leaves a file
// beside the folder.
void check_bad_paths(const Command& c, const std::string& flag) {
  TempDir dir;
  const auto missing = dir.file("no/such/out.x");
  check_refused(c, {flag, missing}, flag, missing,
                "folder '" + dir.file("no/such") + "' does not exist");
  check_refused(c, {flag, dir.path()}, flag, dir.path(), "is a folder");
  CHECK_FALSE(exists(dir.path() + ".html"));
  CHECK(std::filesystem::is_empty(dir.path()));
}

const std::vector<std::string> kRunFlags{"--out", "--dead-letter", "--junit", "--attempts-out",
                                         "--report"};

Command simulate() {
  return {"loadgen", {"simulate", "--clients", "20", "--allowance", "10/s", "-q"}};
}

}  // namespace

TEST_CASE("run: every output flag is checked before any load") {
  CountingListener target;
  const Command run{"loadgen", {"run", "--url", target.url(), "--clients", "3", "-q"}};
  for (const auto& flag : kRunFlags) {
    CAPTURE(flag);
    check_bad_paths(run, flag);
    CHECK(target.take_connections() == 0);
  }
}

TEST_CASE("run: the report beside --out is checked too, naming where it came from") {
  CountingListener target;
  TempDir dir;
  std::filesystem::create_directory(dir.file("r.html"));
  check_refused({"loadgen", {"run", "--url", target.url(), "--clients", "3", "-q"}},
                {"--out", dir.file("r.json")}, "--report (beside --out)", dir.file("r.html"),
                "is a folder");
  CHECK(target.take_connections() == 0);
  CHECK_FALSE(exists(dir.file("r.json")));
}

TEST_CASE("simulate: --out and --report are checked before the simulation") {
  for (const auto& flag : {"--out", "--report"}) {
    CAPTURE(flag);
    check_bad_paths(simulate(), flag);
  }
}

TEST_CASE("merge and report: -o is checked before any input is read") {
  check_bad_paths({"loadgen", {"merge", kStormResults}}, "-o");
  check_bad_paths({"loadgen", {"report", kStormResults}}, "-o");
}

TEST_CASE("fakeprovider: --stats-out and --arrivals-out are checked before it serves") {
  const Command provider{"fakeprovider",
                         {"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"}};
  for (const auto& flag : {"--stats-out", "--arrivals-out"}) {
    CAPTURE(flag);
    check_bad_paths(provider, flag);
  }
}

TEST_CASE("a read-only --out is refused and kept, as root too") {
  TempDir dir;
  const auto kept = dir.write("kept.json", "kept\n");
  REQUIRE(chmod(kept.c_str(), 0444) == 0);
  check_refused(simulate(), {"--out", kept}, "--out", kept, "is read-only");
  CHECK(read_file(kept) == "kept\n");
  CHECK_FALSE(exists(dir.file("kept.html")));
}

TEST_CASE("simulate --out through a symlink writes its target; the link stays a link") {
  TempDir dir;
  std::filesystem::create_directory(dir.file("data"));
  const auto link = dir.file("r.json");
  REQUIRE(symlink("data/target.json", link.c_str()) == 0);
  const auto r = run_binary("loadgen", with(simulate().args, {"--out", link}), kWentOnBoundMs);
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(std::filesystem::is_symlink(std::filesystem::symlink_status(link)));
  CHECK(nlohmann::json::parse(read_file(dir.file("data/target.json"))).contains("summary"));
  CHECK(exists(dir.file("r.html")));  // the report beside the name given
}

TEST_CASE("simulate --out to a device writes it in place, with no report beside it") {
  TempDir dir;
  NullTwin twin(dir.file("null"));
  REQUIRE(twin.made());
  const auto r =
      run_binary("loadgen", with(simulate().args, {"--out", twin.path()}), kWentOnBoundMs);
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(twin.intact());
  CHECK_FALSE(exists(dir.file("null.html")));
  if (!twin.is_device()) CHECK(contains(twin.received(1), "\"summary\""));
}

TEST_CASE("run and fakeprovider with every output on a device: each stays a device") {
  TempDir dir;
  std::vector<std::unique_ptr<NullTwin>> twins;
  const auto twin = [&](const std::string& name) {
    twins.push_back(std::make_unique<NullTwin>(dir.file(name)));
    REQUIRE(twins.back()->made());
    return twins.back()->path();
  };
  support::FakeProvider provider({"--allowance", "100/s", "--time-scale", "0.05", "--stats-out",
                                  twin("stats"), "--arrivals-out", twin("arrivals")});
  REQUIRE(provider.started());
  std::vector<std::string> args{"run",          "--url", provider.url(),       "--clients", "5",
                                "--time-scale", "0.05",  "--allow-time-scale", "-q"};
  for (const auto& flag : kRunFlags) args = with(args, {flag, twin(flag.substr(2))});
  const auto r = run_binary("loadgen", args, kWentOnBoundMs);
  CHECK_MESSAGE(r.code == 0, r.err);
  provider.process().signal(SIGTERM);
  CHECK(provider.process().wait(kWentOnBoundMs) == 0);
  for (const auto& t : twins) {
    CAPTURE(t->path());
    CHECK(t->intact());
    CHECK_FALSE(exists(t->path() + ".html"));
  }
}
