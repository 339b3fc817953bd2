#include "live/http/request_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "answer_parser.hpp"
#include "etag.hpp"
#include "generated/version.hpp"
#include "policy/trace_format.hpp"

namespace stampede {
namespace {

// occ mode: "If-Match: "N"" for a write; for a read "If-Match:", which neither client sends.
constexpr char kNoIfMatch[] = "If-Match:";

// "Name: N" in place, ended by a NUL: the lines are handed on as C strings. Formatted without
// printf, which was 1.2% of a loop's samples at two lines an attempt.
template <std::size_t N>
void write_numbered(std::array<char, N>& line, std::string_view name, long long n) {
  char* at = std::copy(name.begin(), name.end(), line.data());
  at = std::to_chars(at, line.data() + N - 1, n).ptr;
  *at = '\0';
}

}  // namespace

const char* user_agent() {
  static const std::string agent = std::string("stampede-loadgen/") + kVersion;
  return agent.c_str();
}

bool line_names(std::string_view line, std::string_view lower_name) {
  const auto field = split_header_line(line);
  return field && header_name_is(field->name, lower_name);
}

bool removes_header(std::string_view line) {
  const auto value = line.substr(line.find(':') + 1);
  return value.find_first_not_of(" \t") == std::string_view::npos;
}

void RequestPlan::build(const LiveShared& shared, const LiveClient& c) {
  const LiveRequest& r = shared.request;
  target_ = r.url.target;
  occ_ = c.occ.has_value();
  trace_ = r.trace_headers;
  head_ = !occ_ && r.method == "HEAD";
  const bool sends_body = r.method != "HEAD" && (!r.body.empty() || r.method == "POST");
  set_method(r.method.c_str(), sends_body, sends_body ? std::string_view(r.body) : "", sends_body);
  lines_.clear();
  for (const auto& h : shared.fixed_headers) lines_.push_back(h.c_str());
  per_item_sender_ = shared.per_item_sender;
  if (!shared.tenant_headers.empty() && !per_item_sender_)
    lines_.push_back(shared.tenant_headers[c.id % shared.tenant_headers.size()].c_str());
  if (trace_) {
    client_id_line_ = "X-Client-Id: " + std::to_string(c.id);
    lines_.push_back(client_id_line_.c_str());
  }
  client_lines_ = lines_.size();
  if (trace_) {
    lines_.push_back(attempt_line_.data());
    lines_.push_back(request_id_line_.data());
  }
  if (per_item_sender_) build_sender(shared, c);
  if (occ_) {
    std::snprintf(if_match_line_.data(), if_match_line_.size(), "%s", kNoIfMatch);
    lines_.push_back(if_match_line_.data());
  }
}

void RequestPlan::build_sender(const LiveShared& shared, const LiveClient& c) {
  const std::string& tenant_header = shared.request.tenant_header;
  tenant_prefix_ = tenant_header + ": ";
  own_tenant_line_ = shared.tenant_headers.empty()
                         ? tenant_header + ":"
                         : shared.tenant_headers[c.id % shared.tenant_headers.size()];
  tenant_line_.reserve(std::max(own_tenant_line_.size(), tenant_prefix_.size() + kMaxTraceTenant));
  tenant_line_ = own_tenant_line_;
  lines_.push_back(tenant_line_.c_str());
  const std::string& token_header = shared.scenario.provider.token_header;
  const auto tokens = shared.scenario.fleet.tokens;
  tokens_prefix_ = token_header + ": ";
  own_tokens_line_ = tokens ? tokens_prefix_ + std::to_string(*tokens) : token_header + ":";
  tokens_line_.reserve(tokens_prefix_.size() + 24);
  tokens_line_ = own_tokens_line_;
  lines_.push_back(tokens_line_.c_str());
}

// Within the capacity reserved: the lines' pointers stay good.
void RequestPlan::write_sender(const LiveClient& c) {
  if (c.item_tenant)
    tenant_line_.assign(tenant_prefix_).append(*c.item_tenant);
  else
    tenant_line_.assign(own_tenant_line_);
  if (!c.item_tokens) {
    tokens_line_.assign(own_tokens_line_);
    return;
  }
  std::array<char, 24> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), *c.item_tokens).ptr;
  tokens_line_.assign(tokens_prefix_).append(digits.data(), end);
}

void RequestPlan::set_method(const char* method, bool has_body, std::string_view body,
                             bool form_body) {
  method_ = method;
  has_body_ = has_body;
  body_ = body;
  form_body_ = form_body;
}

void RequestPlan::next_attempt(const LiveClient& c) {
  if (per_item_sender_) write_sender(c);
  if (trace_) {
    write_numbered(attempt_line_, "X-Attempt: ", c.sends);
    write_numbered(request_id_line_, "X-Request-Id: ", static_cast<long long>(c.item_id));
  }
  if (!occ_) return;
  if (!c.occ->cycle.writing) {
    std::snprintf(if_match_line_.data(), if_match_line_.size(), "%s", kNoIfMatch);
    return set_method("GET", false, {}, false);
  }
  std::snprintf(if_match_line_.data(), if_match_line_.size(), "If-Match: %s",
                format_etag(c.occ->cycle.version).c_str());
  set_method("PUT", true, "", false);  // an empty body, sent with its Content-Length: 0
}

}  // namespace stampede
