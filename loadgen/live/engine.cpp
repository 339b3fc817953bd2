#include "live/engine.hpp"

#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "enum_table.hpp"
#include "live/http/connections.hpp"
#include "live/loop.hpp"

namespace stampede {
namespace {

// Beyond one connection per client: epoll, timer and wake descriptors per loop, stdio, the
// result files, the provider admin's and libcurl's own.
constexpr rlim_t kSpareDescriptors = 64;
constexpr std::int64_t kConnectTimeoutNs = 30'000'000'000;

std::pair<double, double> cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

}  // namespace

std::string_view to_string(StopReason r) {
  constexpr EnumTable<StopReason, 3> kNames{{{StopReason::kNone, ""},
                                             {StopReason::kSignal, "signal"},
                                             {StopReason::kMaxDuration, "max_duration"}}};
  return enum_name(kNames, r);
}

std::int64_t descriptor_room(std::int64_t per_each) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_max == RLIM_INFINITY)
    return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(lim.rlim_max - std::min(lim.rlim_max, kSpareDescriptors)) /
         per_each;
}

std::optional<std::string> raise_descriptor_limit(std::int64_t clients, std::int64_t per_each,
                                                  std::string_view what, std::string_view holds) {
  const rlim_t need = static_cast<rlim_t>(clients * per_each) + kSpareDescriptors;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return std::string("getrlimit: ") + std::strerror(errno);
  if (lim.rlim_cur >= need) return std::nullopt;
  if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < need) {
    const auto fit =
        (lim.rlim_max - std::min(lim.rlim_max, kSpareDescriptors)) / static_cast<rlim_t>(per_each);
    return std::to_string(clients) + " " + std::string(what) + " need " + std::to_string(need) +
           " open files (" + std::string(holds) + ", plus " + std::to_string(kSpareDescriptors) +
           "), but the hard limit (ulimit -Hn) is " + std::to_string(lim.rlim_max) +
           "; run at most " + std::to_string(fit) + " " + std::string(what) +
           ", or raise the limit";
  }
  lim.rlim_cur = need;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
    return "cannot raise the open-file limit to " + std::to_string(need) + ": " +
           std::strerror(errno);
  return std::nullopt;
}

LiveEngine::LiveEngine(const Scenario& scenario, const LiveRequest& request,
                       const LiveOptions& options)
    : shared_(std::make_unique<LiveShared>(scenario, request, options)) {
  done_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (done_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
}

LiveEngine::~LiveEngine() {
  if (!threads_.empty()) {
    stop(0);
    for (auto& t : threads_) t.join();
  }
  loops_.clear();
  close(done_fd_);
}

std::optional<std::string> LiveEngine::start(const AtStart& at_start) {
  const auto& opt = shared_->options;
  const auto& fleet = shared_->scenario.fleet;
  const auto clients = static_cast<unsigned>(opt.shard.clients_below(fleet.clients));
  unsigned loops = opt.loops ? opt.loops : std::max(1u, std::thread::hardware_concurrency());
  loops = std::min(loops, clients);
  for (unsigned i = 0; i < loops; ++i)
    loops_.push_back(std::make_unique<LiveLoop>(*shared_, i, loops));
  if (!opt.connect_address.empty()) {
    // Only clients that get a first item ever send.
    const auto count = static_cast<std::size_t>(first_senders_of(fleet, opt.shard));
    std::vector<std::uint32_t> sources;
    for (std::size_t k = 0; opt.sources.spread() && k < count; ++k)
      sources.push_back(*source_of(opt.sources, opt.shard.client(static_cast<std::int64_t>(k))));
    auto fds =
        open_connections(opt.connect_address, opt.connect_port, count, kConnectTimeoutNs, sources);
    if (!fds) return "cannot open the clients' connections: " + fds.error();
    if (opt.sources.spread()) source_addresses_ = count_source_addresses(*fds);
    // The loops take them by global client id.
    std::vector<int> by_client(
        count ? static_cast<std::size_t>(opt.shard.client(static_cast<std::int64_t>(count) - 1)) + 1
              : 0,
        -1);
    for (std::size_t k = 0; k < count; ++k)
      by_client[static_cast<std::size_t>(opt.shard.client(static_cast<std::int64_t>(k)))] =
          (*fds)[k];
    for (auto& loop : loops_) loop->adopt_connections(by_client);
  }
  const auto sleep_until = [](std::int64_t steady_ns) {
    const std::int64_t wait = steady_ns - ScenarioClock::steady_ns();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
  };
  std::int64_t start_ns = opt.start_steady_ns;
  if (at_start) {
    const auto decided = at_start();
    if (!decided) return decided.error();
    if (*decided > 0) start_ns = *decided;
  }
  if (start_ns > 0) {
    // A start ahead: the loops are made and their first sends put on their timers before
    // t=0, so that at t=0 every loop wakes ready, none still being made or scheduling its
    // clients while the others send.
    shared_->clock.restart_at(start_ns);
    start_loops();
    sleep_until(start_ns);
    start_late_ns_ = std::max<std::int64_t>(0, ScenarioClock::steady_ns() - start_ns);
    std::tie(start_cpu_user_s_, start_cpu_sys_s_) = cpu_seconds();
  } else {
    std::tie(start_cpu_user_s_, start_cpu_sys_s_) = cpu_seconds();
    shared_->clock.restart();
    start_loops();
  }
  started_.store(true, std::memory_order_release);
  return std::nullopt;
}

void LiveEngine::start_loops() {
  start_wall_ns_ = shared_->clock.to_steady_ns(0);
  shared_->loops_running.store(static_cast<unsigned>(loops_.size()));
  for (auto& loop : loops_) {
    threads_.emplace_back([this, l = loop.get()] {
      l->run();
      if (shared_->loops_running.fetch_sub(1) == 1) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = write(done_fd_, &one, sizeof one);
      }
    });
  }
}

