#include "live/http/tls_settings.hpp"

#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "live/http/curl_handles.hpp"

namespace stampede {
namespace {

// A PEM file of certificates or a key is small; a CA bundle is a few hundred kB. A file
// larger than this is not one.
constexpr std::size_t kMaxPemBytes = 16 * 1024 * 1024;

// A path and the flag or variable it came from, for the errors.
struct Source {
  std::string name;  // "--cacert", "SSL_CERT_FILE"...
  std::string path;
};

struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) close(fd);
  }
};

std::string quoted(const Source& s) {
  return s.name + ": '" + s.path + "'";
}

// The whole file: a regular file (a pipe read here would be empty for libcurl afterwards).
Parsed<std::string> read_regular_file(const Source& s) {
  const Descriptor file{open(s.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  const int fd = file.fd;
  if (fd < 0) return Parsed<std::string>::fail(quoted(s) + " cannot be read: " + strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Parsed<std::string>::fail(quoted(s) + " is not a regular file");
  if (static_cast<std::size_t>(st.st_size) > kMaxPemBytes)
    return Parsed<std::string>::fail(quoted(s) + " is larger than a PEM file would be");
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Parsed<std::string>::fail(quoted(s) + " cannot be read: " + strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return Parsed<std::string>::ok(std::move(text));
}

bool holds(std::string_view text, std::string_view marker) {
  return text.find(marker) != std::string_view::npos;
}

bool holds_certificate(std::string_view pem) {
  // -----BEGIN CERTIFICATE-----, and OpenSSL's TRUSTED and X509 variants.
  return holds(pem, "-----BEGIN ") && holds(pem, "CERTIFICATE-----");
}

bool holds_key(std::string_view pem) {
  return holds(pem, "PRIVATE KEY-----");
}

bool holds_encrypted_key(std::string_view pem) {
  return holds(pem, "-----BEGIN ENCRYPTED PRIVATE KEY-----") ||
         holds(pem, "Proc-Type: 4,ENCRYPTED");
}

std::optional<std::string> check_certificates(const Source& s, const std::string& what) {
  auto text = read_regular_file(s);
  if (!text) return text.error();
  if (!holds_certificate(*text))
    return quoted(s) + " holds no PEM certificate (-----BEGIN CERTIFICATE-----); " + what +
           " must be PEM";
  return std::nullopt;
}

std::optional<std::string> check_key(const Source& s, std::string_view pem) {
  if (holds_encrypted_key(pem))
    return quoted(s) +
           " holds an encrypted key, and no one could type its passphrase; decrypt it "
           "(openssl pkey -in KEY -out PLAIN.pem) and keep that file private";
  return std::nullopt;
}

// DIR[:DIR...], as OpenSSL reads a CA path: each a directory this process can list.
std::optional<std::string> check_ca_dirs(const Source& s) {
  std::string_view rest = s.path;
  while (true) {
    const auto colon = rest.find(':');
    const Source dir{s.name, std::string(rest.substr(0, colon))};
    if (dir.path.empty())
      return s.name + ": '" + s.path + "' has an empty directory in it; expected DIR[:DIR...]";
    DIR* d = opendir(dir.path.c_str());
    if (!d) return quoted(dir) + " is not a readable directory: " + strerror(errno);
    closedir(d);
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

// The variable's value; a variable set empty counts as unset, as curl's getenv has it.
std::optional<std::string> variable(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

bool from_flags(const TlsSettings& tls) {
  return tls.ca_from.rfind("--", 0) == 0;
}

std::string ca_file_source(const TlsSettings& tls) {
  return from_flags(tls) ? "--cacert" : tls.ca_from;
}

std::string ca_path_source(const TlsSettings& tls) {
  return from_flags(tls) ? "--capath" : tls.ca_from;
}

}  // namespace

std::string TlsFlags::first_given() const {
  if (!cacert.empty()) return "--cacert";
  if (!capath.empty()) return "--capath";
  if (insecure) return "--insecure";
  if (!cert.empty()) return "--cert";
  if (!key.empty()) return "--key";
  return "";
}

Parsed<TlsSettings> resolve_tls(const TlsFlags& flags, const EnvLookup& env) {
  using Result = Parsed<TlsSettings>;
  if (!flags.key.empty() && flags.cert.empty())
    return Result::fail("--key: a key without its certificate; give the certificate with --cert");
  if (flags.insecure && (!flags.cacert.empty() || !flags.capath.empty()))
    return Result::fail(std::string("--insecure: skips verifying the server, so ") +
                        (flags.cacert.empty() ? "--capath" : "--cacert") +
                        " would do nothing; give one or the other");
  TlsSettings tls;
  tls.verify_peer = !flags.insecure;
  tls.cert_file = flags.cert;
  tls.key_file = flags.key;
  if (!flags.cacert.empty() || !flags.capath.empty()) {
    tls.ca_file = flags.cacert;
    tls.ca_path = flags.capath;
    tls.ca_from = flags.cacert.empty() ? "--capath" : "--cacert";
    return Result::ok(std::move(tls));
  }
  if (flags.insecure) return Result::ok(std::move(tls));
  // curl's tool (tool_operate.c): one variable, the first set, in this order.
  if (auto bundle = variable(env, "CURL_CA_BUNDLE")) {
    tls.ca_file = *bundle;
    tls.ca_from = "CURL_CA_BUNDLE";
  } else if (auto dir = variable(env, "SSL_CERT_DIR")) {
    tls.ca_path = *dir;
    tls.ca_from = "SSL_CERT_DIR";
  } else if (auto file = variable(env, "SSL_CERT_FILE")) {
    tls.ca_file = *file;
    tls.ca_from = "SSL_CERT_FILE";
  }
  return Result::ok(std::move(tls));
}

std::optional<std::string> check_tls_files(const TlsSettings& tls) {
  // A variable set long ago for other programs is easily forgotten: say why it is read.
  const std::string why = from_flags(tls) ? ""
                                          : " (read as curl reads it, when neither --cacert nor "
                                            "--capath is given)";
  if (!tls.ca_file.empty()) {
    if (auto e = check_certificates({ca_file_source(tls), tls.ca_file}, "the CA certificates"))
      return *e + why;
  }
  if (!tls.ca_path.empty()) {
    if (auto e = check_ca_dirs({ca_path_source(tls), tls.ca_path})) return *e + why;
  }
  if (tls.cert_file.empty()) return std::nullopt;
  const Source cert{"--cert", tls.cert_file};
  auto cert_text = read_regular_file(cert);
  if (!cert_text) return cert_text.error();
  if (!holds_certificate(*cert_text))
    return quoted(cert) + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
  if (tls.key_file.empty()) {
    if (!holds_key(*cert_text))
      return quoted(cert) + " holds no private key; give the key with --key FILE";
    return check_key(cert, *cert_text);
  }
  const Source key{"--key", tls.key_file};
  auto key_text = read_regular_file(key);
  if (!key_text) return key_text.error();
  if (!holds_key(*key_text))
    return quoted(key) + " holds no PEM private key (-----BEGIN PRIVATE KEY-----)";
  return check_key(key, *key_text);
}

void apply_tls(void* e, const TlsSettings& tls) {
  // Only what was given: the rest stays libcurl's default, as with curl's own flags.
  if (!tls.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.ca_path.empty()) curl_easy_setopt(e, CURLOPT_CAPATH, tls.ca_path.c_str());
  if (!tls.verify_peer) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!tls.cert_file.empty()) curl_easy_setopt(e, CURLOPT_SSLCERT, tls.cert_file.c_str());
  if (!tls.key_file.empty()) curl_easy_setopt(e, CURLOPT_SSLKEY, tls.key_file.c_str());
}

namespace {

std::string libcurl_default(CURLINFO what) {
  CurlEasy easy(curl_easy_init());
  char* path = nullptr;
  if (!easy || curl_easy_getinfo(easy.get(), what, &path) != CURLE_OK || !path) return "";
  return path;
}

}  // namespace

// CURLINFO_CAINFO and CURLINFO_CAPATH came with libcurl 7.84.
std::string libcurl_default_ca_file() {
  return libcurl_default(CURLINFO_CAINFO);
}

std::string libcurl_default_ca_path() {
  return libcurl_default(CURLINFO_CAPATH);
}

std::string describe_ca(const TlsSettings& tls) {
  std::string given;
  if (!tls.ca_file.empty()) given = ca_file_source(tls) + " " + tls.ca_file;
  if (!tls.ca_path.empty())
    given += (given.empty() ? "" : " and ") + ca_path_source(tls) + " " + tls.ca_path;
  if (!given.empty()) return given;
  const std::string file = libcurl_default_ca_file();
  const std::string builtin = file.empty() ? "" : " in " + file;
  return "libcurl's default CAs" + builtin;
}

}  // namespace stampede
