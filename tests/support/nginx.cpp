#include "support/nginx.hpp"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <utility>

#include "support/files.hpp"
#include "support/ports.hpp"
#include "support/tools.hpp"

namespace support {

namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";
constexpr const char* kOpenssl = "/usr/bin/openssl";
constexpr int kStepTimeoutMs = 20'000;
constexpr int kNginxReadyMs = 10'000;
constexpr int kPortTries = 5;

// The extensions of each certificate, named in the openssl commands; nothing taken from the
// system's openssl.cnf, so the certificates are the same on every machine.
constexpr const char* kOpensslConfig = R"([req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
authorityKeyIdentifier = keyid
[client]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
)";

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, sep);) fields.push_back(f);
  return fields;
}

// The same answers on every listener.
std::string locations(const NginxOptions& o, const std::string& root) {
  std::string s = "    root " + root + ";\n    default_type text/plain;\n";
  // limit_req acts in the preaccess phase, so the 200 must come from a content handler (a
  // file), not from `return`, which answers before the limiter looks.
  s += "    location / {\n";
  if (!o.limit_rate.empty())
    s += "      limit_req zone=fleet" +
         (o.burst > 0 ? " burst=" + std::to_string(o.burst) + " nodelay" : std::string()) + ";\n";
  s += "      try_files /ok.txt =404;\n    }\n";
  s += "    location = " + std::string(NginxStaging::kMissingPath) + " { return 404; }\n";
  if (o.silent_upstream_port) {
    // Longer than any test's --timeout: the client gives up first, as on a hung staging.
    s += "    location = " + std::string(NginxStaging::kSilentPath) +
         " {\n      proxy_pass http://127.0.0.1:" + std::to_string(o.silent_upstream_port) +
         ";\n      proxy_read_timeout 120s;\n    }\n";
  }
  if (o.retry_after) {
    // The answer a rate-limited API gives: 429, Retry-After, a JSON body.
    s += "    error_page 429 = @limited;\n"
         "    location @limited {\n"
         "      add_header Retry-After 1 always;\n"
         "      default_type application/json;\n"
         "      return 429 '{\"error\":{\"type\":\"rate_limit_error\"}}';\n"
         "    }\n";
  }
  return s;
}

}  // namespace

TestPki::TestPki(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  write_file(dir_ + "/openssl.cnf", kOpensslConfig);
  const std::string cnf = dir_ + "/openssl.cnf";
  const std::vector<std::string> ec_key{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                        "-nodes"};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const bool made =
      openssl(with({"req", "-x509", "-config", cnf, "-extensions", "ca", "-days", "2", "-subj",
                    "/CN=stampede test CA", "-keyout", dir_ + "/ca.key", "-out", ca_cert()},
                   ec_key)) &&
      openssl(with({"req", "-new", "-config", cnf, "-subj", "/CN=localhost", "-keyout",
                    server_key(), "-out", dir_ + "/server.csr"},
                   ec_key)) &&
      openssl({"x509", "-req", "-in", dir_ + "/server.csr", "-CA", ca_cert(), "-CAkey",
               dir_ + "/ca.key", "-set_serial", "2", "-days", "2", "-extfile", cnf, "-extensions",
               "server", "-out", server_cert()}) &&
      openssl(with({"req", "-new", "-config", cnf, "-subj", std::string("/CN=") + kClientName,
                    "-keyout", client_key(), "-out", dir_ + "/client.csr"},
                   ec_key)) &&
      openssl({"x509", "-req", "-in", dir_ + "/client.csr", "-CA", ca_cert(), "-CAkey",
               dir_ + "/ca.key", "-set_serial", "3", "-days", "2", "-extfile", cnf, "-extensions",
               "client", "-out", client_cert()});
  if (!made) return;
  write_file(client_cert_and_key(), read_file(client_cert()) + read_file(client_key()));
  std::filesystem::create_directory(ca_dir());
  std::filesystem::copy_file(ca_cert(), ca_dir() + "/ca.pem");
  openssl({"rehash", ca_dir()});
}

bool TestPki::openssl(const std::vector<std::string>& args) {
  TempDir logs;
  const std::string name = "openssl-" + std::to_string(++steps_);
  Process p(kOpenssl, args, logs, name);
  const int code = p.wait(kStepTimeoutMs);
  if (code == 0) return true;
  std::string command = "openssl";
  for (const auto& a : args) command += " " + a;
  error_ = command + " exited " + std::to_string(code) + ": " + p.err();
  return false;
}

std::int64_t count_status(const std::vector<LogLine>& log, int status) {
  return std::count_if(log.begin(), log.end(),
                       [&](const LogLine& l) { return l.status == status; });
}

bool NginxStaging::installed() {
  return have_executable(kNginx) && have_executable(kOpenssl);
}

std::unique_ptr<NginxStaging> start_nginx(NginxOptions options) {
  if (!require_tool(NginxStaging::installed(), "nginx or openssl", "make deps-test"))
    return nullptr;
  auto nginx = std::make_unique<NginxStaging>(std::move(options));
  if (!nginx->started()) {
    FAIL_CHECK("nginx did not start: " << nginx->error());
    return nullptr;
  }
  return nginx;
}

