#include "cli/progress_line.hpp"

#include <algorithm>

namespace stampede {
namespace {

std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

long long ll(std::int64_t v) {
  return static_cast<long long>(v);
}

// Before --start-at the wall clock is short of t = 0: no time has passed yet.
double scenario_s(std::int64_t wall_ns, double time_scale) {
  return static_cast<double>(std::max<std::int64_t>(wall_ns, 0)) / 1e9 / time_scale;
}

}  // namespace

std::string format_run_progress(const LiveProgress& now, const LiveProgress& before,
                                double time_scale) {
  const double t = scenario_s(now.elapsed_ns, time_scale);
  const double span = t - scenario_s(before.elapsed_ns, time_scale);
  const double rate = span > 0 ? static_cast<double>(now.sent - before.sent) / span : 0.0;
  return fmt(
      "t=%.1f s  items: %lld delivered, %lld in backoff, %lld dead-lettered  requests %lld "
      "(%.1f/s)  statuses: 2xx %lld, 429 %lld, 5xx %lld, errors %lld",
      t, ll(now.delivered), ll(now.in_backoff), ll(now.dead_lettered), ll(now.sent), rate,
      ll(now.ok), ll(now.rate_limited), ll(now.server_errors), ll(now.errors));
}

std::string format_exec_progress(const ExecProgress& p) {
  if (!p.released) return fmt("waiting for the release  processes: %lld running", ll(p.running));
  return fmt(
      "t=%.1f s  processes: %lld running, %lld ended  clients: %lld delivered, %lld "
      "dead-lettered",
      scenario_s(p.elapsed_ns, 1.0), ll(p.running), ll(p.ended), ll(p.delivered),
      ll(p.dead_lettered));
}

std::string format_sim_progress(const SimProgress& p) {
  const std::string line = fmt("simulated t=%.0f s  requests %lld  finished %lld",
                               ns_to_s(p.now_ns), ll(p.requests), ll(p.finished));
  // A trace still being read has no count yet.
  return p.items > 0 ? line + fmt(" of %lld", ll(p.items)) : line;
}

ProgressPrinter::ProgressPrinter(bool enabled, bool tty, std::int64_t period_ns,
                                 std::int64_t start_ns)
    : enabled_(enabled),
      tty_(tty),
      period_ns_(tty ? kProgressTtyRefreshNs : period_ns),
      next_ns_(start_ns + period_ns_) {}

bool ProgressPrinter::due(std::int64_t now_ns) const {
  return enabled_ && now_ns >= next_ns_;
}

std::int64_t ProgressPrinter::until_due_ns(std::int64_t now_ns) const {
  if (!enabled_) return kProgressTtyRefreshNs;
  return std::clamp<std::int64_t>(next_ns_ - now_ns, 0, kProgressTtyRefreshNs);
}

void ProgressPrinter::print(const std::string& line, std::int64_t now_ns) {
  if (!enabled_) return;
  // On the grid from the start, so a slow wake does not drift the lines of a long run.
  while (next_ns_ <= now_ns) next_ns_ += period_ns_;
  if (tty_) {
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "loadgen: %s\n", line.c_str());
  }
}

void ProgressPrinter::clear() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace stampede
