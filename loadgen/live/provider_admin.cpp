#include "live/provider_admin.hpp"

#include <curl/curl.h>

#include <cstdio>

#include "live/http/curl_handles.hpp"
#include "results.hpp"
#include "url_redaction.hpp"

namespace stampede {
namespace {

constexpr long kAdminTimeoutMs = 10'000;

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

Parsed<ProviderStats> parse_provider_stats(const nlohmann::json& j) {
  try {
    ProviderStats s;
    s.bin_ns = j.at("bin_ns").get<std::int64_t>();
    s.time_scale = j.at("time_scale").get<double>();
    s.clock_ns = j.value("clock_ns", std::int64_t{0});
    s.requests = j.at("requests").get<std::int64_t>();
    // By name: a provider from before an outcome was added sends one label fewer.
    s.by_outcome = BinnedCounts::from_json(j.at("arrivals_by_outcome"), outcome_labels());
    s.by_send = BinnedCounts::from_json(j.at("arrivals_by_send"));
    if (const auto it = j.find("reasons"); it != j.end() && it->is_object()) s.reasons = *it;
    if (const auto it = j.find("upstream"); it != j.end() && it->is_object()) s.upstream = *it;
    if (const auto it = j.find("models"); it != j.end() && it->is_object()) s.models = *it;
    if (const auto it = j.find("connections_refused"); it != j.end())
      s.connections_refused = it->get<std::int64_t>();
    if (s.by_send.labels() != send_labels().size())
      return Parsed<ProviderStats>::fail("its histograms do not have the send labels");
    return Parsed<ProviderStats>::ok(std::move(s));
  } catch (const std::exception&) {
    // The parser's words ("[json.exception...] key 'bin_ns' not found") tell a user nothing:
    // what answered is something else than a fakeprovider's stats.
    return Parsed<ProviderStats>::fail(
        "not a fakeprovider stats document (no bin_ns, time_scale, requests and histograms)");
  }
}

Parsed<ProviderSettings> parse_provider_settings(const nlohmann::json& j) {
  try {
    ProviderSettings s;
    s.port = j.at("port").get<int>();
    s.listen = j.at("listen").get<std::string>();
    s.provider = j.at("provider");
    s.document = j;
    return Parsed<ProviderSettings>::ok(std::move(s));
  } catch (const std::exception&) {
    return Parsed<ProviderSettings>::fail(
        "not a fakeprovider settings document (no port, listen and provider)");
  }
}

Parsed<std::string> ProviderAdmin::call(const char* method, const std::string& path,
                                        long* status_out) const {
  CurlEasy easy(curl_easy_init());
  if (!easy) return Parsed<std::string>::fail("curl_easy_init failed");
  std::string url = base_.text;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += path;
  std::string body;
  char error[CURL_ERROR_SIZE] = {};
  CurlList headers;
  if (!token_.empty())
    headers.reset(curl_slist_append(nullptr, ("Authorization: Bearer " + token_).c_str()));
  CURL* e = easy.get();
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
  if (std::string_view(method) == "POST") curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, kAdminTimeoutMs);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &body);
  if (headers) curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
  const std::string what = std::string(method) + " " + url;
  if (const CURLcode rc = curl_easy_perform(e); rc != CURLE_OK) {
    return Parsed<std::string>::fail(what + ": " +
                                     (error[0] ? std::string(error) : curl_easy_strerror(rc)));
  }
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  if (status_out != nullptr) *status_out = status;
  if (status < 200 || status > 299)
    return Parsed<std::string>::fail(what + ": answered " + std::to_string(status));
  return Parsed<std::string>::ok(std::move(body));
}

std::optional<std::string> ProviderAdmin::reset(std::optional<std::int64_t> at_epoch_ns) const {
  std::string path = "/admin/reset";
  if (at_epoch_ns) {
    char at[40];
    std::snprintf(at, sizeof at, "?at=%lld.%09lld",
                  static_cast<long long>(*at_epoch_ns / 1'000'000'000),
                  static_cast<long long>(*at_epoch_ns % 1'000'000'000));
    path += at;
  }
  const auto r = call("POST", path);
  if (!r) return r.error();
  return std::nullopt;
}

Parsed<nlohmann::json> ProviderAdmin::get_json(const std::string& path, long* status) const {
  const auto body = call("GET", path, status);
  if (!body) return Parsed<nlohmann::json>::fail(body.error());
  auto j = nlohmann::json::parse(*body, nullptr, false);
  if (j.is_discarded()) return Parsed<nlohmann::json>::fail("GET " + path + ": not JSON");
  return Parsed<nlohmann::json>::ok(std::move(j));
}

Parsed<nlohmann::json> ProviderAdmin::stats_json() const {
  return get_json("/admin/stats");
}

Parsed<nlohmann::json> ProviderAdmin::results_json() const {
  return get_json("/admin/results");
}

Parsed<ProviderSettings> ProviderAdmin::settings(long* status) const {
  const auto j = get_json("/admin/settings", status);
  if (!j) return Parsed<ProviderSettings>::fail(j.error());
  return parse_provider_settings(*j);
}

StatsAnswer ProviderAdmin::check_stats() const {
  long status = 0;
  const auto j = get_json("/admin/stats", &status);
  auto stats = j ? parse_provider_stats(*j) : Parsed<ProviderStats>::fail(j.error());
  if (stats) return {*stats, {}, false};
  StatsAnswer a{std::nullopt, stats.error(), false};
  // 401 and 403 are a fakeprovider's own answers to a wrong --provider-admin-token.
  if (status == 0 || status == 401 || status == 403) return a;
  a.foreign = true;
  if (status < 200 || status > 299) {
    a.error = "GET /admin/stats answered " + std::to_string(status);
  } else if (!j) {
    a.error =
        "GET /admin/stats answered " + std::to_string(status) + " with a body that is not JSON";
  } else {
    a.error = "GET /admin/stats answered " + std::to_string(status) +
              " with JSON that is not its stats: " + stats.error();
  }
  return a;
}

Parsed<ProviderStats> ProviderAdmin::stats() const {
  const auto j = stats_json();
  if (!j) return Parsed<ProviderStats>::fail(j.error());
  return parse_provider_stats(*j);
}

// Where the admin API is: the likely slips are its port and the data port in its place.
constexpr const char* kWhereTheAdminIs =
    "give --provider-admin fakeprovider's admin address, its --admin-listen (default "
    "http://127.0.0.1:8081, which stays there when --listen moves the data port)";

std::string not_a_fakeprovider(const ProviderAdmin& admin, const StatsAnswer& answer) {
  return "--provider-admin " + redact_url(admin.url().text) + " is not a fakeprovider admin API (" +
         answer.error + "), the data port maybe; " + kWhereTheAdminIs;
}

std::string admin_unreachable(const std::string& error) {
  return "provider admin unreachable: " + error + "; is fakeprovider running? " + kWhereTheAdminIs;
}

}  // namespace stampede
