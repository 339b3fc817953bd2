-- wrk: each connection waits PACE_MS between its requests (wrk's delay hook), so
-- -c CONNECTIONS makes about CONNECTIONS * 1000 / PACE_MS requests a second: an open, light
-- load whose latency is the servers' own, not a queue's.
local pace_ms = tonumber(os.getenv("PACE_MS") or "10")
function delay()
  return pace_ms
end
