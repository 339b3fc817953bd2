#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

// nginx on loopback as a stand-in staging API, over http and https, with certificates the test
// makes itself with the openssl command: what `loadgen run --url https://staging...` meets in
// a pipeline, without a staging.
namespace support {

// A CA, a server certificate signed by it for 127.0.0.1 and localhost (subjectAltName), and a
// client certificate signed by it, made with the openssl command in a directory; and that
// directory's ca/ holding the CA under its OpenSSL hash (openssl rehash), as --capath and
// SSL_CERT_DIR want it. EC P-256 keys, unencrypted, valid for two days.
class TestPki {
 public:
  explicit TestPki(std::string dir);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // the openssl step that failed, and why

  std::string ca_cert() const { return dir_ + "/ca.pem"; }
  std::string ca_dir() const { return dir_ + "/ca"; }
  std::string server_cert() const { return dir_ + "/server.pem"; }
  std::string server_key() const { return dir_ + "/server.key"; }
  std::string client_cert() const { return dir_ + "/client.pem"; }
  std::string client_key() const { return dir_ + "/client.key"; }
  // The client certificate and its key in one file, as --cert alone takes it.
  std::string client_cert_and_key() const { return dir_ + "/client-with-key.pem"; }
  static constexpr const char* kClientName = "stampede test client";

 private:
  bool openssl(const std::vector<std::string>& args);

  std::string dir_;
  std::string error_;
  int steps_ = 0;
};

struct NginxOptions {
  std::string limit_rate{};    // limit_req_zone rate, e.g. "20r/s"; empty: no limit
  int burst = 0;               // limit_req burst, nodelay: this many over the rate go at once
  bool retry_after = true;     // a 429 says Retry-After: 1 (from an error_page 429 location)
  bool http = true;            // a plain http listener
  bool https = false;          // an https listener with the PKI's server certificate
  bool verify_client = false;  // on the https listener: ssl_verify_client on, the PKI's CA
  // kSilentPath proxies here, to a listener that never answers (support/ports.hpp's
  // SilentListener); 0: no such
  // location.
  int silent_upstream_port = 0;
};

// One access-log line.
struct LogLine {
  int status = 0;
  std::string scheme;         // http or https
  std::string client_verify;  // $ssl_client_verify: SUCCESS, NONE, FAILED:...; "-" over http
  std::string client_dn;      // $ssl_client_s_dn, "-" without a client certificate
  std::string uri;
};

std::int64_t count_status(const std::vector<LogLine>& log, int status);

// nginx as the current user (`nginx -p DIR -c nginx.conf -g 'daemon off;'`, one process) on
// free loopback ports, picked again when one was taken meanwhile, and ready when its pid file
// is written (its listeners are bound) and each accepts a connection. Every path answers 200
// "ok" behind one limit_req zone shared by both listeners (429 when over it), except
// kMissingPath, which answers 404, and kSilentPath (with silent_upstream_port), which waits on
// an upstream that never answers. Logs each request (see LogLine).
class NginxStaging {
 public:
  explicit NginxStaging(NginxOptions options = {});
  ~NginxStaging();
  NginxStaging(const NginxStaging&) = delete;
  NginxStaging& operator=(const NginxStaging&) = delete;

  bool started() const { return started_; }
  const std::string& error() const { return error_; }  // why it did not start
  std::string http_url(const std::string& path = "/v1") const;
  int http_port() const { return http_port_; }
  std::string https_url(const std::string& path = "/v1",
                        const std::string& host = "127.0.0.1") const;
  // The certificates (made only with https).
  const TestPki& pki() const { return *pki_; }
  // A file in its temporary directory, for a test's own files.
  std::string file(const std::string& name) const { return dir_.file(name); }
  // Its access log in nginx's combined format, and in combined with $msec after it: what a
  // trace replay reads. Complete after stop_and_read_log().
  std::string combined_log() const { return dir_.file("combined.log"); }
  std::string msec_log() const { return dir_.file("timed.log"); }
  // And in kKeyedFormat: each request's X-Api-Key ("-" without one) and $msec.
  std::string keyed_log() const { return dir_.file("keyed.log"); }
  static constexpr const char* kKeyedFormat =
      R"($remote_addr "$http_x_api_key" $msec "$request" $status)";
  // Stops nginx (gracefully, so the log is complete) and returns its access log.
  std::vector<LogLine> stop_and_read_log();

  static bool installed();
  static constexpr const char* kMissingPath = "/missing";
  static constexpr const char* kSilentPath = "/silent";

 private:
  std::string config(int http_port, int https_port) const;
  bool start_on(int http_port, int https_port);

  NginxOptions options_;
  TempDir dir_;
  std::optional<TestPki> pki_;
  std::optional<Process> process_;
  int http_port_ = 0, https_port_ = 0;
  bool started_ = false;
  std::string error_;
};

// nginx started with these options; or null, after skipping (nginx or openssl missing, outside
// CI: support/tools.hpp) or failing the test (it did not start).
std::unique_ptr<NginxStaging> start_nginx(NginxOptions options = {});

}  // namespace support
