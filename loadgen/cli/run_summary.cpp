#include "cli/run_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "cli/fleet_outputs.hpp"
#include "cli/live_comparison.hpp"
#include "sim_divergence.hpp"
#include "terminal_summary.hpp"

namespace stampede {

std::string format_harness_line(const nlohmann::json& live) {
  // The loops' wait for a CPU tells a machine too busy for the fleet from a late timer.
  char waited[64] = "";
  if (const auto w = live.value("cpu_wait_s", nlohmann::json()); w.is_number())
    std::snprintf(waited, sizeof waited, ", %.2f s waiting for a CPU", w.get<double>());
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "harness: %lld loops (%s), %.2f s user + %.2f s system CPU over %.2f s%s; send "
                "lateness (wake plus queue in the client) p50 %.3f ms, p99 %.3f ms\n",
                static_cast<long long>(live.value("loops", 0)),
                live.value("http_client", std::string()).c_str(), live.value("cpu_user_s", 0.0),
                live.value("cpu_sys_s", 0.0), live.value("wall_s", 0.0), waited,
                live.value("send_lateness_p50_ms", 0.0), live.value("send_lateness_p99_ms", 0.0));
  return buf;
}

std::string format_processes_line(const nlohmann::json& live) {
  if (!live.contains("processes")) return "";
  std::string runs, supervisor;
  for (const auto& p : live.at("processes")) {
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f MiB",
                  static_cast<double>(p.value("max_rss_kib", std::int64_t{0})) / 1024);
    if (p.value("role", "") == "supervisor") {
      supervisor = std::string("; supervisor ") + mib;
    } else {
      runs += (runs.empty() ? "" : ", ") + std::string("shard ") +
              std::to_string(p.value("shard", std::int64_t{0})) + " " + mib;
    }
  }
  return "memory: peak RSS " + runs + supervisor + "\n";
}

std::string format_divergence(const nlohmann::json& doc) {
  const auto comparison = doc.value("comparison", nlohmann::json::object());
  const auto a = comparison.value("arrivals_per_second", nlohmann::json::object());
  const double divergence = a.value("sim_divergence", 0.0);
  if (divergence <= kLoudDivergence) return "";
  const auto live = doc.value("live", nlohmann::json::object());
  const auto summary = doc.value("summary", nlohmann::json::object());
  char waited[32] = "an unknown time";  // where the kernel keeps no such figure
  if (const auto w = live.value("cpu_wait_s", nlohmann::json()); w.is_number())
    std::snprintf(waited, sizeof waited, "%.2f s", w.get<double>());
  // With --provider-admin the run took its limits from the provider itself: not a cause.
  const bool settings_read = doc.contains("provider") && doc.at("provider").contains("settings");
  const char* settings =
      settings_read
          ? "  - not the provider's settings: loadgen read them from its admin API and ran by "
            "them\n"
          : "  - the provider's settings: it may not enforce the limits and outages of the "
            "'provider:' line below; start fakeprovider from the same scenario, and give "
            "--provider-admin so loadgen checks\n";
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      "DIVERGED: %.1f%% of the requests arrived in another second than the simulation of the "
      "same scenario and seed has them (sim_divergence %.3f, more than %.2f): this run measured "
      "something other than its scenario. It may be:\n"
      "%s"
      "  - the harness's CPU: its loops waited %s for a CPU over %.2f s (the harness line "
      "below); a --time-scale nearer 1 gives each send more room\n"
      "  - connection errors: %.1f%% of the requests were refused or reset before an answer\n",
      100 * divergence, divergence, kLoudDivergence, settings, waited, live.value("wall_s", 0.0),
      100 * summary.value("status_ratio_connect_error", 0.0));
  return buf;
}

