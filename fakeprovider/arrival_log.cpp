#include "arrival_log.hpp"

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

void ArrivalLog::record(std::int64_t t_ns, std::string_view tenant, int status, int attempt,
                        std::string_view client_id) {
  auto it = tenant_index_.find(tenant);
  if (it == tenant_index_.end()) {
    it =
        tenant_index_.emplace(std::string(tenant), static_cast<std::uint32_t>(tenant_names_.size()))
            .first;
    tenant_names_.emplace_back(tenant);
  }
  rows_.push_back({t_ns, it->second, status, attempt, std::string(client_id)});
}

void ArrivalLog::clear() {
  rows_.clear();
  tenant_names_.clear();
  tenant_index_.clear();
}

std::string ArrivalLog::to_csv() const {
  std::vector<std::string> tenants;
  tenants.reserve(tenant_names_.size());
  for (const auto& name : tenant_names_) tenants.push_back(csv_field(name));
  std::string out = "t_ns,tenant,status,attempt,client_id\n";
  out.reserve(out.size() + rows_.size() * 40);
  for (const auto& r : rows_) {
    out += std::to_string(r.t_ns);
    out += ',';
    out += tenants[r.tenant];
    out += ',';
    out += std::to_string(r.status);
    out += ',';
    out += std::to_string(r.attempt);
    out += ',';
    out += csv_field(r.client_id);
    out += '\n';
  }
  return out;
}

}  // namespace stampede
