#pragma once

#include <functional>
#include <optional>
#include <string>

#include "parsed.hpp"

namespace stampede {

// The TLS flags of `loadgen run`, as given (each member defaulted, for designated
// initializers).
struct TlsFlags {
  std::string cacert{};   // --cacert FILE
  std::string capath{};   // --capath DIR[:DIR...]
  bool insecure = false;  // --insecure, -k
  std::string cert{};     // --cert FILE
  std::string key{};      // --key FILE
  // The first flag given, for the errors of a target that has no TLS; empty: none.
  std::string first_given() const;
};

// What every https connection of a run (the probe's and each client's) is made with.
struct TlsSettings {
  bool verify_peer = true;  // false: --insecure, neither the chain nor the name is checked
  std::string ca_file;      // CURLOPT_CAINFO; empty: libcurl's built-in bundle
  std::string ca_path;      // CURLOPT_CAPATH; empty: libcurl's built-in directory
  // The flag or variable the CAs came from ("--cacert", "SSL_CERT_FILE"...); empty: libcurl's.
  std::string ca_from;
  std::string cert_file;  // CURLOPT_SSLCERT, PEM; empty: no client certificate
  std::string key_file;   // CURLOPT_SSLKEY, PEM; empty: the key is in cert_file
};

// getenv, or a stand-in for tests.
using EnvLookup = std::function<const char*(const char*)>;

// The settings curl 7.88's tool would use: the flags; when neither --cacert nor --capath nor
// --insecure is given, the CAs of the first of CURL_CA_BUNDLE (a file), SSL_CERT_DIR (a
// directory) and SSL_CERT_FILE (a file) that is set and not empty, and only that one. Refuses
// --key without --cert, and --insecure with --cacert or --capath (which it would ignore).
Parsed<TlsSettings> resolve_tls(const TlsFlags& flags, const EnvLookup& env);

// Reads what the settings name, before any load: each CA file and client certificate a
// readable regular PEM file of certificates, each CA directory readable, the client key
// present (in --key or in the --cert file) and not encrypted (nothing could type its
// passphrase). The error names the flag or variable and the path, never the contents.
std::optional<std::string> check_tls_files(const TlsSettings& tls);

// Sets a libcurl easy handle's TLS options from the settings (a CURL*, which libcurl declares
// as void: this header stays free of libcurl's).
void apply_tls(void* easy, const TlsSettings& tls);

// libcurl's built-in CA bundle and directory (CURLINFO_CAINFO, CURLINFO_CAPATH); empty: none.
std::string libcurl_default_ca_file();
std::string libcurl_default_ca_path();

// Where the CAs a run trusts come from, for a message: "--cacert /x/ca.pem" or "libcurl's
// default (/etc/ssl/certs/ca-certificates.crt)".
std::string describe_ca(const TlsSettings& tls);

}  // namespace stampede