void LiveEngine::stop(std::int64_t grace_ns) {
  shared_->request_stop(StopReason::kSignal, ScenarioClock::steady_after(grace_ns));
  for (auto& loop : loops_) loop->wake();
}

bool LiveEngine::stopping() const {
  return shared_->stop_requested.load();
}

LiveProgress LiveEngine::progress() const {
  LiveProgress p;
  p.elapsed_ns = ScenarioClock::steady_ns() - start_wall_ns_;
  for (const auto& loop : loops_) {
    const auto& c = loop->counters();
    constexpr auto relaxed = std::memory_order_relaxed;
    p.sent += c.sent.load(relaxed);
    p.ok += c.ok.load(relaxed);
    p.rate_limited += c.rate_limited.load(relaxed);
    p.server_errors += c.server_errors.load(relaxed);
    p.errors += c.errors.load(relaxed);
    p.in_backoff += c.in_backoff.load(relaxed);
    p.delivered += c.delivered.load(relaxed);
    p.dead_lettered += c.dead_lettered.load(relaxed);
  }
  return p;
}

void LiveEngine::count_items(Recording& rec) const {
  rec.items = items_of(shared_->scenario.fleet, shared_->options.shard);
  rec.unfinished = rec.items - rec.delivered - rec.dead_lettered - rec.dropped;
}

std::optional<Recording> LiveEngine::recording_so_far(std::int64_t wait_ns) const {
  if (!started_.load(std::memory_order_acquire)) return std::nullopt;
  std::vector<std::uint64_t> tickets;
  for (const auto& loop : loops_) {
    tickets.push_back(loop->mailbox.ask());
    loop->wake();
  }
  const std::int64_t deadline_ns = ScenarioClock::steady_after(wait_ns);
  Recording all;
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    const auto copy = loops_[i]->mailbox.take(tickets[i], deadline_ns - ScenarioClock::steady_ns());
    if (!copy) return std::nullopt;
    all.merge(*copy);
  }
  count_items(all);
  return all;
}

LiveRun LiveEngine::finish() {
  for (auto& t : threads_) t.join();
  threads_.clear();
  LiveRun run;
  run.end_ns = shared_->clock.now_ns();
  run.wall_s = static_cast<double>(ScenarioClock::steady_ns() - start_wall_ns_) / 1e9;
  run.stopped = static_cast<StopReason>(shared_->stop_reason.load());
  run.loops = static_cast<unsigned>(loops_.size());
  if (!loops_.empty()) run.http_client = loops_.front()->transport_name();
  run.start_late_ns = start_late_ns_;
  run.source_addresses = source_addresses_;
  run.cpu_wait_s = 0.0;
  for (auto& loop : loops_) {
    run.recording.merge(loop->recording);
    run.send_lateness_ns.merge(loop->send_lateness_ns);
    run.first_sends += loop->first_sends;
    run.first_send_connect_errors += loop->first_send_connect_errors;
    if (!loop->cpu_wait_ns) run.cpu_wait_s.reset();
    if (run.cpu_wait_s) *run.cpu_wait_s += static_cast<double>(*loop->cpu_wait_ns) / 1e9;
    run.attempts.insert(run.attempts.end(), loop->attempts.begin(), loop->attempts.end());
  }
  // Dead letters first, then what was still going, each in item order.
  for (const bool unfinished : {false, true}) {
    const auto first = run.dead_letters.size();
    for (auto& loop : loops_) {
      for (const auto& d : loop->dead_letters) {
        if ((d.reason == kUnfinishedReason) == unfinished) run.dead_letters.push_back(d);
      }
    }
    std::sort(run.dead_letters.begin() + static_cast<std::ptrdiff_t>(first), run.dead_letters.end(),
              [](const DeadLetter& a, const DeadLetter& b) { return a.item < b.item; });
  }
  std::sort(run.attempts.begin(), run.attempts.end(),
            [](const AttemptRecord& a, const AttemptRecord& b) {
              return a.sent_ns != b.sent_ns ? a.sent_ns < b.sent_ns : a.client < b.client;
            });
  count_items(run.recording);
  const auto [user, sys] = cpu_seconds();
  run.cpu_user_s = user - start_cpu_user_s_;
  run.cpu_sys_s = sys - start_cpu_sys_s_;
  return run;
}

}  // namespace stampede
