#pragma once

// The store tests' one way to a RedisQuota joined to a live redis-server.

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "model/provider_policy.hpp"
#include "scenario_clock.hpp"
#include "store/redis_quota.hpp"
#include "support/redis.hpp"

namespace stampede {

inline std::unique_ptr<RedisQuota> open_quota(const support::RedisServer& redis,
                                              const std::string& prefix, const ProviderConfig& c) {
  auto target = parse_redis_url(redis.url(prefix));
  auto limits = script_limits(c);
  REQUIRE(target);
  INFO(limits.error());
  REQUIRE(limits);
  auto store = std::make_unique<RedisQuota>(*target, *limits, 1.0);
  const auto e = store->connect();
  INFO(e.value_or(""));
  REQUIRE(!e);
  REQUIRE(store->join(ScenarioClock::unix_ns()));
  return store;
}

}  // namespace stampede
