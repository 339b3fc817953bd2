#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/shared_store.hpp"

struct redisContext;
struct redisReply;

namespace stampede {

// The quota layers in Redis, for provider replicas that enforce one allowance: one EVALSHA
// per batch of decisions (decide_all; decide is a batch of one) runs, for each in turn, capacity
// then the tenant's spend cap, request allowance and token allowance atomically on the server, in
// ProviderPolicy's order and with the in-process limiters' arithmetic (tests/store compares every
// kind on the same arrivals).
//
// The replicas share one scenario clock: the epoch key holds t = 0 as wall-clock nanoseconds,
// set by the first replica to start and by every admin reset. Each replica stamps arrivals on
// its own clock started at that epoch; the script refuses a decision made on another epoch
// (another replica was reset), and the replica moves its time to the new epoch and asks again.
// Every key is under the target's prefix; the limits' state keys also carry the epoch.
class RedisQuota final : public SharedStore {
 public:
  RedisQuota(RedisTarget target, ScriptLimits limits, double time_scale);
  ~RedisQuota() override;
  RedisQuota(const RedisQuota&) = delete;
  RedisQuota& operator=(const RedisQuota&) = delete;

  // Connects and loads the script; the error text when Redis cannot be reached.
  std::optional<std::string> connect();
  // Joins the scenario the store already runs, or starts one at wall_ns (a
  // system_clock reading). False when Redis is unreachable.
  bool join(std::int64_t wall_ns);
  bool reset(std::int64_t wall_ns) override;
  std::int64_t epoch_wall_ns() const override { return epoch_; }

  QuotaVerdicts decide(std::int64_t now_ns, std::string_view tenant, std::int64_t cost) override;
  std::vector<QuotaVerdicts> decide_all(std::span<const QuotaAsk> asks) override;

 private:
  struct ReplyDeleter {
    void operator()(redisReply* r) const;
  };
  using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

  Reply command(const std::vector<std::string>& args);
  bool usable();  // connected, or reconnected (at most one try a second)
  void lost(const std::string& why);
  // Decides asks[out.size()..] at now_ns[i] in one script run, appending to out; fewer when
  // Redis failed (lost() said why) or the store is on another epoch (other_epoch: that epoch,
  // or -1 when the key is gone; nothing decided then).
  void evaluate(std::span<const QuotaAsk> asks, const std::vector<std::int64_t>& now_ns,
                std::vector<QuotaVerdicts>& out, std::int64_t* other_epoch);
  std::string key(std::string_view name) const;

  const RedisTarget target_;
  const ScriptLimits limits_;
  const double time_scale_;
  redisContext* context_ = nullptr;
  std::string sha_;
  std::int64_t epoch_ = 0;
  std::int64_t next_try_steady_ns_ = 0;
  bool said_lost_ = false;
  std::vector<std::string> limit_args_;  // the script's ARGV after the epoch, built once
  std::vector<std::string> args_;        // EVALSHA's, kept for its strings' capacity
};

// The decision script (Lua), for the tests and the curious.
std::string_view redis_quota_script();

}  // namespace stampede
