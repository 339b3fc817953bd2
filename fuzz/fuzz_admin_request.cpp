// The admin API's request handling: whatever bytes a client sends on one connection (request
// heads, pipelined requests, bodies declared or chunked or cut, Range, Authorization) go
// through the real server, BoundedServer's stream and cpp-httplib's parser, the token check,
// the routes and their parameters, and the answers come back over a socketpair. The first
// byte picks the server: odd, one with --admin-token; even, one without. The rest is the
// connection's bytes, sent whole, then the client half-closes.
//
// Checks: every answer is a whole HTTP/1.1 response (a status line, headers, as many body
// bytes as its Content-Length says, none for a HEAD), and without the token in the input, the
// server with a token answers nothing but 4xx and /healthz's "ok".
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "scenario.hpp"
#include "server/admin_api.hpp"
#include "server/locked_provider.hpp"

namespace {

using namespace stampede;

constexpr std::int64_t kSecond = 1'000'000'000;
constexpr const char* kToken = "fuzz-admin-token";
// Past the 80 KiB a request may send, and within what a socketpair holds unread, so writing
// the whole input before serving never blocks.
constexpr std::size_t kMaxInputBytes = 96 * 1024;

struct Admin {
  explicit Admin(const std::string& token)
      : provider(options()), api({{"127.0.0.1", 0}, token, {}}, provider) {
    // A few tenants whose names need escaping, so the stats and metrics have rows to write.
    const char* tenants[] = {"plain", "quote\"back\\slash", "nl\nctl\x01", "utf8-\xc3\xa9"};
    std::int64_t t = ScenarioClock::steady_ns();
    for (const char* tenant : tenants) provider.admit(0, ++t, tenant, {}, {}, {}, {});
    if (api.start()) std::abort();  // loopback, port 0: only the fuzzer's connections come
  }
  static LockedProvider::Options options() {
    ProviderConfig config;
    config.allowance = Rate{10, kSecond};
    return {config, 1.0, kSecond, /*keep_log=*/true, /*threads=*/1, nullptr, {}};
  }
  LockedProvider provider;
  AdminApi api;
};

Admin& admin(bool with_token) {
  static Admin open("");
  static Admin guarded(kToken);
  return with_token ? guarded : open;
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n <= 0) std::abort();
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string read_all(int fd) {
  std::string out;
  char buf[8192];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  return out;
}

// Walks the answers; aborts on one that is not whole, or one the token should have stopped.
void check_answers(std::string_view out, bool must_be_refused, bool head_request) {
  while (!out.empty()) {
    if (out.substr(0, 9) != "HTTP/1.1 " || out.size() < 12) std::abort();
    const int status = std::atoi(std::string(out.substr(9, 3)).c_str());
    const auto head_end = out.find("\r\n\r\n");
    if (status < 100 || status > 599 || head_end == std::string_view::npos) std::abort();
    const std::string_view head = out.substr(0, head_end + 2);
    std::size_t length = 0;
    if (const auto at = head.find("\r\nContent-Length: "); at != std::string_view::npos)
      length = std::strtoull(std::string(head.substr(at + 18, 20)).c_str(), nullptr, 10);
    // A HEAD's answer says the length of a body it does not carry; any other is whole.
    const std::string_view rest = out.substr(head_end + 4);
    if (head_request && (rest.empty() || rest.substr(0, 9) == "HTTP/1.1 ")) length = 0;
    if (rest.size() < length) std::abort();  // a body cut short
    const std::string_view body = out.substr(head_end + 4, length);
    if (must_be_refused && status < 400 && body != "ok\n") std::abort();
    out.remove_prefix(head_end + 4 + length);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > kMaxInputBytes) return 0;
  const bool with_token = data[0] & 1;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  Admin& a = admin(with_token);
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
  write_all(fds[0], input);
  shutdown(fds[0], SHUT_WR);
  a.api.serve_connection(fds[1]);  // closes fds[1]
  const std::string out = read_all(fds[0]);
  close(fds[0]);
  check_answers(out, with_token && input.find(kToken) == std::string_view::npos,
                input.find("HEAD") != std::string_view::npos);
  return 0;
}
