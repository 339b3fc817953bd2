#include "live/probe.hpp"

#include <curl/curl.h>

#include <memory>

namespace stampede {
namespace {

struct EasyDeleter {
  void operator()(CURL* e) const { curl_easy_cleanup(e); }
};

}  // namespace

std::string ProbedTarget::resolve_entry(const TargetUrl& url) const {
  const bool v6 = address.find(':') != std::string::npos;
  return url.host + ":" + std::to_string(url.port) + ":" + (v6 ? "[" + address + "]" : address);
}

Parsed<ProbedTarget> probe_target(const TargetUrl& url, std::int64_t timeout_ms) {
  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  if (!easy) return Parsed<ProbedTarget>::fail("curl_easy_init failed");
  char error[CURL_ERROR_SIZE] = {};
  CURL* e = easy.get();
  curl_easy_setopt(e, CURLOPT_URL, url.text.c_str());
  curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_NOPROXY, "*");  // the fleet goes straight to the target
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_ms));
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  if (const CURLcode rc = curl_easy_perform(e); rc != CURLE_OK) {
    return Parsed<ProbedTarget>::fail("cannot connect to " + url.text + ": " +
                                      (error[0] ? std::string(error) : curl_easy_strerror(rc)));
  }
  char* ip = nullptr;
  long port = 0;
  if (curl_easy_getinfo(e, CURLINFO_PRIMARY_IP, &ip) != CURLE_OK || !ip || !*ip ||
      curl_easy_getinfo(e, CURLINFO_PRIMARY_PORT, &port) != CURLE_OK || port <= 0)
    return Parsed<ProbedTarget>::fail("connected to " + url.text + " but libcurl has no address");
  return Parsed<ProbedTarget>::ok({ip, static_cast<int>(port)});
}

}  // namespace stampede