std::string format_streams_line(const nlohmann::json& doc) {
  if (!doc.contains("streams")) return "";
  const auto& s = doc.at("streams");
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "streams: time to first token p50 %.1f ms, p99 %.1f ms; %lld completed, %lld "
                "broken (retried as failures), %lld tokens; duration p50 %.1f ms, p99 %.1f ms\n",
                s.value("first_token_p50_ms", 0.0), s.value("first_token_p99_ms", 0.0),
                static_cast<long long>(s.value("completed", std::int64_t{0})),
                static_cast<long long>(s.value("broken", std::int64_t{0})),
                static_cast<long long>(s.value("tokens_received", std::int64_t{0})),
                s.value("duration_p50_ms", 0.0), s.value("duration_p99_ms", 0.0));
  std::string line = buf;
  // A document from before the series has no peak: the line as it was.
  if (s.contains("open_peak")) {
    std::snprintf(buf, sizeof buf, "streams open: at most %lld at a second's end (t=%.0f s)\n",
                  static_cast<long long>(s.value("open_peak", std::int64_t{0})),
                  s.value("open_peak_second", 0.0));
    line += buf;
  }
  return line;
}

// A provider's reasons other than "served", each as "N words" ("3 request rate exceeded");
// served: that one's count.
std::string refusals_in_words(const nlohmann::json& reasons, std::int64_t& served) {
  std::string own;
  for (const auto& [reason, n] : reasons.items()) {
    if (!n.is_number_integer()) continue;
    if (reason == "served") {
      served = n.get<std::int64_t>();
    } else if (n.get<std::int64_t>() > 0) {
      std::string words = reason;
      std::replace(words.begin(), words.end(), '_', ' ');
      own += (own.empty() ? "" : ", ") + std::to_string(n.get<std::int64_t>()) + " " + words;
    }
  }
  return own;
}

std::string format_who_answered(const nlohmann::json& provider) {
  const auto upstream = provider.value("upstream", nlohmann::json());
  const auto reasons = provider.value("reasons", nlohmann::json());
  if (!upstream.is_object() || !reasons.is_object()) return "";
  // Every provider counts an upstream; only one in proxy mode (its settings say) has one.
  const auto settings = provider.value("settings", nlohmann::json());
  if (!settings.is_object() || settings.value("proxy", false) != true) return "";
  // "served" in proxy mode is what went on to the upstream, whatever it answered.
  std::int64_t forwarded = 0;
  const std::string own = refusals_in_words(reasons, forwarded);
  const auto count = [&](const char* key) {
    const auto n = upstream.value(key, nlohmann::json());
    return n.is_number_integer() ? std::to_string(n.get<std::int64_t>()) : std::string("?");
  };
  return "who answered: the provider itself " + (own.empty() ? "refused none" : own) +
         "; it forwarded " + std::to_string(forwarded) + " to the upstream, which answered " +
         count("upstream_429") + " with a 429, " + count("upstream_5xx") + " with a 5xx and " +
         count("upstream_error") +
         " not at all (an error or a timeout); any other status above is the upstream's, "
         "passed through\n";
}

std::string format_by_model(const nlohmann::json& provider) {
  const auto models = provider.value("models", nlohmann::json());
  if (!models.is_object() || models.empty()) return "";
  std::string line;
  for (const auto& [name, m] : models.items()) {
    if (!m.is_object()) continue;
    const auto requests = m.value("requests", nlohmann::json());
    std::int64_t served = 0;
    const std::string refused = refusals_in_words(m.value("reasons", nlohmann::json()), served);
    line += (line.empty() ? "" : "; ") + name + " " + std::to_string(served) + " served of " +
            (requests.is_number_integer() ? std::to_string(requests.get<std::int64_t>()) : "?") +
            (refused.empty() ? "" : " (" + refused + ")");
  }
  return line.empty() ? "" : "provider by model: " + line + "\n";
}

void print_run_summary(const Results& r, const nlohmann::json& doc, const std::string& out_path) {
  std::string text = format_divergence(doc) + format_terminal_summary(r) +
                     format_streams_line(doc) +
                     format_who_answered(doc.value("provider", nlohmann::json::object())) +
                     format_by_model(doc.value("provider", nlohmann::json::object()));
  if (doc.contains("comparison")) text += "\n" + format_comparison(doc.at("comparison"));
  text += format_harness_line(doc.at("live"));
  text += format_processes_line(doc.at("live"));
  summary_stream(out_path) << text << std::flush;
}

}  // namespace stampede
