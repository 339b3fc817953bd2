#include "token_recording.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "scenario.hpp"

namespace stampede {
namespace {

struct LimitNames {
  TokenLimit limit;
  std::string_view name;    // the results'
  std::string_view words;   // a reader's
  std::string_view reason;  // fakeprovider's stats and 429 bodies'
};

constexpr std::array<LimitNames, kTokenLimitCount> kLimits{{
    {TokenLimit::kRequests, "requests", "requests", "request_rate_exceeded"},
    {TokenLimit::kTokens, "tokens", "tokens", "token_rate_exceeded"},
    {TokenLimit::kInputTokens, "input_tokens", "input tokens", "input_token_rate_exceeded"},
    {TokenLimit::kOutputTokens, "output_tokens", "output tokens", "output_token_rate_exceeded"},
    {TokenLimit::kConcurrency, "concurrency", "concurrency", "concurrency_exceeded"},
    {TokenLimit::kSpendCap, "spend_cap", "spend cap", "spend_cap_exceeded"},
    {TokenLimit::kOther, "other", "other", ""},
}};

// The most specific first: a token limit's refusal may also have used the last request.
constexpr std::array<TokenLimit, 4> kHeaderPrecedence{TokenLimit::kOutputTokens,
                                                      TokenLimit::kInputTokens, TokenLimit::kTokens,
                                                      TokenLimit::kRequests};

const std::vector<std::string> kFlowLabels{"requests_admitted", "input_tokens_admitted",
                                           "output_tokens_reserved", "output_tokens_settled",
                                           "answers_settled"};

std::vector<std::string> limit_labels() {
  std::vector<std::string> out;
  for (const auto& l : kLimits) out.emplace_back(l.name);
  return out;
}

std::int64_t label_total(const BinnedCounts& h, std::size_t label) {
  return saturating_add(h.label_total(label), h.overflow(label));
}

BinnedCounts per_second(const nlohmann::json& j, const std::vector<std::string>& labels,
                        const char* what) {
  BinnedCounts h = BinnedCounts::from_json(j, labels);
  if (h.bin_ns() != kNsPerSec)
    throw std::runtime_error(std::string("token_limits.") + what + ": bin_ms must be 1000");
  return h;
}

bool has_token_limit(const ModelLimits& m) {
  return m.token_allowance || m.input_token_allowance || m.output_token_allowance ||
         m.max_concurrent;
}

}  // namespace

std::string_view to_string(TokenLimit limit) {
  return kLimits[static_cast<std::size_t>(limit)].name;
}

std::string_view limit_words(TokenLimit limit) {
  return kLimits[static_cast<std::size_t>(limit)].words;
}

std::optional<TokenLimit> limit_of_reason(std::string_view reason) {
  for (const auto& l : kLimits)
    if (!l.reason.empty() && l.reason == reason) return l.limit;
  return std::nullopt;
}

TokenLimit classify_refusal(std::string_view body_reason, ExhaustedLimits exhausted) {
  if (const auto named = limit_of_reason(body_reason)) return *named;
  for (const TokenLimit l : kHeaderPrecedence)
    if (exhausted & (1u << static_cast<unsigned>(l))) return l;
  return TokenLimit::kOther;
}

std::string error_reason_in_body(std::string_view body) {
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object()) return "";
  const auto e = j.find("error");
  if (e == j.end() || !e->is_object()) return "";
  const auto r = e->find("reason");
  return r != e->end() && r->is_string() ? r->get<std::string>() : "";
}

std::optional<std::int64_t> usage_output_tokens(std::string_view body) {
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto u = j.find("usage");
  if (u == j.end() || !u->is_object()) return std::nullopt;
  for (const char* key : {"output_tokens", "completion_tokens"}) {
    const auto n = u->find(key);
    if (n != u->end() && n->is_number_integer() && n->get<std::int64_t>() >= 0)
      return n->get<std::int64_t>();
  }
  return std::nullopt;
}

bool TokenRecording::any() const {
  return flows.total() > 0 || refusals.total() > 0 || flows.overflow_total() > 0 ||
         refusals.overflow_total() > 0;
}

void TokenRecording::record_admitted(std::int64_t t_ns, std::int64_t input_tokens,
                                     std::int64_t max_tokens) {
  flows.add(t_ns, kAdmitted);
  flows.add(t_ns, kInput, std::max<std::int64_t>(0, input_tokens));
  flows.add(t_ns, kReserved, std::max<std::int64_t>(0, max_tokens));
}

void TokenRecording::record_settled(std::int64_t t_ns, std::int64_t written,
                                    std::int64_t max_tokens) {
  flows.add(t_ns, kSettled,
            std::clamp<std::int64_t>(written, 0, std::max<std::int64_t>(0, max_tokens)));
  flows.add(t_ns, kSettledAnswers);
}

std::int64_t TokenRecording::flow_total(std::size_t label) const {
  return label_total(flows, label);
}

std::int64_t TokenRecording::refused_by(TokenLimit limit) const {
  return label_total(refusals, static_cast<std::size_t>(limit));
}

void TokenRecording::merge(const TokenRecording& o) {
  flows.merge(o.flows);
  refusals.merge(o.refusals);
}

bool records_token_limits(const Scenario& s, bool sends_llm) {
  const ProviderConfig& p = s.provider;
  return sends_llm || p.token_allowance || p.input_token_allowance || p.output_token_allowance ||
         p.max_concurrent || std::any_of(p.models.begin(), p.models.end(), has_token_limit);
}

std::string refused_by_line(const TokenRecording& t) {
  std::vector<std::pair<std::int64_t, TokenLimit>> refused;
  for (const auto& l : kLimits)
    if (const auto n = t.refused_by(l.limit); n > 0) refused.emplace_back(n, l.limit);
  // Most first; a tie in the results' order.
  std::stable_sort(refused.begin(), refused.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string line;
  for (const auto& [n, limit] : refused) {
    if (!line.empty()) line += ", ";
    line += std::string(limit_words(limit)) + " " + std::to_string(n);
  }
  return line;
}

// The totals for a reader, the per-second counts they come from for a merge.
nlohmann::json to_json(const TokenRecording& t) {
  nlohmann::json refused = nlohmann::json::object();
  for (const auto& l : kLimits) refused[std::string(l.name)] = t.refused_by(l.limit);
  return {{"requests_admitted", t.flow_total(TokenRecording::kAdmitted)},
          {"input_tokens_admitted", t.flow_total(TokenRecording::kInput)},
          {"output_tokens_reserved", t.flow_total(TokenRecording::kReserved)},
          {"output_tokens_settled", t.flow_total(TokenRecording::kSettled)},
          {"answers_settled", t.flow_total(TokenRecording::kSettledAnswers)},
          {"refused_by", refused},
          {"flows", t.flows.to_json(kFlowLabels)},
          {"refusals", t.refusals.to_json(limit_labels())}};
}

TokenRecording token_recording_from_json(const nlohmann::json& j) {
  TokenRecording t;
  t.flows = per_second(j.at("flows"), kFlowLabels, "flows");
  t.refusals = per_second(j.at("refusals"), limit_labels(), "refusals");
  return t;
}

}  // namespace stampede
