#include "recording/arrival_log.hpp"

namespace stampede {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::size_t ArrivalLog::record(std::uint64_t seq, std::int64_t t_ns, std::int64_t decided_t_ns,
                               std::string_view tenant, int status, const SendAttribution& send,
                               std::string_view client_id) {
  auto it = tenant_index_.find(tenant);
  if (it == tenant_index_.end()) {
    it =
        tenant_index_.emplace(std::string(tenant), static_cast<std::uint32_t>(tenant_names_.size()))
            .first;
    tenant_names_.emplace_back(tenant);
  }
  rows_.push_back({seq, t_ns, decided_t_ns, it->second, status, 0, send, std::string(client_id)});
  return rows_.size() - 1;
}

void ArrivalLog::set_upstream(std::size_t row, int upstream) {
  if (row < rows_.size()) rows_[row].upstream = upstream;
}

void ArrivalLog::clear() {
  rows_.clear();
  tenant_names_.clear();
  tenant_index_.clear();
}

std::string ArrivalLog::to_csv(const std::vector<const ArrivalLog*>& logs) {
  struct Cursor {
    const ArrivalLog* log;
    std::vector<std::string> tenants;  // quoted once per log, not once per row
    std::size_t next = 0;
  };
  std::vector<Cursor> cursors;
  std::size_t rows = 0;
  for (const ArrivalLog* log : logs) {
    Cursor c{log, {}};
    for (const auto& name : log->tenant_names_) c.tenants.push_back(csv_field(name));
    cursors.push_back(std::move(c));
    rows += log->rows_.size();
  }
  std::string out = "t_ns,tenant,status,attempt,client_id,send_rule,decided_t_ns,upstream,stream\n";
  out.reserve(out.size() + rows * 52);
  // Each log is in decision order already: a merge by seq, with a handful of logs.
  for (std::size_t n = 0; n < rows; ++n) {
    Cursor* first = nullptr;
    for (auto& c : cursors) {
      if (c.next < c.log->rows_.size() &&
          (!first || c.log->rows_[c.next].seq < first->log->rows_[first->next].seq)) {
        first = &c;
      }
    }
    const Row& r = first->log->rows_[first->next++];
    out += std::to_string(r.t_ns);
    out += ',';
    out += first->tenants[r.tenant];
    out += ',';
    out += std::to_string(r.status);
    out += ',';
    if (r.send.attributed()) out += std::to_string(r.send.send);
    out += ',';
    out += csv_field(r.client_id);
    out += ',';
    out += send_rule_label(r.send);
    out += ',';
    out += std::to_string(r.decided_t_ns);
    out += ',';
    if (r.upstream > 0) out += std::to_string(r.upstream);
    if (r.upstream == kUpstreamFailed) out += "error";
    if (r.upstream == kUpstreamTimedOut) out += "timeout";
    out += r.upstream == kStreamBroken ? ",broken\n" : ",\n";
  }
  return out;
}

}  // namespace stampede
