#include "store/redis_quota.hpp"

#include <hiredis/hiredis.h>

#include <charconv>
#include <cstring>
#include <iostream>

#include "enum_table.hpp"
#include "generated/store/redis_quota_script.hpp"
#include "one_line.hpp"
#include "saturating.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// The script (redis_quota.lua, compiled in as kRedisQuotaScript) says what it takes and
// returns; verdict_at() below reads its reply.

// present, admitted, retry_after, limit, remaining, reset, too_large
constexpr std::size_t kReplyFields = 7;
// t_ns, spend_capped, then the three limits'
constexpr std::size_t kArrivalFields = 2 + 3 * kReplyFields;
constexpr std::int64_t kRetryNs = 1'000'000'000;  // reconnect at most once a second
const timeval kTimeout{1, 0};

// The script's one-letter name of each limiter (redis_quota.lua).
std::string kind_code(LimiterKind kind) {
  constexpr EnumTable<LimiterKind, 3> kCodes{{{LimiterKind::kFixedWindow, "f"},
                                              {LimiterKind::kSlidingWindow, "s"},
                                              {LimiterKind::kTokenBucket, "b"}}};
  return std::string(enum_name(kCodes, kind));
}

void add_limit(std::vector<std::string>& args, const std::optional<ScriptLimit>& l) {
  if (!l) {
    args.insert(args.end(), 7, "");
    return;
  }
  args.push_back(kind_code(l->kind));
  for (const std::int64_t v :
       {l->count, l->window_ns, l->scale, l->interval, l->tolerance, l->burst}) {
    args.push_back(std::to_string(v));
  }
}

std::optional<std::int64_t> to_int(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// One limit's fields from the script's answer, at index i.
std::optional<LimitVerdict> verdict_at(const redisReply& r, std::size_t i) {
  const auto at = [&](std::size_t k) { return r.element[i + k]->integer; };
  if (at(0) == 0) return std::nullopt;
  return LimitVerdict{at(1) == 1, at(2), at(3), at(4), at(5), at(6) == 1};
}

}  // namespace

std::string_view redis_quota_script() {
  return kRedisQuotaScript;
}

void RedisQuota::ReplyDeleter::operator()(redisReply* r) const {
  freeReplyObject(r);
}

RedisQuota::RedisQuota(RedisTarget target, ScriptLimits limits, double time_scale)
    : target_(std::move(target)), limits_(std::move(limits)), time_scale_(time_scale) {
  add_limit(limit_args_, limits_.capacity);
  add_limit(limit_args_, limits_.allowance);
  add_limit(limit_args_, limits_.tokens);
  limit_args_.push_back(limits_.spend_cap ? std::to_string(*limits_.spend_cap) : "");
}

RedisQuota::~RedisQuota() {
  if (context_) redisFree(context_);
}

std::string RedisQuota::key(std::string_view name) const {
  return target_.prefix + ":" + std::string(name);
}

std::optional<std::string> RedisQuota::connect() {
  if (context_) redisFree(context_);
  context_ = redisConnectWithTimeout(target_.host.c_str(), target_.port, kTimeout);
  if (!context_ || context_->err) {
    const std::string why = context_ ? context_->errstr : "out of memory";
    if (context_) redisFree(context_);
    context_ = nullptr;
    return "cannot reach Redis at " + target_.where() + ": " + why;
  }
  redisSetTimeout(context_, kTimeout);
  const Reply r = command({"SCRIPT", "LOAD", std::string(kRedisQuotaScript)});
  if (!r || r->type != REDIS_REPLY_STRING) {
    const std::string why = r ? std::string(r->str, r->len) : "no answer";
    return "Redis at " + target_.where() + " did not load the decision script: " + why;
  }
  sha_.assign(r->str, r->len);
  args_ = {"EVALSHA", sha_, ""};
  return std::nullopt;
}

RedisQuota::Reply RedisQuota::command(const std::vector<std::string>& args) {
  if (!context_) return nullptr;
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  Reply r(static_cast<redisReply*>(
      redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lens.data())));
  if (!r) lost(context_->errstr);
  return r;
}

void RedisQuota::lost(const std::string& why) {
  if (!said_lost_) {
    std::cerr << "fakeprovider: lost the Redis store at " << target_.where() << " ("
              << one_line(why) << "); answering 503 until it is back\n";
    said_lost_ = true;
  }
  if (context_) redisFree(context_);
  context_ = nullptr;
  next_try_steady_ns_ = ScenarioClock::steady_ns() + kRetryNs;
}

bool RedisQuota::usable() {
  if (context_) return true;
  if (ScenarioClock::steady_ns() < next_try_steady_ns_) return false;
  if (auto e = connect()) {
    lost(*e);
    return false;
  }
  // A restarted Redis has forgotten the scenario: carry on in ours.
  if (!join(epoch_)) return false;
  std::cerr << "fakeprovider: the Redis store at " << target_.where() << " is back\n";
  said_lost_ = false;
  return true;
}

bool RedisQuota::join(std::int64_t wall_ns) {
  const Reply set = command({"SET", key("epoch"), std::to_string(wall_ns), "NX"});
  const Reply get = command({"GET", key("epoch")});
  if (!set || !get) return false;
  const auto epoch = get->type == REDIS_REPLY_STRING ? to_int({get->str, get->len}) : std::nullopt;
  epoch_ = epoch.value_or(wall_ns);
  return epoch.has_value();
}

