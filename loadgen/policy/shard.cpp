#include "policy/shard.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "civil_date.hpp"
#include "results.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kNsPerSecond = 1'000'000'000;

Parsed<std::int64_t> whole_number(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return Parsed<std::int64_t>::fail("'" + std::string(text) + "' is not a whole number");
  return Parsed<std::int64_t>::ok(v);
}

// ".25" -> 250'000'000: digits after a decimal point as nanoseconds (beyond 9 digits ignored).
std::optional<std::int64_t> fraction_ns(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  std::int64_t ns = 0;
  std::int64_t scale = kNsPerSecond;
  for (const char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    scale /= 10;
    ns += (c - '0') * scale;
  }
  return ns;
}

// "2026-01-01T00:00:00[.fff](Z|+hh:mm|-hh:mm)"
std::optional<std::int64_t> rfc3339_ns(std::string_view t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  char sep = 0;
  const std::string text(t);
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi, &s, &n) !=
          7 ||
      (sep != 'T' && sep != 't' && sep != ' '))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  std::string_view rest = t.substr(static_cast<std::size_t>(n));
  std::int64_t frac_ns = 0;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    std::size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    const auto f = fraction_ns(rest.substr(0, digits));
    if (!f) return std::nullopt;
    frac_ns = *f;
    rest.remove_prefix(digits);
  }
  std::int64_t offset_s = 0;
  if (rest == "Z" || rest == "z") {
    offset_s = 0;
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    const auto oh = whole_number(rest.substr(1, 2));
    const auto om = whole_number(rest.substr(4, 2));
    if (!oh || !om) return std::nullopt;
    offset_s = (*oh * 3600 + *om * 60) * (rest[0] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  const std::int64_t seconds =
      days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
      mi * 60 + s - offset_s;
  // Years up to 9999 parse; nanoseconds since the epoch end in 2262.
  return saturating_add(saturating_mul(seconds, kNsPerSecond), frac_ns);
}

}  // namespace

std::int64_t items_of(const FleetConfig& fleet, const Shard& shard) {
  const std::int64_t total = fleet.item_count();
  if (!shard.sharded()) return total;
  // A queue and the open model's arrivals are split alike: item k to shard k mod count.
  if (fleet.workload != WorkloadKind::kStorm) return shard.clients_below(total);
  // Client c takes items c, c + clients, ... below the total.
  std::int64_t items = 0;
  const std::int64_t senders = std::min(fleet.clients, total);
  for (std::int64_t c = shard.index; c < senders; c += shard.count)
    items += (total - c + fleet.clients - 1) / fleet.clients;
  return items;
}

std::int64_t first_senders_of(const FleetConfig& fleet, const Shard& shard) {
  const std::int64_t clients = shard.clients_below(fleet.clients);
  if (fleet.workload == WorkloadKind::kQueue) return std::min(clients, items_of(fleet, shard));
  // The open model's arrivals may find any of them free.
  if (fleet.open_model()) return clients;
  return shard.clients_below(std::min(fleet.clients, fleet.item_count()));
}

Parsed<Shard> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto bad = [&](const std::string& why) {
    return Parsed<Shard>::fail("'" + std::string(text) + "' " + why +
                               "; give I/N with 0 <= I < N, e.g. 0/4");
  };
  if (slash == std::string_view::npos) return bad("is not I/N");
  const auto index = whole_number(text.substr(0, slash));
  const auto count = whole_number(text.substr(slash + 1));
  if (!index || !count) return bad("is not I/N");
  if (*count < 1) return bad("has no shards");
  if (*count > kMaxShards) return bad("has more than " + std::to_string(kMaxShards) + " shards");
  if (*index < 0 || *index >= *count) return bad("has an index outside 0..N-1");
  return Parsed<Shard>::ok(Shard{*index, *count});
}

Parsed<Shard> resolve_shard(const std::string& flag, const char* job_index, const char* shards) {
  if (!flag.empty()) {
    auto s = parse_shard(flag);
    if (!s) return Parsed<Shard>::fail("--shard: " + s.error());
    return s;
  }
  const bool has_index = job_index && *job_index;
  const bool has_count = shards && *shards;
  if (!has_index && !has_count) return Parsed<Shard>::ok(Shard{});
  if (!has_count)
    return Parsed<Shard>::fail(
        "JOB_COMPLETION_INDEX is set but STAMPEDE_SHARDS is not: set it to the Job's completions, "
        "or give --shard I/N");
  if (!has_index)
    return Parsed<Shard>::fail(
        "STAMPEDE_SHARDS is set but JOB_COMPLETION_INDEX is not: run as an Indexed Job, or give "
        "--shard I/N");
  auto s = parse_shard(std::string(job_index) + "/" + shards);
  if (!s) return Parsed<Shard>::fail("JOB_COMPLETION_INDEX/STAMPEDE_SHARDS: " + s.error());
  return s;
}

Parsed<std::int64_t> parse_start_at(std::string_view text) {
  if (auto ns = rfc3339_ns(text)) return Parsed<std::int64_t>::ok(*ns);
  // Epoch seconds, whole and fraction apart: a double would be off by hundreds of ns.
  const auto dot = text.find('.');
  const auto seconds = whole_number(text.substr(0, dot));
  std::optional<std::int64_t> fraction = 0;
  if (dot != std::string_view::npos) fraction = fraction_ns(text.substr(dot + 1));
  if (!seconds || *seconds <= 0 || text.front() == '+' || !fraction ||
      *seconds > std::numeric_limits<std::int64_t>::max() / kNsPerSecond - 1)
    return Parsed<std::int64_t>::fail("'" + std::string(text) +
                                      "' is neither epoch seconds (e.g. 1767225600.5) nor an "
                                      "RFC 3339 time (e.g. 2026-01-01T00:00:00Z)");
  return Parsed<std::int64_t>::ok(*seconds * kNsPerSecond + *fraction);
}

}  // namespace stampede
