// The gate of a staging run: loadgen against targets that are not a fakeprovider (a server of
// the test's own that answers 404 to everything, one that accepts and never answers, a port
// nothing listens on) and against fakeprovider. A fleet that failed never exits 0, the JUnit
// file says what the exit code says, and a time scale a target cannot honour is refused
// before any load.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_provider.hpp"
#include "support/files.hpp"
#include "support/loadgen_run.hpp"
#include "support/ports.hpp"
#include "support/sanitized.hpp"
#include "support/temp_dir.hpp"

using namespace support;
using json = nlohmann::json;

namespace {

// An HTTP/1.1 server on a loopback port, on a thread of the test: it answers every request
// with `status` (keep-alive), or with status 0 reads every request and never answers.
class TinyServer {
 public:
  explicit TinyServer(int status) : status_(status) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 || listen(listen_fd_, 512) ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TinyServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (const auto& [fd, buffer] : clients_) close(fd);
    close(listen_fd_);
  }
  TinyServer(const TinyServer&) = delete;
  TinyServer& operator=(const TinyServer&) = delete;

  bool started() const { return port_ > 0; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1/messages"; }
  std::int64_t requests() const { return requests_; }

 private:
  void serve() {
    while (!stop_) {
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      for (const auto& [fd, buffer] : clients_) fds.push_back({fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        for (int fd; (fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) clients_[fd];
      }
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents) read_from(fds[i].fd);
      }
    }
  }

  void read_from(int fd) {
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      close(fd);
      clients_.erase(fd);
      return;
    }
    std::string& pending = clients_[fd];
    pending.append(buf, static_cast<std::size_t>(n));
    // loadgen's GETs carry no body: a request ends with its headers.
    for (auto end = pending.find("\r\n\r\n"); end != std::string::npos;
         end = pending.find("\r\n\r\n")) {
      pending.erase(0, end + 4);
      ++requests_;
      if (status_ == 0) continue;
      const std::string answer = "HTTP/1.1 " + std::to_string(status_) +
                                 " Not Found\r\nContent-Type: text/plain\r\n"
                                 "Content-Length: 9\r\n\r\nnot found";
      if (write(fd, answer.data(), answer.size()) != static_cast<ssize_t>(answer.size())) return;
    }
  }

