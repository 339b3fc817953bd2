#include "live/probe.hpp"

#include <curl/curl.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>

#include <string_view>

#include "live/http/curl_handles.hpp"
#include "live/http/curl_transport.hpp"
#include "one_line.hpp"
#include "url_redaction.hpp"

namespace stampede {
namespace {

std::string host_port(const TargetUrl& url) {
  const bool v6 = url.host.find(':') != std::string::npos;
  return (v6 ? "[" + url.host + "]" : url.host) + ":" + std::to_string(url.port);
}

std::string client_certificate(const TlsSettings& tls) {
  return "--cert " + tls.cert_file + (tls.key_file.empty() ? "" : ", --key " + tls.key_file);
}

// The one line for a failed handshake: who, what, libcurl's reason, and what to give.
std::string tls_failure(const TargetUrl& url, const TlsSettings& tls, CURLcode rc,
                        const std::string& reason) {
  const std::string who = host_port(url);
  switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION: {
      const std::string rehash =
          tls.ca_path.empty() ? ""
                              : "; a CA directory needs OpenSSL's hashed names: openssl rehash DIR";
      return "TLS: the certificate of " + who + " is not trusted: " + reason + " (trusting " +
             describe_ca(tls) + rehash +
             "); give the CA that signed it with --cacert FILE or --capath DIR, or skip the "
             "check with --insecure";
    }
    case CURLE_SSL_CACERT_BADFILE:
      return "TLS: cannot load the CAs for " + who + " from " + describe_ca(tls) + ": " + reason;
    case CURLE_SSL_CERTPROBLEM:
      return "TLS: cannot use the client certificate for " + who + " (" + client_certificate(tls) +
             "): " + reason;
    default: {
      const bool plain = reason.find("wrong version number") != std::string::npos;
      return "TLS: the handshake with " + who + " failed: " + reason +
             (plain ? "; does it speak plain http?" : "") +
             (tls.cert_file.empty() && !plain
                  ? "; if it wants a client certificate (mTLS), give --cert FILE and --key FILE"
                  : "");
    }
  }
}

// The server's CertificateRequest shows only inside OpenSSL: libcurl answers it with the
// configured certificate, or with none and goes on (the server decides later, nginx with a
// 400 to every request). A callback OpenSSL calls for a request when no certificate is set
// notes it; OpenSSL only, and only the OpenSSL this was built with.
bool libcurl_uses_our_openssl() {
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  if (!info || !info->ssl_version) return false;
  const std::string prefix = "OpenSSL/" + std::to_string(OPENSSL_VERSION_MAJOR) + ".";
  return std::string_view(info->ssl_version).substr(0, prefix.size()) == prefix;
}

int certificate_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

int note_certificate_request(SSL* ssl, X509**, EVP_PKEY**) {
  auto* asked = static_cast<bool*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), certificate_index()));
  if (asked) *asked = true;
  return 0;  // no certificate: the handshake goes on
}

CURLcode watch_certificate_request(CURL*, void* ssl_ctx, void* asked) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  SSL_CTX_set_ex_data(ctx, certificate_index(), asked);
  SSL_CTX_set_client_cert_cb(ctx, &note_certificate_request);
  return CURLE_OK;
}

}  // namespace

std::string ProbedTarget::resolve_entry(const TargetUrl& url) const {
  const bool v6 = address.find(':') != std::string::npos;
  return url.host + ":" + std::to_string(url.port) + ":" + (v6 ? "[" + address + "]" : address);
}

Parsed<ProbedTarget> probe_target(const TargetUrl& url, const TlsSettings& tls,
                                  std::int64_t timeout_ms) {
  using Result = Parsed<ProbedTarget>;
  CurlEasy easy(curl_easy_init());
  if (!easy) return Result::fail("curl_easy_init failed");
  char error[CURL_ERROR_SIZE] = {};
  CURL* e = easy.get();
  curl_easy_setopt(e, CURLOPT_URL, url.text.c_str());
  curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_NOPROXY, "*");  // the fleet goes straight to the target
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  const bool https = url.scheme == "https";
  bool certificate_asked = false;
  if (https) {
    apply_tls(e, tls);
    if (tls.cert_file.empty() && libcurl_uses_our_openssl()) {
      curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, &watch_certificate_request);
      curl_easy_setopt(e, CURLOPT_SSL_CTX_DATA, &certificate_asked);
    }
  }
  if (const CURLcode rc = curl_easy_perform(e); rc != CURLE_OK) {
    const std::string reason = error[0] ? std::string(error) : curl_easy_strerror(rc);
    if (https && transport_error_of(rc) == TransportError::kTls)
      return Result::fail(one_line(tls_failure(url, tls, rc, reason)));
    return Result::fail(
        one_line("target unreachable: cannot connect to " + redact_url(url.text) + ": " + reason));
  }
  if (certificate_asked)
    return Result::fail("TLS: " + host_port(url) +
                        " asks for a client certificate (mTLS) and none was given; give "
                        "--cert FILE and --key FILE");
  char* ip = nullptr;
  long port = 0;
  if (curl_easy_getinfo(e, CURLINFO_PRIMARY_IP, &ip) != CURLE_OK || !ip || !*ip ||
      curl_easy_getinfo(e, CURLINFO_PRIMARY_PORT, &port) != CURLE_OK || port <= 0)
    return Result::fail("target unreachable: connected to " + redact_url(url.text) +
                        " but libcurl has no address");
  return Result::ok({ip, static_cast<int>(port)});
}

}  // namespace stampede