bool RedisQuota::reset(std::int64_t wall_ns) {
  if (!usable()) return false;
  if (!command({"SET", key("epoch"), std::to_string(wall_ns)})) return false;
  epoch_ = wall_ns;
  // The state of earlier epochs is never read again: delete it.
  const std::string keep = key("q:" + std::to_string(wall_ns) + ":");
  std::string cursor = "0";
  do {
    const Reply r = command({"SCAN", cursor, "MATCH", key("q:*"), "COUNT", "1000"});
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) return false;
    cursor.assign(r->element[0]->str, r->element[0]->len);
    std::vector<std::string> del{"UNLINK"};
    for (std::size_t i = 0; i < r->element[1]->elements; ++i) {
      const redisReply* k = r->element[1]->element[i];
      std::string name(k->str, k->len);
      if (!name.starts_with(keep)) del.push_back(std::move(name));
    }
    if (del.size() > 1 && !command(del)) return false;
  } while (cursor != "0");
  return true;
}

void RedisQuota::evaluate(std::span<const QuotaAsk> asks, const std::vector<std::int64_t>& now_ns,
                          std::vector<QuotaVerdicts>& out, std::int64_t* other_epoch) {
  // The state keys carry the epoch, so a reset (a new epoch) starts every limit and the
  // tokens spent from nothing.
  const std::string state = key("q:" + std::to_string(epoch_) + ":");
  const std::size_t first = out.size();
  const std::size_t n = asks.size() - first;
  std::vector<std::string>& a = args_;
  a.resize(3);
  a[2] = std::to_string(4 + 5 * n);
  a.insert(a.end(), {key("epoch"), state + "last", state + "cap", state + "caplog"});
  for (std::size_t i = first; i < asks.size(); ++i) {
    const std::string t = state + "?:" + std::string(asks[i].tenant);
    const std::size_t kind_at = state.size();
    for (const char kind : {'s', 'l', 't', 'u', 'p'}) {
      a.push_back(t);
      a.back()[kind_at] = kind;
    }
  }
  a.push_back(std::to_string(epoch_));
  a.insert(a.end(), limit_args_.begin(), limit_args_.end());
  for (std::size_t i = first; i < asks.size(); ++i) {
    a.push_back(std::to_string(now_ns[i]));
    a.push_back(std::to_string(asks[i].cost));
  }
  Reply r = command(a);
  if (r && r->type == REDIS_REPLY_ERROR && std::strncmp(r->str, "NOSCRIPT", 8) == 0) {
    if (connect()) return;  // Redis restarted empty; reload the script
    return evaluate(asks, now_ns, out, other_epoch);
  }
  if (!r) return;
  const auto bad = [&](const std::string& why) {
    lost("unexpected answer from the decision script: " + why);
  };
  if (r->type == REDIS_REPLY_ERROR) return bad(std::string(r->str, r->len));
  if (r->type != REDIS_REPLY_ARRAY || r->elements < 2) return bad("not an array");
  if (r->element[0]->integer == -1) {
    const redisReply* e = r->element[1];
    *other_epoch = e->type == REDIS_REPLY_STRING ? to_int({e->str, e->len}).value_or(-1) : -1;
    return;
  }
  if (r->elements < 3) return bad("not an array");
  const auto decided = static_cast<std::size_t>(r->element[1]->integer);
  if (decided > n || r->elements != 3 + decided * kArrivalFields) return bad("wrong length");
  for (std::size_t i = 0; i < decided; ++i) {
    const std::size_t at = 3 + i * kArrivalFields;
    QuotaVerdicts q;
    q.t_ns = r->element[at]->integer;
    q.spend_capped = r->element[at + 1]->integer == 1;
    q.capacity = verdict_at(*r, at + 2);
    q.allowance = verdict_at(*r, at + 2 + kReplyFields);
    q.tokens = verdict_at(*r, at + 2 + 2 * kReplyFields);
    out.push_back(q);
  }
  // The script stopped at an arrival it could not decide: as one decide would, that arrival
  // loses the connection, and it and the rest wait for the reconnection.
  if (decided < n) {
    const redisReply* e = r->element[2];
    bad(e->type == REDIS_REPLY_STRING ? std::string(e->str, e->len) : "an error");
  }
}

QuotaVerdicts RedisQuota::decide(std::int64_t now_ns, std::string_view tenant, std::int64_t cost) {
  const QuotaAsk ask{now_ns, tenant, cost};
  return decide_all({&ask, 1}).front();
}

std::vector<QuotaVerdicts> RedisQuota::decide_all(std::span<const QuotaAsk> asks) {
  std::vector<QuotaVerdicts> out;
  out.reserve(asks.size());
  std::vector<std::int64_t> now_ns;
  now_ns.reserve(asks.size());
  for (const QuotaAsk& a : asks) now_ns.push_back(a.now_ns);
  // Two epoch changes in a row: two resets racing these arrivals; the third try settles it.
  for (int attempt = 0; attempt < 3 && out.size() < asks.size() && usable(); ++attempt) {
    std::int64_t other = 0;
    const std::size_t before = out.size();
    evaluate(asks, now_ns, out, &other);
    if (out.size() > before) {
      attempt = -1;  // decided some: the rest, if any, start their tries afresh
      continue;
    }
    if (other == 0) break;  // Redis failed; lost() said why
    if (other < 0) {
      // The epoch key is gone (Redis flushed or restarted): carry on in ours.
      if (!join(epoch_)) break;
      continue;
    }
    // Another replica was reset: the same arrivals, on the new epoch's clock.
    const double shift_ns = static_cast<double>(saturating_sub(epoch_, other)) / time_scale_;
    for (std::size_t i = out.size(); i < now_ns.size(); ++i)
      now_ns[i] = saturating_add(now_ns[i], saturating_ns(shift_ns));
    epoch_ = other;
  }
  for (std::size_t i = out.size(); i < asks.size(); ++i) {
    QuotaVerdicts q;
    q.t_ns = now_ns[i];
    q.unavailable = true;
    out.push_back(q);
  }
  return out;
}

}  // namespace stampede