  int status_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> requests_{0};
  std::map<int, std::string> clients_;  // the serving thread's alone
  std::thread thread_;
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The attribute's value in a tag's text, or "".
std::string attribute(const std::string& tag, const std::string& name) {
  const auto at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  const auto start = at + name.size() + 3;
  return tag.substr(start, tag.find('"', start) - start);
}

// The test cases of a JUnit file, by name: "passed", or the failure's or error's message.
// (No <regex>: GCC 12 warns inside it under the sanitizers.)
std::map<std::string, std::string> junit_cases(const std::string& xml) {
  std::map<std::string, std::string> cases;
  for (auto at = xml.find("<testcase "); at != std::string::npos;
       at = xml.find("<testcase ", at + 1)) {
    const auto tag_end = xml.find('>', at);
    const std::string tag = xml.substr(at, tag_end - at + 1);
    const std::string name = attribute(tag, "name");
    if (tag.ends_with("/>")) {
      cases[name] = "passed";
      continue;
    }
    const auto inner = xml.find('<', tag_end);
    const std::string child = xml.substr(inner, xml.find('>', inner) - inner + 1);
    const std::string kind = child.rfind("<failure", 0) == 0 ? "failure" : "error";
    cases[name] = kind + ": " + attribute(child, "message");
  }
  return cases;
}

// How many times part stands in text.
std::ptrdiff_t occurrences(const std::string& text, const std::string& part) {
  std::ptrdiff_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

struct GateRun {
  Run run;
  std::string junit;
};

GateRun run_with_junit(const std::vector<std::string>& args) {
  TempDir dir;
  GateRun r{run_loadgen(with(args, {"--junit", dir.file("junit.xml")})), {}};
  r.junit = read_file(dir.file("junit.xml"));
  return r;
}

}  // namespace

TEST_CASE("an all-404 target fails the run with the reason; --expect-none passes it") {
  TinyServer server(404);
  REQUIRE(server.started());
  const std::vector<std::string> fleet{"--url",          server.url(), "--clients",  "20",
                                       "--max-attempts", "3",          "--strategy", "exponential"};
  const auto failed = run_with_junit(fleet);
  INFO(failed.run.err);
  CHECK(failed.run.code == 1);
  CHECK(has(failed.run.err,
            "loadgen: delivered > 0 failed: actual 0, compared with 0: no item was delivered: "
            "the target answered only statuses that are not retryable, 404 to 20 of 20 "
            "requests"));
  REQUIRE(failed.run.results.is_object());
  CHECK(failed.run.results["counts"]["statuses"] == json{{"404", 20}});
  CHECK(failed.run.results["summary"]["status_ratio_4xx"] == 1.0);
  CHECK(failed.run.results["summary"]["delivered_ratio"] == 0.0);
  CHECK(failed.run.results["summary"]["dead_letter_ratio"] == 1.0);
  const auto cases = junit_cases(failed.junit);
  CHECK(cases.size() == 2);
  CHECK(has(cases.at("delivered &gt; 0"), "failure: delivered &gt; 0 failed"));
  CHECK(has(cases.at("delivered &gt; 0"), "404 to 20 of 20 requests"));
  CHECK(cases.at("run completed") == "passed");
  CHECK(server.requests() == 20);  // a 404 is never retried

  const auto allowed = run_with_junit(with(fleet, {"--expect-none"}));
  INFO(allowed.run.err);
  CHECK(allowed.run.code == 0);
  CHECK(junit_cases(allowed.junit) ==
        std::map<std::string, std::string>{{"run completed", "passed"}});
}

TEST_CASE("a target that accepts and never answers fails the run: timeouts, not unreachable") {
  TinyServer silent(0);
  REQUIRE(silent.started());
  const auto r = run_with_junit({"--url", silent.url(), "--clients", "5", "--timeout", "300ms",
                                 "--max-attempts", "1", "--strategy", "fixed", "--base", "100ms"});
  INFO(r.run.err);
  CHECK(r.run.code == 1);
  CHECK(has(r.run.err,
            "no item was delivered: the target never answered: of 10 requests, 10 timed out "
            "and 0 were refused or reset"));
  REQUIRE(r.run.results.is_object());
  CHECK(r.run.results["summary"]["status_ratio_timeout"] == 1.0);
  CHECK(r.run.results["counts"]["dead_lettered"] == 5);
  CHECK(has(junit_cases(r.junit).at("delivered &gt; 0"), "the target never answered"));
}

TEST_CASE("a refused target is exit 3 with a JUnit error; the gate's usage errors send nothing") {
  SUBCASE("refused: exit 3, and the JUnit file holds the error") {
    const RefusedPort dead;
    const auto r =
        run_with_junit({"--url", dead.url(), "--clients", "3", "--assert", "requests < 10"});
    CHECK(r.run.code == 3);
    CHECK(has(r.run.err, "loadgen: target unreachable: cannot connect to"));
    CHECK(has(r.junit, "tests=\"1\" failures=\"0\" errors=\"1\""));
    const auto cases = junit_cases(r.junit);
    REQUIRE(cases.size() == 1);
    CHECK(has(cases.at("run completed"), "error: target unreachable: cannot connect to"));
  }
  TinyServer server(404);
  REQUIRE(server.started());
  SUBCASE("peak_ratio with no allowance declared: exit 2, naming it and what it needs") {
    const auto r = run_loadgen({"--url", server.url(), "--assert", "peak_ratio <= 2"});
    CHECK(r.code == 2);
    CHECK(has(r.err,
              "loadgen: assertion 'peak_ratio <= 2': peak_ratio is measured against the "
              "provider's allowance, and none is declared"));
  }
  SUBCASE("peak_retry_ratio and provider_requests too") {
    CHECK(run_loadgen({"--url", server.url(), "--assert", "peak_retry_ratio <= 2"}).code == 2);
    const auto r = run_loadgen({"--url", server.url(), "--allowance", "10/s", "--assert",
                                "provider_requests == requests"});
    CHECK(r.code == 2);
    CHECK(has(r.err,
              "provider_requests is the provider's own record, and this run has none: "
              "give --provider-admin"));
  }
  SUBCASE("--time-scale against a target that is not a fakeprovider: exit 2") {
    const auto r = run_loadgen({"--url", server.url(), "--time-scale", "0.1"});
    CHECK(r.code == 2);
    CHECK(has(r.err,
              "loadgen: --time-scale 0.1: only a fakeprovider (--provider-admin) runs on "
              "a scaled clock"));
    CHECK(has(r.err, "--allow-time-scale"));
  }
  CHECK(server.requests() == 0);
}

TEST_CASE("--allow-time-scale lets a scaled fleet run against a target it cannot check") {
  TinyServer server(404);
  REQUIRE(server.started());
  const auto r = run_loadgen({"--url", server.url(), "--clients", "4", "--time-scale", "0.1",
                              "--allow-time-scale", "--expect-none"});
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(server.requests() == 4);
}

TEST_CASE("a time scale other than the fakeprovider's is exit 2 before any load") {
  FakeProvider p({"--allowance", "100/s", "--time-scale", "0.05"});
  REQUIRE(p.started());
  for (const char* scale : {"0.1", "1"}) {
    CAPTURE(scale);
    const auto r = run_with_junit(
        {"--url", p.url(), "--provider-admin", p.admin(), "--time-scale", scale, "--clients", "5"});
    CHECK(r.run.code == 2);
    CHECK(has(r.run.err, std::string("loadgen: --time-scale ") + scale + ": the fakeprovider at " +
                             p.admin() + " runs at --time-scale 0.05; give both the same"));
    CHECK(r.run.results.is_null());
    CHECK(has(junit_cases(r.junit).at("run completed"), "error: --time-scale"));
  }
  CHECK(p.stats()["requests"] == 0);
  const auto same = run_loadgen(
      {"--url", p.url(), "--provider-admin", p.admin(), "--time-scale", "0.05", "--clients", "5"});
  INFO(same.err);
  CHECK(same.code == 0);
  CHECK(p.stats()["requests"] == 5);
}

TEST_CASE("a run stopped by --max-duration is a failed JUnit case saying so, exit 1") {
  FakeProvider p({"--outage", "0s-1000s:503", "--time-scale", "0.05"});
  REQUIRE(p.started());
  const auto r = run_with_junit({"--url", p.url(), "--provider-admin", p.admin(), "--time-scale",
                                 "0.05", "--clients", "10", "--strategy", "fixed", "--max-duration",
                                 "300ms", "--grace", "1s", "--expect-none"});
  INFO(r.run.err);
  CHECK(r.run.code == 1);
  CHECK(has(r.run.err, "loadgen: stopped by --max-duration 300ms after "));
  CHECK(has(r.run.err, " s with 10 items unfinished"));
  CHECK(has(r.junit, "tests=\"1\" failures=\"1\" errors=\"0\""));
  const auto cases = junit_cases(r.junit);
  REQUIRE(cases.count("run completed") == 1);
  CHECK(has(cases.at("run completed"), "failure: stopped by --max-duration 300ms after "));
  CHECK(has(cases.at("run completed"), "with 10 items unfinished"));
}

TEST_CASE("an expectation repeated by --assert is one case; the report counts its rows") {
  FakeProvider p({"--allowance", "100/s", "--time-scale", "0.05"});
  REQUIRE(p.started());
  TempDir dir;
  write_file(dir.file("s.json"), R"({"name": "dup", "provider": {"allowance": "100/s"},
    "fleet": {"clients": 5}, "expectations": ["delivered == items", "peak_ratio <= 2"]})");
  const auto r = run_with_junit({"--scenario", dir.file("s.json"), "--url", p.url(),
                                 "--provider-admin", p.admin(), "--time-scale", "0.05", "--assert",
                                 "delivered==items", "--assert", "peak_ratio <= 2.0", "--assert",
                                 "delivered > 0", "--report", dir.file("r.html")});
  INFO(r.run.err);
  CHECK(r.run.code == 0);
  const auto cases = junit_cases(r.junit);
  CHECK(cases == std::map<std::string, std::string>{{"delivered == items", "passed"},
                                                    {"peak_ratio &lt;= 2", "passed"},
                                                    {"delivered &gt; 0", "passed"},
                                                    {"run completed", "passed"}});
  REQUIRE(r.run.results.is_object());
  CHECK(r.run.results["assertions"].size() == 3);
  const std::string html = read_file(dir.file("r.html"));
  CHECK(has(html, ">3 passed, 0 failed<"));
  const auto start = html.find("<section id=\"assertions\">");
  REQUIRE(start != std::string::npos);
  const auto section = html.substr(start, html.find("</section>", start) - start);
  CHECK(occurrences(section, "<tr><td class=\"key\">") == 3);
}

