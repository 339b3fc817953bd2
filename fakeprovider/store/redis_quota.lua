-- Decides a batch of arrivals, one after another in the order given, as if each were its own
-- call: a batch is one round trip for many decisions.
-- KEYS: epoch, last decision time, capacity state and log; then per arrival its tenant's
-- request state and log, token state and log, tokens spent (5 keys).
-- ARGV: epoch; per limit (capacity, allowance, tokens) kind (f, s, b or "" for none), count,
-- window_ns, scale, interval, tolerance, burst; the spend cap ("" for none); then per arrival
-- now_ns and its tokens (cost).
-- The layers run as ProviderPolicy runs them in process: capacity (cost 1); the spend cap
-- (rejects when cost > cap - spent, consuming nothing); the request allowance (cost 1); the
-- token allowance (cost), a rejection leaving the request allowance consumed; and the cost is
-- spent when all admitted.
-- Returns {-1, epoch or ""} when asked on another epoch (nothing decided), else {0, decided,
-- error} and per decided arrival {t_ns, spend_capped} and per limit {present, admitted,
-- retry_after_ns, limit, remaining, reset_ns, too_large}. error is "" when every arrival was
-- decided, else why the next one could not be (those after it were not tried). The cost
-- may be any int64 (as a double, inexact above 2^53, but only compared, and only a cost below
-- the limits is ever added). Lua numbers are doubles:
-- every value here is an integer below 2^53 (script_limit checks the limits), so each is exact,
-- and divisions are floored exactly by idiv.
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

local function limit_at(i)
  if ARGV[i] == '' then return nil end
  return {kind = ARGV[i], count = tonumber(ARGV[i + 1]), window = tonumber(ARGV[i + 2]),
          scale = tonumber(ARGV[i + 3]), interval = tonumber(ARGV[i + 4]),
          tolerance = tonumber(ARGV[i + 5]), burst = tonumber(ARGV[i + 6])}
end
local cap_limit, allowance_limit, tokens_limit = limit_at(2), limit_at(9), limit_at(16)
local spend_cap = tonumber(ARGV[23])
local last = tonumber(redis.call('GET', KEYS[2])) or 0
local last_stored = last

local function decide(l, now, key, log, cost)
  if l == nil then return nil end
  if l.kind == 'f' then return fixed(key, now, cost, l) end
  if l.kind == 's' then return sliding(key, log, now, cost, l) end
  return bucket(key, now, cost, l)
end

local function admits(v) return v == nil or v[1] == 1 end

-- One arrival: its keys from KEYS[k], its now and cost from ARGV[a]. Appends its answer to
-- out, or returns the error that stops the batch.
local function arrival(k, a, out)
  local now = tonumber(ARGV[a])
  if now < last then now = last else last = now end
  local cost = tonumber(ARGV[a + 1])
  local cap = decide(cap_limit, now, KEYS[3], KEYS[4], 1)
  if cap and cap.err then return cap.err end
  local capped, allowance, tokens = 0, nil, nil
  if admits(cap) then
    local spent = 0
    if spend_cap then
      spent = tonumber(redis.call('GET', KEYS[k + 4])) or 0
      if cost > spend_cap - spent then capped = 1 end
    end
    if capped == 0 then
      allowance = decide(allowance_limit, now, KEYS[k], KEYS[k + 1], 1)
      if allowance and allowance.err then return allowance.err end
      if admits(allowance) then
        tokens = decide(tokens_limit, now, KEYS[k + 2], KEYS[k + 3], cost)
        if tokens and tokens.err then return tokens.err end
        if admits(tokens) and spend_cap and cost > 0 then
          redis.call('SET', KEYS[k + 4], s(spent + cost))
        end
      end
    end
  end
  table.insert(out, now)
  table.insert(out, capped)
  for _, v in ipairs({cap or false, allowance or false, tokens or false}) do
    if v then
      table.insert(out, 1)
      for _, x in ipairs(v) do table.insert(out, x) end
    else
      for _ = 1, 7 do table.insert(out, 0) end
    end
  end
end

local out = {0, 0, ''}
local n = (#ARGV - 23) / 2
for i = 0, n - 1 do
  local err = arrival(5 + 5 * i, 24 + 2 * i, out)
  if err then
    out[3] = err
    break
  end
  out[2] = i + 1
end
if last > last_stored then redis.call('SET', KEYS[2], s(last)) end
return out
