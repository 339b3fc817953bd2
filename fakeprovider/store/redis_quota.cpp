#include "store/redis_quota.hpp"

#include <hiredis/hiredis.h>

#include <charconv>
#include <cstring>
#include <iostream>

#include "one_line.hpp"
#include "saturating.hpp"
#include "scenario_clock.hpp"

namespace stampede {
namespace {

// KEYS: epoch, last decision time, capacity state and log, the tenant's request state and
// log, token state and log, tokens spent.
// ARGV: epoch, now_ns, the request's tokens (cost), then per limit (capacity, allowance,
// tokens) kind (f, s, b or "" for none), count, window_ns, scale, interval, tolerance, burst;
// then the spend cap ("" for none).
// The layers run as ProviderPolicy runs them in process: capacity (cost 1); the spend cap
// (rejects when cost > cap - spent, consuming nothing); the request allowance (cost 1); the
// token allowance (cost), a rejection leaving the request allowance consumed; and the cost is
// spent when all admitted.
// Returns {-1, epoch or ""} when asked on another epoch, else {0, t_ns, spend_capped} and per
// limit {present, admitted, retry_after_ns, limit, remaining, reset_ns, too_large}. The cost
// may be any int64 (as a double, inexact above 2^53, but only compared, and only a cost below
// the limits is ever added). Lua numbers are doubles:
// every value here is an integer below 2^53 (script_limit checks the limits), so each is exact,
// and divisions are floored exactly by idiv.
constexpr std::string_view kScript = R"lua(
local function s(x) return string.format('%.0f', x) end
local function idiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
  return q
end
local function cdiv(a, b)
  local q = idiv(a, b)
  if q * b < a then q = q + 1 end
  return q
end

local function fixed(key, now, cost, l)
  local st = redis.call('HMGET', key, 'w', 'used')
  local w = idiv(now, l.window)
  local used = 0
  if tonumber(st[1]) == w then used = tonumber(st[2]) end
  local reset = (w + 1) * l.window - now
  if used + cost > l.count then
    return {0, reset, l.count, l.count - used, reset, cost > l.count and 1 or 0}
  end
  used = used + cost
  redis.call('HSET', key, 'w', s(w), 'used', s(used))
  return {1, 0, l.count, l.count - used, reset, 0}
end

-- The exact sliding log: a sorted set of admissions (score: time, member: seq:cost).
local function sliding(key, log, now, cost, l)
  local cut = s(now - l.window)
  local used = tonumber(redis.call('HGET', key, 'used')) or 0
  local gone = redis.call('ZRANGEBYSCORE', log, '-inf', cut)
  if #gone > 0 then
    for _, m in ipairs(gone) do used = used - tonumber(string.match(m, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', log, '-inf', cut)
    -- Saved now: a rejection below (a cost above what is free) must not lose it.
    redis.call('HSET', key, 'used', s(used))
  end
  if used + cost <= l.count then
    -- A cost of 0 is admitted without an entry, as in process.
    if cost > 0 then
      local seq = redis.call('HINCRBY', key, 'seq', 1)
      redis.call('ZADD', log, s(now), seq .. ':' .. s(cost))
      used = used + cost
      redis.call('HSET', key, 'used', s(used))
    end
    local front = tonumber(redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')[2])
    return {1, 0, l.count, l.count - used, front and front + l.window - now or 0, 0}
  end
  local back = tonumber(redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')[2])
  local reset = back and back + l.window - now or 0
  if cost > l.count then return {0, 0, l.count, l.count - used, reset, 1} end
  -- Rejected: admissible once the oldest admissions worth the excess have expired.
  local need, first, wait = used + cost - l.count, 0, back
  while need > 0 do
    local page = redis.call('ZRANGE', log, first, first + 63, 'WITHSCORES')
    if #page == 0 then break end
    for i = 1, #page, 2 do
      need = need - tonumber(string.match(page[i], ':(%d+)$'))
      if need <= 0 then wait = tonumber(page[i + 1]) break end
    end
    first = first + 64
  end
  return {0, wait + l.window - now, l.count, l.count - used, reset, 0}
end

-- GCRA, the theoretical arrival time scaled by l.scale.
local function bucket(key, now, cost, l)
  local n = now * l.scale
  if n + l.tolerance + l.interval >= 2^53 then
    return redis.error_reply('stampede: time beyond the exact range of the token bucket')
  end
  local tat = tonumber(redis.call('HGET', key, 'tat')) or 0
  if tat < n then tat = n end
  local function remaining_at(t) return idiv(l.tolerance + l.interval - (t - n), l.interval) end
  if cost > l.burst then
    return {0, 0, l.burst, remaining_at(tat), cdiv(tat - n, l.scale), 1}
  end
  local tolerance = l.tolerance - (cost - 1) * l.interval
  if tat - n > tolerance then
    return {0, cdiv(tat - tolerance - n, l.scale), l.burst, remaining_at(tat),
            cdiv(tat - n, l.scale), 0}
  end
  tat = tat + cost * l.interval
  redis.call('HSET', key, 'tat', s(tat))
  return {1, 0, l.burst, remaining_at(tat), cdiv(tat - n, l.scale), 0}
end

local epoch = redis.call('GET', KEYS[1])
if epoch ~= ARGV[1] then return {-1, epoch or ''} end
local now = tonumber(ARGV[2])
local last = tonumber(redis.call('GET', KEYS[2])) or 0
if now < last then now = last elseif now > last then redis.call('SET', KEYS[2], s(now)) end
local cost = tonumber(ARGV[3])

local function decide(i, key, log, cost)
  local kind = ARGV[i]
  if kind == '' then return nil end
  local l = {count = tonumber(ARGV[i + 1]), window = tonumber(ARGV[i + 2]),
             scale = tonumber(ARGV[i + 3]), interval = tonumber(ARGV[i + 4]),
             tolerance = tonumber(ARGV[i + 5]), burst = tonumber(ARGV[i + 6])}
  if kind == 'f' then return fixed(key, now, cost, l) end
  if kind == 's' then return sliding(key, log, now, cost, l) end
  return bucket(key, now, cost, l)
end

local function admits(v) return v == nil or v[1] == 1 end
local cap = decide(4, KEYS[3], KEYS[4], 1)
if cap and cap.err then return cap end
local capped, allowance, tokens = 0, nil, nil
if admits(cap) then
  local spend_cap, spent = tonumber(ARGV[25]), 0
  if spend_cap then
    spent = tonumber(redis.call('GET', KEYS[9])) or 0
    if cost > spend_cap - spent then capped = 1 end
  end
  if capped == 0 then
    allowance = decide(11, KEYS[5], KEYS[6], 1)
    if allowance and allowance.err then return allowance end
    if admits(allowance) then
      tokens = decide(18, KEYS[7], KEYS[8], cost)
      if tokens and tokens.err then return tokens end
      if admits(tokens) and spend_cap and cost > 0 then
        redis.call('SET', KEYS[9], s(spent + cost))
      end
    end
  end
end

local out = {0, now, capped}
for _, v in ipairs({cap or false, allowance or false, tokens or false}) do
  if v then
    table.insert(out, 1)
    for _, x in ipairs(v) do table.insert(out, x) end
  else
    for _ = 1, 7 do table.insert(out, 0) end
  end
end
return out
)lua";

// present, admitted, retry_after, limit, remaining, reset, too_large
constexpr std::size_t kReplyFields = 7;
constexpr std::int64_t kRetryNs = 1'000'000'000;  // reconnect at most once a second
const timeval kTimeout{1, 0};

std::string kind_code(LimiterKind kind) {
  switch (kind) {
    case LimiterKind::kFixedWindow:
      return "f";
    case LimiterKind::kSlidingWindow:
      return "s";
    case LimiterKind::kTokenBucket:
      break;
  }
  return "b";
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
  return kScript;
}

void RedisQuota::ReplyDeleter::operator()(redisReply* r) const {
  freeReplyObject(r);
}

RedisQuota::RedisQuota(RedisTarget target, ScriptLimits limits, double time_scale)
    : target_(std::move(target)), limits_(std::move(limits)), time_scale_(time_scale) {}

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
  const Reply r = command({"SCRIPT", "LOAD", std::string(kScript)});
  if (!r || r->type != REDIS_REPLY_STRING) {
    const std::string why = r ? std::string(r->str, r->len) : "no answer";
    return "Redis at " + target_.where() + " did not load the decision script: " + why;
  }
  sha_.assign(r->str, r->len);
  args_ = {"EVALSHA", sha_, "9"};
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

std::optional<QuotaVerdicts> RedisQuota::evaluate(std::int64_t now_ns, std::string_view tenant,
                                                  std::int64_t cost, std::int64_t* other_epoch) {
  // The state keys carry the epoch, so a reset (a new epoch) starts every limit and the
  // tokens spent from nothing.
  const std::string state = key("q:" + std::to_string(epoch_) + ":");
  const std::string t(tenant);
  std::vector<std::string>& a = args_;
  a.resize(3);
  a.insert(a.end(),
           {key("epoch"), state + "last", state + "cap", state + "caplog", state + "s:" + t,
            state + "l:" + t, state + "t:" + t, state + "u:" + t, state + "p:" + t,
            std::to_string(epoch_), std::to_string(now_ns), std::to_string(cost)});
  add_limit(a, limits_.capacity);
  add_limit(a, limits_.allowance);
  add_limit(a, limits_.tokens);
  a.push_back(limits_.spend_cap ? std::to_string(*limits_.spend_cap) : "");
  Reply r = command(a);
  if (r && r->type == REDIS_REPLY_ERROR && std::strncmp(r->str, "NOSCRIPT", 8) == 0) {
    if (connect()) return std::nullopt;  // Redis restarted empty; reload the script
    return evaluate(now_ns, tenant, cost, other_epoch);
  }
  if (!r) return std::nullopt;
  const auto bad = [&](const std::string& why) {
    lost("unexpected answer from the decision script: " + why);
    return std::nullopt;
  };
  if (r->type == REDIS_REPLY_ERROR) return bad(std::string(r->str, r->len));
  if (r->type != REDIS_REPLY_ARRAY || r->elements < 2) return bad("not an array");
  if (r->element[0]->integer == -1) {
    const redisReply* e = r->element[1];
    *other_epoch = e->type == REDIS_REPLY_STRING ? to_int({e->str, e->len}).value_or(-1) : -1;
    return std::nullopt;
  }
  if (r->elements != 3 + 3 * kReplyFields) return bad("wrong length");
  QuotaVerdicts q;
  q.t_ns = r->element[1]->integer;
  q.spend_capped = r->element[2]->integer == 1;
  q.capacity = verdict_at(*r, 3);
  q.allowance = verdict_at(*r, 3 + kReplyFields);
  q.tokens = verdict_at(*r, 3 + 2 * kReplyFields);
  return q;
}

QuotaVerdicts RedisQuota::decide(std::int64_t now_ns, std::string_view tenant, std::int64_t cost) {
  // Two epoch changes in a row: two resets racing this request; the third try settles it.
  for (int attempt = 0; attempt < 3 && usable(); ++attempt) {
    std::int64_t other = 0;
    if (auto q = evaluate(now_ns, tenant, cost, &other)) return *q;
    if (other == 0) break;  // Redis failed; lost() said why
    if (other < 0) {
      // The epoch key is gone (Redis flushed or restarted): carry on in ours.
      if (!join(epoch_)) break;
      continue;
    }
    // Another replica was reset: the same arrival, on the new epoch's clock.
    now_ns = saturating_add(
        now_ns, saturating_ns(static_cast<double>(saturating_sub(epoch_, other)) / time_scale_));
    epoch_ = other;
  }
  QuotaVerdicts q;
  q.t_ns = now_ns;
  q.unavailable = true;
  return q;
}

}  // namespace stampede
