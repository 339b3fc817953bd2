#include "live_section.hpp"

#include <algorithm>
#include <stdexcept>

#include "duration.hpp"
#include "json_int.hpp"
#include "json_optional.hpp"

namespace stampede {
namespace {

using nlohmann::json;

json tls_json(const TlsRecord& t) {
  return {{"verify_peer", t.verify_peer},
          {"ca_from", or_null(t.ca_from)},
          {"ca_file", or_null(t.ca_file)},
          {"ca_path", or_null(t.ca_path)},
          {"client_cert", or_null(t.client_cert)}};
}

TlsRecord tls_from(const json& j) {
  return {j.at("verify_peer").get<bool>(), optional_field<std::string>(j, "ca_from"),
          optional_field<std::string>(j, "ca_file"), optional_field<std::string>(j, "ca_path"),
          optional_field<std::string>(j, "client_cert")};
}

json process_json(const ProcessUsage& p) {
  json j = {{"role", p.role},
            {"max_rss_kib", p.max_rss_kib},
            {"cpu_user_s", p.cpu_user_s},
            {"cpu_sys_s", p.cpu_sys_s}};
  if (p.shard) j["shard"] = *p.shard;
  return j;
}

ProcessUsage process_from(const json& j) {
  ProcessUsage p{j.at("role").get<std::string>(), std::nullopt, json_int64(j.at("max_rss_kib")),
                 j.at("cpu_user_s").get<double>(), j.at("cpu_sys_s").get<double>()};
  if (j.contains("shard")) p.shard = json_int64(j.at("shard"));
  return p;
}

double quantile_ms(const LogHistogram& h, double q) {
  return static_cast<double>(h.quantile(q)) / kNsPerMs;
}

// What the command that ran the fleet said: the first shard's.
void read_command(const json& j, LiveSection& l) {
  l.url = j.at("url").get<std::string>();
  l.method = j.at("method").get<std::string>();
  l.time_scale = j.at("time_scale").get<double>();
  l.latency_compensated = j.at("latency_compensated").get<bool>();
  l.max_duration_s = j.at("max_duration_s").get<double>();
  l.http_client = j.at("http_client").get<std::string>();
  if (j.contains("tls")) l.tls = tls_from(j.at("tls"));
  l.start_at = optional_field<double>(j, "start_at");
}

void read_figures(const json& j, LiveSection& l) {
  l.loops = json_int64(j.at("loops"));
  l.cpu_user_s = j.at("cpu_user_s").get<double>();
  l.cpu_sys_s = j.at("cpu_sys_s").get<double>();
  l.first_sends = json_int64(j.at("first_sends"));
  l.first_send_connect_errors = json_int64(j.at("first_send_connect_errors"));
  l.cpu_wait_s = optional_field<double>(j, "cpu_wait_s");
  l.send_lateness_ns = LogHistogram::from_json(j.at("send_lateness_ns"));
  if (j.contains("source_addresses")) {
    for (const auto& [address, n] : j.at("source_addresses").items())
      l.source_addresses[address] = json_int64(n);
  }
  if (j.contains("processes")) {
    for (const auto& p : j.at("processes")) l.processes.push_back(process_from(p));
  }
  l.wall_s = j.at("wall_s").get<double>();
  l.end_s = j.at("end_s").get<double>();
  l.start_late_s = optional_field<double>(j, "start_late_s");
  l.stopped = j.at("stopped").get<std::string>();
}

}  // namespace

json to_json(const LiveSection& l) {
  json j = {{"url", l.url},
            {"method", l.method},
            {"time_scale", l.time_scale},
            {"latency_compensated", l.latency_compensated},
            {"max_duration_s", l.max_duration_s},
            {"loops", l.loops},
            {"http_client", l.http_client},
            {"wall_s", l.wall_s},
            {"cpu_user_s", l.cpu_user_s},
            {"cpu_sys_s", l.cpu_sys_s},
            {"cpu_wait_s", l.cpu_wait_s ? json(*l.cpu_wait_s) : json(nullptr)},
            {"send_lateness_p50_ms", quantile_ms(l.send_lateness_ns, 0.5)},
            {"send_lateness_p99_ms", quantile_ms(l.send_lateness_ns, 0.99)},
            {"send_lateness_ns", l.send_lateness_ns.to_json()},
            {"stopped", l.stopped},
            {"end_s", l.end_s},
            {"first_sends", l.first_sends},
            {"first_send_connect_errors", l.first_send_connect_errors}};
  if (l.tls) j["tls"] = tls_json(*l.tls);
  if (l.start_at) j["start_at"] = *l.start_at;
  if (l.start_late_s) j["start_late_s"] = *l.start_late_s;
  if (!l.source_addresses.empty()) j["source_addresses"] = l.source_addresses;
  if (!l.processes.empty()) {
    j["processes"] = json::array();
    for (const auto& p : l.processes) j["processes"].push_back(process_json(p));
  }
  return j;
}

Parsed<LiveSection> live_section_from_json(const json& j) {
  try {
    LiveSection l;
    read_command(j, l);
    read_figures(j, l);
    return Parsed<LiveSection>::ok(std::move(l));
  } catch (const std::exception& e) {
    return Parsed<LiveSection>::fail(std::string("live: ") + e.what());
  }
}

LiveSection merge_live_sections(const std::vector<LiveSection>& shards) {
  LiveSection m = shards.front();
  m.processes.clear();
  m.source_addresses.clear();
  m.send_lateness_ns = LogHistogram();
  m.loops = m.first_sends = m.first_send_connect_errors = 0;
  m.cpu_user_s = m.cpu_sys_s = 0;
  m.cpu_wait_s = 0.0;
  for (const auto& s : shards) {
    m.loops += s.loops;
    m.cpu_user_s += s.cpu_user_s;
    m.cpu_sys_s += s.cpu_sys_s;
    m.first_sends += s.first_sends;
    m.first_send_connect_errors += s.first_send_connect_errors;
    m.cpu_wait_s =
        m.cpu_wait_s && s.cpu_wait_s ? std::optional(*m.cpu_wait_s + *s.cpu_wait_s) : std::nullopt;
    m.send_lateness_ns.merge(s.send_lateness_ns);
    for (const auto& [address, n] : s.source_addresses) m.source_addresses[address] += n;
    m.processes.insert(m.processes.end(), s.processes.begin(), s.processes.end());
    m.wall_s = std::max(m.wall_s, s.wall_s);
    m.end_s = std::max(m.end_s, s.end_s);
    if (m.start_late_s && s.start_late_s)
      m.start_late_s = std::max(*m.start_late_s, *s.start_late_s);
    if (m.stopped.empty()) m.stopped = s.stopped;
  }
  return m;
}

}  // namespace stampede
