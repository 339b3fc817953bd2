#include "cli/worker_progress.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "cli/fleet_workers.hpp"
#include "duration.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kReportEveryNs = kNsPerSec;

// The report's fields, in order.
std::array<std::int64_t*, 9> fields_of(LiveProgress& p) {
  return {&p.elapsed_ns, &p.sent,       &p.ok,        &p.rate_limited, &p.server_errors,
          &p.errors,     &p.in_backoff, &p.delivered, &p.dead_lettered};
}

// The start line on fd, read to its newline; nullopt with why when the pipe ends without one.
Parsed<std::int64_t> read_start_line(int fd) {
  using Result = Parsed<std::int64_t>;
  LineBuffer lines;
  std::optional<std::string> line;
  char buf[64];
  while (!line) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Result::fail(std::string("reading the start: ") + std::strerror(errno));
    if (n == 0) return Result::fail("the supervisor ended before it gave the start");
    lines.feed(std::string_view(buf, static_cast<std::size_t>(n)),
               [&](std::string_view l) { line.emplace(l); });
  }
  if (const auto ns = parse_start_line(*line)) return Result::ok(*ns);
  return Result::fail("not a start from the supervisor: " + *line);
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

void say_ready(int fd) {
  const std::string ready = std::string(kWorkerReadyLine) + "\n";
  [[maybe_unused]] const auto n = write(fd, ready.data(), ready.size());
}

Parsed<HeardStart> await_fleet_start(int start_fd, int signal_fd) {
  using Result = Parsed<HeardStart>;
  pollfd fds[2] = {{signal_fd, POLLIN, 0}, {start_fd, POLLIN, 0}};
  while (poll(fds, 2, -1) < 0) {
    if (errno != EINTR) return Result::fail(std::string("poll: ") + std::strerror(errno));
  }
  // Both at once: the signal wins, as the supervisor sends no start after one.
  if (fds[0].revents & POLLIN) return Result::ok({0, true});
  if (fds[1].revents & POLLNVAL)
    return Result::fail("no start descriptor " + std::to_string(start_fd) +
                        ": a worker waits for its supervisor's start");
  const auto start = read_start_line(start_fd);
  if (!start) return Result::fail(start.error());
  return Result::ok({*start, false});
}

}  // namespace stampede
