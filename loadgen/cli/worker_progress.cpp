#include "cli/worker_progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "duration.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kReportEveryNs = kNsPerSec;

// The report's fields, in order.
std::array<std::int64_t*, 9> fields_of(LiveProgress& p) {
  return {&p.elapsed_ns, &p.sent,       &p.ok,        &p.rate_limited, &p.server_errors,
          &p.errors,     &p.in_backoff, &p.delivered, &p.dead_lettered};
}

}  // namespace

std::string format_progress_report(const LiveProgress& p) {
  LiveProgress copy = p;
  std::string line;
  for (const auto* f : fields_of(copy)) line += (line.empty() ? "" : " ") + std::to_string(*f);
  return line + "\n";
}

std::optional<LiveProgress> parse_progress_report(std::string_view line) {
  LiveProgress p;
  const char* at = line.data();
  const char* end = line.data() + line.size();
  for (auto* f : fields_of(p)) {
    if (at < end && *at == ' ' && f != &p.elapsed_ns) ++at;
    const auto [next, ec] = std::from_chars(at, end, *f);
    if (ec != std::errc() || next == at) return std::nullopt;
    at = next;
  }
  if (at != end) return std::nullopt;
  return p;
}

LiveProgress add_progress(const LiveProgress& a, const LiveProgress& b) {
  LiveProgress sum = a;
  LiveProgress other = b;
  const auto to = fields_of(sum);
  const auto from = fields_of(other);
  for (std::size_t i = 1; i < to.size(); ++i) *to[i] += *from[i];
  sum.elapsed_ns = std::max(a.elapsed_ns, b.elapsed_ns);
  return sum;
}

std::int64_t ProgressReporter::until_due_ns(std::int64_t now_ns) const {
  return fd_ < 0 ? kReportEveryNs : std::max<std::int64_t>(0, next_ns_ - now_ns);
}

void ProgressReporter::tick(const LiveEngine& engine, std::int64_t now_ns) {
  if (fd_ < 0 || now_ns < next_ns_) return;
  const std::string line = format_progress_report(engine.progress());
  [[maybe_unused]] const auto n = write(fd_, line.data(), line.size());
  next_ns_ = now_ns + kReportEveryNs;
}

}  // namespace stampede
