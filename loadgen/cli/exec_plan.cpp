#include "cli/exec_plan.hpp"

#include <string.h>

#include <algorithm>

#include "enum_table.hpp"

namespace stampede {
namespace {

using Tokens = std::vector<std::pair<std::string_view, std::string>>;

// Each "{name}" of the table replaced by its value; what is put in is never looked at again.
std::string expand(std::string_view arg, const Tokens& tokens) {
  std::string out;
  for (std::size_t i = 0; i < arg.size();) {
    const auto token = std::find_if(tokens.begin(), tokens.end(), [&](const auto& t) {
      return arg.substr(i, t.first.size()) == t.first;
    });
    if (token == tokens.end()) {
      out += arg[i++];
      continue;
    }
    out += token->second;
    i += token->first.size();
  }
  return out;
}

Tokens process_tokens(std::string_view url, std::int64_t client) {
  return {{"{url}", std::string(url)}, {"{client}", std::to_string(client)}};
}

std::string name_of(std::string_view entry) {
  return std::string(entry.substr(0, entry.find('=')));
}

}  // namespace

std::int64_t process_count(std::int64_t clients, std::int64_t per_process) {
  return (clients + per_process - 1) / per_process;
}

ExecProcess process_at(std::int64_t index, std::int64_t clients, std::int64_t per_process) {
  ExecProcess p;
  p.index = index;
  p.first_client = index * per_process;
  p.clients = std::min(per_process, clients - p.first_client);
  return p;
}

std::string expand_argument(std::string_view arg, std::string_view url, std::int64_t client) {
  return expand(arg, process_tokens(url, client));
}

std::vector<std::string> expand_arguments(const std::vector<std::string>& args,
                                          std::string_view url, std::int64_t client) {
  std::vector<std::string> out;
  out.reserve(args.size());
  for (const auto& a : args) out.push_back(expand_argument(a, url, client));
  return out;
}

std::vector<std::pair<std::string, std::string>> process_variables(const ExecProcess& p,
                                                                   std::int64_t clients,
                                                                   std::string_view url) {
  return {{"STAMPEDE_URL", std::string(url)},
          {"STAMPEDE_CLIENT_ID", std::to_string(p.first_client)},
          {"STAMPEDE_CLIENTS", std::to_string(clients)},
          {"STAMPEDE_PER_PROCESS", std::to_string(p.clients)}};
}

std::vector<std::string> item_arguments(const std::vector<std::string>& args, std::string_view url,
                                        const ExecItem& item) {
  Tokens tokens = process_tokens(url, item.client);
  tokens.emplace_back("{item}", std::to_string(item.item));
  tokens.emplace_back("{tenant}", item.tenant.value_or(""));
  std::vector<std::string> out;
  out.reserve(args.size());
  for (const auto& a : args) out.push_back(expand(a, tokens));
  return out;
}

std::vector<std::pair<std::string, std::string>> item_variables(const ExecItem& item,
                                                                std::int64_t clients,
                                                                std::string_view url) {
  auto vars = process_variables({0, item.client, 1}, clients, url);
  vars.emplace_back("STAMPEDE_ITEM", std::to_string(item.item));
  if (item.tenant) vars.emplace_back("STAMPEDE_TENANT", *item.tenant);
  if (item.tokens) vars.emplace_back("STAMPEDE_TOKENS", std::to_string(*item.tokens));
  if (!item.method.empty()) vars.emplace_back("STAMPEDE_METHOD", item.method);
  if (!item.path.empty()) vars.emplace_back("STAMPEDE_PATH", item.path);
  return vars;
}

std::vector<std::string> process_environment(
    const std::vector<std::string>& base,
    const std::vector<std::pair<std::string, std::string>>& variables) {
  std::vector<std::string> env;
  env.reserve(base.size() + variables.size());
  for (const auto& entry : base) {
    const auto name = name_of(entry);
    const bool replaced = std::any_of(variables.begin(), variables.end(),
                                      [&](const auto& v) { return v.first == name; });
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : variables) env.push_back(name + "=" + value);
  return env;
}

ExecOutcome outcome_of(const ProcessEnd& end) {
  if (end.running_at_stop) return ExecOutcome::kUnfinished;
  if (end.exited && end.exit_code == 0) return ExecOutcome::kDelivered;
  return ExecOutcome::kDeadLettered;
}

std::string_view to_string(ExecOutcome o) {
  constexpr EnumTable<ExecOutcome, 3> kNames{{{ExecOutcome::kDelivered, "delivered"},
                                              {ExecOutcome::kDeadLettered, "dead_lettered"},
                                              {ExecOutcome::kUnfinished, "unfinished"}}};
  return enum_name(kNames, o);
}

std::optional<std::string> process_limit_error(std::int64_t clients, std::int64_t processes,
                                               const ProcessLimits& limits) {
  // One more than the fleet: the process that holds the fleet's process group.
  const std::int64_t need = processes + 1;
  const std::string head = "--clients: " + std::to_string(clients) + " clients in " +
                           std::to_string(processes) + " processes need " + std::to_string(need) +
                           " more tasks (one holds their process group)";
  const std::string fewer = "; or run several clients in each process (--per-process K)";
  if (limits.user_limit && limits.user_tasks + need > *limits.user_limit) {
    return head + ", but ulimit -u allows this user " + std::to_string(*limits.user_limit) +
           " and it runs " + std::to_string(limits.user_tasks) + " already; raise ulimit -u" +
           fewer;
  }
  if (limits.system_tasks + need > limits.system_limit) {
    return head + ", but the machine holds " + std::to_string(limits.system_limit) +
           " tasks (kernel.pid_max, kernel.threads-max) and runs " +
           std::to_string(limits.system_tasks) + " already; raise them" + fewer;
  }
  return std::nullopt;
}

std::int64_t BoundedLog::keep(std::int64_t n) {
  const std::int64_t taken = std::clamp<std::int64_t>(cap_bytes_ - kept_, 0, n);
  kept_ += taken;
  dropped_ += n - taken;
  return taken;
}

std::string BoundedLog::truncation_note() const {
  if (dropped_ == 0) return "";
  return "\n[loadgen exec: log cut at " + std::to_string(cap_bytes_) + " bytes (--log-limit); " +
         std::to_string(dropped_) + " more bytes dropped]\n";
}

}  // namespace stampede
