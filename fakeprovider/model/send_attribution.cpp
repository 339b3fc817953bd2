#include "model/send_attribution.hpp"

#include "enum_table.hpp"
#include "http_token.hpp"
#include "model/attempt_header.hpp"
#include "model/credential_key.hpp"

namespace stampede {
namespace {

void see(HeaderSeen& h, std::string_view value) {
  if (!h.present) {
    h = {value, true, false};
  } else if (h.value != value) {
    h.conflicting = true;
  }
}

// A header one rule reads: its number, or malformed.
SendClaim declared(SendRule rule, const HeaderSeen& h,
                   std::optional<std::int64_t> (*parse)(std::string_view)) {
  const auto n = h.conflicting ? std::nullopt : parse(h.value);
  if (!n) return {SendClaim::Kind::kMalformed, rule};
  return {SendClaim::Kind::kDeclared, rule, *n};
}

// A name whose arrivals are counted. An empty one names nothing: it would merge every
// client that sends the header empty into one item.
SendClaim counted(SendRule rule, const HeaderSeen& h) {
  if (h.conflicting || h.value.empty()) return {SendClaim::Kind::kMalformed, rule};
  return {SendClaim::Kind::kCounted, rule, 0, item_key(rule, h.value)};
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser: FNV-1a's low bits are weak
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::string_view to_string(SendRule rule) {
  constexpr EnumTable<SendRule, kSendRuleCount> kNames{
      {{SendRule::kXAttempt, "x-attempt"},
       {SendRule::kStainlessRetryCount, "x-stainless-retry-count"},
       {SendRule::kAmzSdkRequest, "amz-sdk-request"},
       {SendRule::kAttemptHeader, "attempt-header"},
       {SendRule::kItemHeader, "item-header"},
       {SendRule::kClientHeader, "client-header"}}};
  static_assert(is_dense(kNames));
  return kNames[static_cast<std::size_t>(rule)].second;
}

std::string_view to_string(SendStatus status) {
  constexpr EnumTable<SendStatus, kSendStatusCount> kNames{
      {{SendStatus::kAttributed, "attributed"},
       {SendStatus::kNone, "none"},
       {SendStatus::kMalformed, "malformed"},
       {SendStatus::kItemLimit, "item_limit"}}};
  static_assert(is_dense(kNames));
  return kNames[static_cast<std::size_t>(status)].second;
}

std::string send_rule_label(const SendAttribution& a) {
  switch (a.status) {
    case SendStatus::kAttributed:
      return std::string(to_string(a.rule));
    case SendStatus::kNone:
      return "none";
    default:
      return std::string(to_string(a.status)) + ":" + std::string(to_string(a.rule));
  }
}

void offer_send_header(const SendRules& rules, SendHeaders& headers, std::string_view name,
                       std::string_view raw_value) {
  // "3 " and "3" are one value: a repeat that differs only in OWS does not conflict.
  const std::string_view value = trim_ows(raw_value);
  // A name may serve several rules (--client-header X-Request-Id): each gets it.
  if (ascii_iequals(name, "X-Attempt")) see(headers.x_attempt, value);
  if (ascii_iequals(name, "X-Stainless-Retry-Count")) see(headers.retry_count, value);
  if (ascii_iequals(name, "amz-sdk-request")) see(headers.amz_sdk_request, value);
  if (!rules.attempt_header.empty() && ascii_iequals(name, rules.attempt_header))
    see(headers.attempt_header, value);
  for (std::size_t i = 0; i < rules.item_headers.size() && i < kMaxItemHeaders; ++i) {
    if (ascii_iequals(name, rules.item_headers[i]))
      see(headers.items[i], credential_key(name, value));
  }
  if (!rules.client_header.empty() && ascii_iequals(name, rules.client_header))
    see(headers.client, credential_key(name, value));
}

namespace {

SendClaim claim_number(const SendHeaders& h) {
  if (h.x_attempt.present) return declared(SendRule::kXAttempt, h.x_attempt, parse_send_number);
  if (h.retry_count.present)
    return declared(SendRule::kStainlessRetryCount, h.retry_count, parse_retry_count);
  if (h.amz_sdk_request.present)
    return declared(SendRule::kAmzSdkRequest, h.amz_sdk_request, parse_amz_sdk_request);
  if (h.attempt_header.present)
    return declared(SendRule::kAttemptHeader, h.attempt_header, parse_send_number);
  for (const HeaderSeen& item : h.items) {
    if (item.present) return counted(SendRule::kItemHeader, item);
  }
  if (h.client.present) return counted(SendRule::kClientHeader, h.client);
  return {};
}

// The item an arrival belongs to, by the same names and keys as the counting rules.
std::uint64_t item_of(const SendHeaders& h) {
  for (const HeaderSeen& item : h.items) {
    if (item.present) return counted(SendRule::kItemHeader, item).key;
  }
  if (h.client.present) return counted(SendRule::kClientHeader, h.client).key;
  return 0;
}

}  // namespace

SendClaim claim_send(const SendHeaders& h) {
  SendClaim claim = claim_number(h);
  claim.item = item_of(h);
  return claim;
}

std::uint64_t item_key(SendRule rule, std::string_view name) {
  // FNV-1a over the rule and the name: an item and a client of one name are two keys.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto add = [&h](unsigned char c) { h = (h ^ c) * 0x100000001b3ULL; };
  add(static_cast<unsigned char>(rule));
  for (char c : name) add(static_cast<unsigned char>(c));
  const std::uint64_t key = mix(h);
  return key == 0 ? 1 : key;
}

std::optional<std::int64_t> ItemCounts::arrive(std::uint64_t key) {
  bool inserted = false;
  Slot* s = table_.find_or_insert(key, inserted);
  if (!s) return std::nullopt;
  return ++s->arrivals;
}

SendAttribution attribute_send(const SendClaim& claim, ItemCounts& counts) {
  switch (claim.kind) {
    case SendClaim::Kind::kNone:
      return {};
    case SendClaim::Kind::kMalformed:
      return {SendStatus::kMalformed, claim.rule};
    case SendClaim::Kind::kDeclared:
      return {SendStatus::kAttributed, claim.rule, claim.send};
    case SendClaim::Kind::kCounted:
      break;
  }
  const auto n = counts.arrive(claim.key);
  if (!n) return {SendStatus::kItemLimit, claim.rule};
  return {SendStatus::kAttributed, claim.rule, *n};
}

}  // namespace stampede
