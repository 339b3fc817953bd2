#include "policy/source_addresses.hpp"

#include <arpa/inet.h>

#include <charconv>

namespace stampede {
namespace {

constexpr std::uint32_t kLoopbackFirst = 0x7f000001;  // 127.0.0.1
constexpr std::uint32_t kLoopbackLast = 0x7ffffffe;   // 127.255.255.254

std::optional<std::uint32_t> ipv4_of(const std::string& address) {
  in_addr a{};
  if (inet_pton(AF_INET, address.c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

bool is_loopback(std::uint32_t address) {
  return (address >> 24) == 127;
}

std::optional<std::int64_t> number_at(std::string_view& text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return n;
}

}  // namespace

Parsed<PortRange> parse_port_range(std::string_view text) {
  const auto low = number_at(text);
  const auto high = low ? number_at(text) : std::nullopt;
  if (!high || *low < 1 || *high > 65535 || *high < *low)
    return Parsed<PortRange>::fail("not a local port range (LOW HIGH)");
  return Parsed<PortRange>::ok({*low, *high});
}

SourceShare source_share(const PortRange& range, std::int64_t chosen) {
  if (chosen > 0) return {chosen, chosen};
  const std::int64_t half = range.size() / 2;
  return {half - half / 10, range.size() - range.size() / 10};
}

Parsed<SourcePlan> plan_sources(std::int64_t connections, const SourceShare& share,
                                const std::string& target_address, const Shard& group,
                                const PortRange& range) {
  const auto target = ipv4_of(target_address);
  const bool spreadable = target && is_loopback(*target);
  const std::int64_t per_source = spreadable ? share.spread_past : share.at_most;
  SourcePlan plan;
  plan.group = group;
  plan.per_source = per_source;
  plan.count = per_source > 0 ? (connections + per_source - 1) / per_source : 1;
  if (plan.count <= 1) return Parsed<SourcePlan>::ok(SourcePlan{0, per_source, 1, group});
  const std::string why = std::to_string(connections) + " connections to " + target_address +
                          " need " + std::to_string(plan.count) + " source addresses (at most " +
                          std::to_string(per_source) + " from each: the local port range is " +
                          std::to_string(range.low) + "-" + std::to_string(range.high) + ")";
  if (!spreadable)
    return Parsed<SourcePlan>::fail(
        why +
        "; loadgen spreads clients over source addresses only for an IPv4 loopback target "
        "(127.x.x.x): run at most " +
        std::to_string(per_source) +
        " clients against it from this machine, or shard the fleet across machines (--shard)");
  if (plan.count - 1 > static_cast<std::int64_t>(kLoopbackLast - kLoopbackFirst))
    return Parsed<SourcePlan>::fail(why + ": more than the loopback network has");
  plan.first = kLoopbackFirst;
  return Parsed<SourcePlan>::ok(plan);
}

std::optional<std::uint32_t> source_of(const SourcePlan& plan, std::int64_t client) {
  if (!plan.spread()) return std::nullopt;
  const std::int64_t rank = (client - plan.group.index) / plan.group.count;
  return plan.first + static_cast<std::uint32_t>(rank / plan.per_source);
}

std::string ipv4_text(std::uint32_t address) {
  return std::to_string(address >> 24) + "." + std::to_string((address >> 16) & 0xff) + "." +
         std::to_string((address >> 8) & 0xff) + "." + std::to_string(address & 0xff);
}

}  // namespace stampede