NginxStaging::NginxStaging(NginxOptions options) : options_(std::move(options)) {
  write_file(dir_.file("ok.txt"), "ok\n");
  if (options_.https) {
    pki_.emplace(dir_.file(""));
    if (!pki_->ok()) {
      error_ = "the test certificates: " + pki_->error();
      return;
    }
  }
  for (int tries = 0; tries < kPortTries && !started_; ++tries) {
    // Ports found free may be taken before nginx binds them: then it exits, and another pair.
    const int http_port = options_.http ? unused_port() : 0;
    const int https_port = options_.https ? unused_port() : 0;
    started_ = start_on(http_port, https_port);
  }
}

NginxStaging::~NginxStaging() = default;

bool NginxStaging::start_on(int http_port, int https_port) {
  write_file(dir_.file("nginx.conf"), config(http_port, https_port));
  std::filesystem::remove(dir_.file("nginx.pid"));
  process_.emplace(kNginx,
                   std::vector<std::string>{"-p", dir_.file(""), "-e", dir_.file("error.log"), "-c",
                                            dir_.file("nginx.conf"), "-g", "daemon off;"},
                   dir_, "nginx");
  const std::string pid = std::to_string(process_->pid());
  bool exited = false;
  // nginx writes its pid file after binding every listener: a port that answers before that
  // is someone else's.
  const bool ready = wait_until(
      [&] {
        if (!process_->running()) return exited = true;
        if (read_file(dir_.file("nginx.pid")) != pid + "\n") return false;
        return (!http_port || accepts_connections(http_port)) &&
               (!https_port || accepts_connections(https_port));
      },
      kNginxReadyMs);
  if (ready && !exited) {
    http_port_ = http_port;
    https_port_ = https_port;
    error_.clear();
    return true;
  }
  error_ = "nginx did not start: " + read_file(dir_.file("error.log")) + process_->err();
  process_.reset();
  return false;
}

std::string NginxStaging::config(int http_port, int https_port) const {
  const std::string d = dir_.file("");
  std::string c = "master_process off;\npid " + d + "nginx.pid;\nerror_log " + d +
                  "error.log warn;\nevents { worker_connections 4096; }\nhttp {\n";
  c += "  log_format staging '$status\\t$scheme\\t$ssl_client_verify\\t$ssl_client_s_dn\\t"
       "$request_uri';\n";
  c += "  access_log " + d + "access.log staging;\n";
  // The logs a trace replay reads (docs/TRACE.md): combined, and combined with $msec.
  c += "  log_format timed '$remote_addr - $remote_user [$time_local] \"$request\" $status "
       "$body_bytes_sent \"$http_referer\" \"$http_user_agent\" $msec';\n";
  c += "  access_log " + d + "combined.log combined;\n";
  c += "  access_log " + d + "timed.log timed;\n";
  // And one with the tenant's key, as a log made to replay tenants captures it.
  c += "  log_format keyed '" + std::string(NginxStaging::kKeyedFormat) + "';\n";
  c += "  access_log " + d + "keyed.log keyed;\n";
  for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    c += "  " + std::string(temp) + "_temp_path " + d + temp + ";\n";
  c += "  keepalive_requests 1000000;\n  keepalive_timeout 300s;\n";
  if (!options_.limit_rate.empty()) {
    // One zone for the whole fleet on every listener: the key is the same for every request
    // (an empty key would never be limited).
    c += "  limit_req_zone $server_addr zone=fleet:1m rate=" + options_.limit_rate +
         ";\n  limit_req_status 429;\n  limit_req_log_level info;\n";
  }
  const std::string answers = locations(options_, d);
  if (http_port)
    c +=
        "  server {\n    listen 127.0.0.1:" + std::to_string(http_port) + ";\n" + answers + "  }\n";
  if (https_port) {
    c += "  server {\n    listen 127.0.0.1:" + std::to_string(https_port) + " ssl;\n" +
         "    ssl_certificate " + pki_->server_cert() + ";\n    ssl_certificate_key " +
         pki_->server_key() + ";\n";
    if (options_.verify_client)
      c += "    ssl_client_certificate " + pki_->ca_cert() + ";\n    ssl_verify_client on;\n";
    c += answers + "  }\n";
  }
  return c + "}\n";
}

std::string NginxStaging::http_url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(http_port_) + path;
}

std::string NginxStaging::https_url(const std::string& path, const std::string& host) const {
  return "https://" + host + ":" + std::to_string(https_port_) + path;
}

std::vector<LogLine> NginxStaging::stop_and_read_log() {
  if (process_) {
    process_->signal(SIGQUIT);  // graceful: finishes what it is serving and flushes the log
    process_->wait(kNginxReadyMs);
    process_.reset();
  }
  std::vector<LogLine> log;
  std::istringstream in(read_file(dir_.file("access.log")));
  for (std::string line; std::getline(in, line);) {
    const auto f = split(line, '\t');
    if (f.size() != 5) continue;
    log.push_back({std::atoi(f[0].c_str()), f[1], f[2], f[3], f[4]});
  }
  return log;
}

}  // namespace support