TEST_CASE("live, no outage: exponential backoff's herd has the higher peak_retry_ratio" *
          doctest::test_suite("alone")) {
  // 100 clients at t=0 against 10/s: exponential sends the 90 it was refused back together
  // at t=1; full jitter spreads them over its window. Under a sanitizer the first 100 sends
  // take a fifth of a wall second: at 0.2 that is most of the first second, and full jitter's
  // retries meet them there (seen: a peak_retry_ratio of 13.5 against exponential's 10.4).
  const std::string scale = support::kSanitized ? "1" : "0.2";
  FakeProvider p({"--allowance", "10/s", "--limiter", "fixed-window", "--time-scale", scale});
  REQUIRE(p.started());
  std::map<std::string, json> summary;
  for (const char* strategy : {"exponential", "full-jitter"}) {
    const auto r = run_loadgen({"--url", p.url(), "--provider-admin", p.admin(), "--time-scale",
                                scale, "--clients", "100", "--allowance", "10/s", "--strategy",
                                strategy, "--base", "1s", "--max-attempts", "2", "--expect-none"});
    INFO(r.err);
    REQUIRE(r.results.is_object());
    summary[strategy] = r.results["summary"];
  }
  // 90 at t=1 and 80 at t=3, unless a very late loop split a wave over two seconds.
  CHECK(summary["exponential"]["peak_retries"].get<double>() >= 80);
  CHECK(summary["full-jitter"]["peak_retry_ratio"].get<double>() <
        summary["exponential"]["peak_retry_ratio"].get<double>());
}
