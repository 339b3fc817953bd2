// What loadgen run takes from its surroundings, against real servers: the tenant key from
// STAMPEDE_API_KEY (out of `ps`), and a --provider-admin that answers but is not a
// fakeprovider's admin API, refused in one line before any load.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/ports.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace support;

namespace {

constexpr const char* kEnvKey = "key-from-the-environment";

bool accepts(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// A plain HTTP server that is no fakeprovider: the Debian python3 (make deps), serving a
// folder on loopback.
struct PlainServer {
  explicit PlainServer(const TempDir& dir)
      : port(unused_port()),
        process("/usr/bin/python3",
                {"-m", "http.server", "--bind", "127.0.0.1", "--directory", dir.file("www"),
                 std::to_string(port)},
                dir, "http-server") {}
  int port;
  Process process;
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

std::vector<std::string> small_fleet(const std::string& url) {
  return {"--url", url, "--clients", "4", "--allowance", "100/s", "--max-attempts", "2"};
}

}  // namespace

TEST_CASE("live: --api-key is read from STAMPEDE_API_KEY and the provider sees it as the tenant") {
  FakeProvider p({"--allowance", "100/s"});
  REQUIRE(p.started());
  auto args = small_fleet(p.url());
  args.insert(args.end(), {"--provider-admin", p.admin()});
  const auto r = run_loadgen(args, {{"STAMPEDE_API_KEY", std::string(kEnvKey)}});
  INFO(r.err);
  CHECK(r.code == 0);
  const auto tenants = p.stats()["tenants"];
  CHECK(tenants.contains(kEnvKey));
  CHECK(r.err.find(kEnvKey) == std::string::npos);

  // A key on the command line wins over the environment's.
  auto given = args;
  given.insert(given.end(), {"--api-key", "key-from-the-flag"});
  const auto flag = run_loadgen(given, {{"STAMPEDE_API_KEY", std::string(kEnvKey)}});
  CHECK(flag.code == 0);
  CHECK(p.stats()["tenants"].contains("key-from-the-flag"));
}

TEST_CASE("live: a malformed STAMPEDE_API_KEY is refused naming the variable, not echoed") {
  const auto r = run_loadgen(small_fleet("http://127.0.0.1:1/"),
                             {{"STAMPEDE_API_KEY", std::string("two\nkeys")}});
  CHECK(r.code == 2);
  CHECK(r.err.find("$STAMPEDE_API_KEY") != std::string::npos);
  CHECK(r.err.find("two") == std::string::npos);
}

TEST_CASE("live: a --provider-admin that answers but is not a fakeprovider is a usage error") {
  FakeProvider p({"--allowance", "100/s"});
  REQUIRE(p.started());
  TempDir dir;
  std::filesystem::create_directories(dir.file("www/not-json/admin"));
  write_file(dir.file("www/not-json/admin/stats"), "<html>a page</html>\n");
  PlainServer plain(dir);
  REQUIRE(plain.process.started());
  REQUIRE(wait_until([&] { return accepts(plain.port); }, 10'000));
  struct Row {
    std::string admin;
    std::string answered;
  };
  for (const Row& row :
       {Row{plain.url(), "(GET /admin/stats answered 404)"},
        Row{plain.url() + "/not-json", "answered 200 with a body that is not JSON"},
        Row{p.url(), "answered 200 with JSON that is not its stats"}}) {
    CAPTURE(row.admin);
    auto args = small_fleet(p.url());
    args.insert(args.end(), {"--provider-admin", row.admin});
    const auto r = run_loadgen(args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("--provider-admin " + row.admin + " is not a fakeprovider admin API") !=
          std::string::npos);
    CHECK(r.err.find(row.answered) != std::string::npos);
    CHECK(r.err.find("unreachable") == std::string::npos);
  }
  // No client sent: the check came before any load. The one arrival is the last row's own
  // GET /admin/stats, sent to the data plane.
  CHECK(p.stats()["requests"] == 1);
}
