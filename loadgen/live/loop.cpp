#include "live/loop.hpp"

#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "http/retry_after_header.hpp"
#include "live/http/curl_transport.hpp"
#include "live/http/native_transport.hpp"
#include "live/run_queue_wait.hpp"
#include "saturating.hpp"

namespace stampede {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr int kMaxEvents = 512;
// The slice a loop asks of the fair scheduler (EEVDF, Linux 6.12 on): short, so that a loop
// that wakes for a due send runs at once rather than after a busy neighbour's default slice.
constexpr std::uint64_t kLoopSliceNs = 100'000;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

bool uses_native_client(const LiveShared& shared) {
  switch (shared.options.http_client) {
    case HttpClient::kCurl:
      return false;
    case HttpClient::kNative:
      return true;
    case HttpClient::kAuto:
      break;
  }
  return NativeTransport::can_carry(shared.request, shared.options);
}

// Asks for a short scheduler slice, keeping the thread's policy and nice: its share of the CPU
// is the same, only how soon it runs when it wakes changes. A kernel without custom slices
// ignores the request (or refuses it; either way the loop runs as before).
void ask_short_slice() {
  struct {  // the kernel's struct sched_attr (glibc has no wrapper; its header clashes)
    std::uint32_t size, sched_policy;
    std::uint64_t sched_flags;
    std::int32_t sched_nice;
    std::uint32_t sched_priority;
    std::uint64_t sched_runtime, sched_deadline, sched_period;
    std::uint32_t sched_util_min, sched_util_max;
  } attr{};
  if (syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return;
  if (attr.sched_policy != SCHED_OTHER && attr.sched_policy != SCHED_BATCH) return;
  attr.sched_runtime = kLoopSliceNs;
  attr.sched_flags = 0;
  [[maybe_unused]] const auto r = syscall(SYS_sched_setattr, 0, &attr, 0);
}

}  // namespace

LiveLoop::LiveLoop(LiveShared& shared, unsigned index, unsigned loops) : shared_(shared) {
  const auto clients =
      static_cast<std::uint32_t>(shared.options.shard.clients_below(shared.scenario.fleet.clients));
  clients_.resize((clients - index + loops - 1) / loops);
  heap_.reserve(clients_.size());  // a client waits on one entry at most
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) fail("epoll_create1");
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd_ < 0) fail("timerfd_create");
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) fail("eventfd");
  for (const int fd : {timer_fd_, wake_fd_}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = event_data(0, fd);
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) fail("epoll_ctl");
  }
  for (std::uint32_t i = 0; i < clients_.size(); ++i) {
    clients_[i].id = static_cast<std::uint32_t>(shared.options.shard.client(index + i * loops));
    setup_client(clients_[i]);
  }
  if (shared.scenario.fleet.open_model()) {
    // The shard's arrivals dealt round the loops as its clients are: the pool is split alike.
    const auto& shard = shared.options.shard;
    arrivals_.emplace(shared.schedule, shared.scenario.fleet, open_trace(shared.scenario.fleet),
                      shard.index + index * shard.count,
                      static_cast<std::int64_t>(loops) * shard.count);
    if (shared.scenario.fleet.workload == WorkloadKind::kTrace) recording.trace.emplace();
    for (std::uint32_t i = 0; i < clients_.size(); ++i) pool_.release(i);
  }
  if (uses_native_client(shared)) {
    transport_ = std::make_unique<NativeTransport>(shared, clients_, epoll_fd_, *this);
  } else if (shared.request.stream) {
    // run --stream refuses libcurl before any load: a stream it carried would go unread.
    throw std::runtime_error("--stream: only the native client reads streams");
  } else {
    transport_ = std::make_unique<CurlTransport>(shared, clients_, epoll_fd_, *this);
  }
}

LiveLoop::~LiveLoop() {
  transport_.reset();  // before the clients it points into
  for (auto& c : clients_) {
    if (c.own_fd >= 0) close(c.own_fd);
  }
  for (const int fd : {epoll_fd_, timer_fd_, wake_fd_}) {
    if (fd >= 0) close(fd);
  }
}

void LiveLoop::setup_client(LiveClient& c) {
  const auto& fleet = shared_.scenario.fleet;
  c.rng = make_stream(fleet.seed, c.id);
  c.guards = RetryPolicy::make_guards(fleet);
  c.retry_after.reserve(64);
  if (shared_.scenario.provider.mode == ProviderMode::kOcc) c.occ.emplace();
}

void LiveLoop::adopt_connections(const std::vector<int>& fds_by_client) {
  for (auto& c : clients_) {
    if (c.id < fds_by_client.size()) c.own_fd = fds_by_client[c.id];
  }
  transport_->adopt_connections();
}

void LiveLoop::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = write(wake_fd_, &one, sizeof one);
}

void LiveLoop::arm_timer(std::int64_t at_wall_ns) {
  if (at_wall_ns == armed_ns_) return;
  itimerspec spec{};
  if (at_wall_ns != kNever) {
    // An absolute time of zero would disarm the timer; anything due is due now.
    const std::int64_t at = std::max<std::int64_t>(at_wall_ns, 1);
    spec.it_value.tv_sec = at / 1'000'000'000;
    spec.it_value.tv_nsec = at % 1'000'000'000;
  }
  timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_ns_ = at_wall_ns;
}

void LiveLoop::run() {
  // The kernel may defer a timer by the thread's slack (50 us by default): ask for none.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  ask_short_slice();
  prctl(PR_SET_NAME, "live-loop", 0, 0, 0);
  const auto waited_before = thread_run_queue_wait_ns();
  max_deadline_ns_ = saturating_add(shared_.clock.to_steady_ns(0), shared_.options.max_duration_ns);
  horizon_ns_ = shared_.clock.to_scenario_ns(max_deadline_ns_);
  if (!arrivals_) {
    for (auto& c : clients_) take_next_item(c, 0);
  }
  std::array<epoll_event, kMaxEvents> events{};
  while (true) {
    std::int64_t now = ScenarioClock::steady_ns();
    if (!stopping_ && now >= max_deadline_ns_) {
      shared_.request_stop(StopReason::kMaxDuration,
                           saturating_add(max_deadline_ns_, shared_.options.grace_ns));
    }
    if (!stopping_ && shared_.stop_requested.load(std::memory_order_relaxed)) begin_stop(now);
    if (stopping_) {
      abort_at_ns_ = shared_.abort_at_ns.load(std::memory_order_relaxed);
      if (now >= abort_at_ns_) abort_in_flight();
    }
    start_due_sends();
    const std::int64_t transport_next = transport_->run_timers();
    transport_->deliver_answers();
    // A parked item keeps the loop until --max-duration ends it, as a retry due then would.
    if (in_flight_ == 0 && heap_.empty() && parked_ == 0 && (stopping_ || !arrivals_pending()))
      break;

    std::int64_t next = transport_next >= 0 ? transport_next : kNever;
    if (stopping_) {
      next = std::min(next, abort_at_ns_);
    } else {
      if (!heap_.empty()) next = std::min(next, heap_.top().due_ns);
      if (arrivals_pending())
        next = std::min(next, shared_.clock.to_steady_ns(arrivals_->peek()->intended_ns));
      next = std::min(next, max_deadline_ns_);
    }
    int wait_ms = -1;
    if (next <= ScenarioClock::steady_ns()) {
      wait_ms = 0;
    } else {
      arm_timer(next);
    }
    const int n = epoll_wait(epoll_fd_, events.data(), kMaxEvents, wait_ms);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t data = events[i].data.u64;
      const int fd = static_cast<int>(data & 0xFFFFFFFFu);
      const auto tag = static_cast<std::uint32_t>(data >> 32);
      if (tag == 0) {
        std::uint64_t count = 0;
        [[maybe_unused]] const auto r = read(fd, &count, sizeof count);
        if (fd == timer_fd_) armed_ns_ = -1;
        continue;
      }
      transport_->on_event(tag, fd, events[i].events);
      // A send that fell due goes out before the next answer is read: the provider sees the
      // sends, and an answer read later is compensated.
      if (start_due_sends()) transport_->run_timers();
    }
    transport_->deliver_answers();
    if (mailbox.asked()) mailbox.serve(recording);
  }
  mailbox.serve(recording, true);
  const auto waited_after = thread_run_queue_wait_ns();
  if (waited_before && waited_after) cpu_wait_ns = *waited_after - *waited_before;
}

void LiveLoop::take_next_item(LiveClient& c, std::int64_t now_ns) {
  const auto item = arrivals_ ? std::nullopt : shared_.next_item(c.id, c.item_id);
  if (!item) {
    c.state = LiveClient::State::kIdle;
    c.item_id = -1;
    // The open model: free again for the next arrival.
    if (arrivals_) pool_.release(static_cast<std::uint32_t>(&c - clients_.data()));
    return;
  }
  start_item(c, *item, now_ns);
}

void LiveLoop::start_due_arrivals(std::int64_t now_wall_ns) {
  while (arrivals_pending()) {
    const WorkItem item = *arrivals_->peek();
    if (shared_.clock.to_steady_ns(item.intended_ns) > now_wall_ns) return;
    if (recording.trace) recording.trace->record_arrival(item.intended_ns);
    const auto free = pool_.take();
    if (free) take_sender(clients_[*free], arrivals_->peek_record());
    arrivals_->pop();
    if (!free) {
      ++recording.dropped;  // every client of the loop is busy with an item
      continue;
    }
    start_item(clients_[*free], item, item.intended_ns);
  }
}

// A trace's item is sent as its line's tenant, with its tokens.
void LiveLoop::take_sender(LiveClient& c, const TraceRecord* record) {
  if (!record) return;
  c.item_tenant = record->tenant;
  c.item_tokens = record->tokens;
}

void LiveLoop::start_item(LiveClient& c, const WorkItem& item, std::int64_t now_ns) {
  c.item_id = item.id;
  c.item_intended_ns = item.intended_ns;
  c.sends = 0;
  c.last_outcome.reset();
  c.last_status = 0;
  schedule(c, shared_.life.begin(now_ns, item, c.item, c.occ_cycle(), c.guards),
           arrivals_.has_value());
}

void LiveLoop::schedule(LiveClient& c, std::int64_t at_ns, bool from_schedule) {
  c.send_at_ns = at_ns;
  c.state = LiveClient::State::kWaiting;
  // A compensated schedule can ask for a moment already past: the send is due now, and the
  // harness is late only from now on.
  std::int64_t due = shared_.clock.to_steady_ns(at_ns);
  if (!from_schedule) due = std::max(due, ScenarioClock::steady_ns());
  heap_.push(due, static_cast<std::uint32_t>(&c - clients_.data()));
}

bool LiveLoop::start_due_sends() {
  // Nothing waits: no clock to read (this runs after every event a loop handles).
  if (stopping_ || (heap_.empty() && !arrivals_pending())) return false;
  bool started = false;
  // The clock is read again once what was due is out: a send that fell due while a burst was
  // written is found then and written next, not after the answers that came in meanwhile.
  for (std::int64_t now = ScenarioClock::steady_ns();; now = ScenarioClock::steady_ns()) {
    start_due_arrivals(now);
    if (heap_.empty() || heap_.top().due_ns > now) return started;
    while (!heap_.empty() && heap_.top().due_ns <= now) {
      const auto entry = heap_.top();
      heap_.pop();
      start_attempt(clients_[entry.client], entry.due_ns, now);
      started = true;
    }
  }
}

void LiveLoop::start_attempt(LiveClient& c, std::int64_t due_wall_ns, std::int64_t woke_wall_ns) {
  // occ mode: a write follows its read at once, with no backoff between them.
  const bool occ_write = c.occ && c.occ->cycle.writing;
  if (ItemLife::is_retry(c.item, c.occ_cycle())) {
    recording.backoff.add(c.send_at_ns, 1);
    bump(counters_.in_backoff, -1);
  }
  const Step due = shared_.life.on_send_due(c.send_at_ns, c.item, c.occ_cycle(), c.guards, c.rng);
  if (due.kind != Step::Kind::kSendNow) return reject_locally(c, due);
  recording.writes += occ_write;
  c.sends = c.item.sends;  // the transports number the send from it
  c.due_wall_ns = due_wall_ns;
  c.handed_wall_ns = ScenarioClock::steady_ns();
  c.sent_wall_ns = 0;
  // The timer's precision: when the loop woke and found the send due. The sends found due
  // with it before this one are written first; that queue is in the send lateness.
  c.wake_lateness_ns = std::max<std::int64_t>(0, woke_wall_ns - due_wall_ns);
  recording.lateness_ns.record(c.wake_lateness_ns);
  // The loop hands its sends over in time order, as their answers never come back.
  if (recording.trace && c.sends == 1)
    recording.trace->record_first_send(shared_.clock.to_scenario_ns(c.handed_wall_ns));
  c.retry_after.clear();
  c.should_retry.reset();
  c.exhausted = 0;
  if (c.occ) c.occ->etag.clear();
  c.state = LiveClient::State::kInFlight;
  ++in_flight_;
  bump(counters_.sent);
  transport_->send(c);
}

std::int64_t compensated_answer_ns(std::int64_t sent_wall_ns, std::int64_t answered_wall_ns,
                                   std::int64_t head_wall_ns, double time_scale) {
  if (head_wall_ns <= 0 || head_wall_ns > answered_wall_ns)
    return std::max<std::int64_t>(0, answered_wall_ns - sent_wall_ns);
  const double paced = static_cast<double>(answered_wall_ns - head_wall_ns) / time_scale;
  return saturating_add(std::max<std::int64_t>(0, head_wall_ns - sent_wall_ns),
                        saturating_ns(paced));
}

std::int64_t LiveLoop::answer_time(const LiveClient& c, const AttemptAnswer& a,
                                   bool provider_clock) const {
  if (!shared_.options.compensate_latency) return shared_.clock.to_scenario_ns(a.answered_wall_ns);
  const std::int64_t sent_wall = c.sent_wall_ns ? c.sent_wall_ns : c.handed_wall_ns;
  const std::int64_t on_the_wire = compensated_answer_ns(
      sent_wall, a.answered_wall_ns, a.stream.head_wall_ns, shared_.clock.time_scale());
  // A Retry-After counts from when the provider answered, on its clock: from the send as it
  // went, however late, so that no retry goes before the provider said.
  return saturating_add(provider_clock ? std::max(c.send_at_ns, c.sent_ns) : c.send_at_ns,
                        on_the_wire);
}

void LiveLoop::stamp_send(LiveClient& c) {
  const std::int64_t sent = c.sent_wall_ns ? c.sent_wall_ns : c.handed_wall_ns;
  c.send_lateness_ns = std::max<std::int64_t>(0, sent - c.due_wall_ns);
  send_lateness_ns.record(c.send_lateness_ns);
  c.sent_ns = shared_.clock.to_scenario_ns(sent);
  if (recording.trace && c.sends == 1) recording.trace->record_lag(c.item_intended_ns, c.sent_ns);
}

void LiveLoop::count_outcome(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      bump(counters_.ok);
      break;
    case Outcome::kRateLimited:
      bump(counters_.rate_limited);
      break;
    case Outcome::kUnavailable:
    case Outcome::kOverloaded:
    case Outcome::kServerError:
      bump(counters_.server_errors);
      break;
    default:
      bump(counters_.errors);
  }
}

void LiveLoop::answered(LiveClient& c, const AttemptAnswer& a) {
  --in_flight_;
  const Outcome outcome = outcome_of(a);
  stamp_send(c);
  recording.record_send(c.sent_ns, c.sends, outcome);
  recording.record_response(
      c.sends, a.answered_wall_ns - (c.sent_wall_ns ? c.sent_wall_ns : c.handed_wall_ns));
  if (a.status >= 100 && a.status <= 999) ++recording.statuses[a.status];
  if (a.stream.streamed) record_stream(c, a);
  count_outcome(outcome);
  if (c.sends == 1) {
    ++first_sends;
    // Only a refusal: a target that resets or answers garbage is there, and the run goes on.
    if (is_refusal(a.transport_error)) ++first_send_connect_errors;
  }
  std::optional<std::int64_t> hint;
  if (!c.retry_after.empty()) {
    if (const auto h = parse_retry_after(c.retry_after, ScenarioClock::unix_ns())) {
      // A delta is on the provider's clock already; a date's distance is a wall duration.
      hint = h->from_date
                 ? saturating_ns(static_cast<double>(h->delay_ns) / shared_.clock.time_scale())
                 : h->delay_ns;
    }
  }
  const bool follows_hint = hint && shared_.scenario.fleet.retry_after != RetryAfterMode::kIgnore;
  const std::int64_t now = answer_time(c, a, follows_hint);
  if (shared_.request.records_tokens) record_tokens(c, a, now);
  if (shared_.options.keep_attempts) {
    attempts.push_back({c.id, c.item_id, c.sends, c.send_at_ns, c.sent_ns, now, c.wake_lateness_ns,
                        c.send_lateness_ns, a.status, outcome, a.transport_error,
                        hint.value_or(-1)});
  }
  c.last_outcome = outcome;
  c.last_status = a.status;
  const Answer answer{outcome, a.status, hint, c.should_retry,
                      c.occ ? c.occ->read_version() : std::nullopt};
  finish_item(c, shared_.life.on_outcome(now, answer, c.item, c.occ_cycle(), c.guards, c.rng), now);
}

// Wall times from the request's write, as the response times are: what the fleet waited.
// Open streams over time are in scenario time, as the other per-second counts are: from the
// send (stamp_send's) to the last byte read.
void LiveLoop::record_stream(const LiveClient& c, const AttemptAnswer& a) {
  const StreamAnswer& s = a.stream;
  const std::int64_t sent_wall = c.sent_wall_ns ? c.sent_wall_ns : c.handed_wall_ns;
  recording.streams.record_open(
      c.sent_ns,
      shared_.clock.to_scenario_ns(s.end_wall_ns > 0 ? s.end_wall_ns : a.answered_wall_ns));
  const auto since_sent = [&](std::int64_t at) { return std::optional(at - sent_wall); };
  recording.streams.record(
      s.first_token_wall_ns > 0 ? since_sent(s.first_token_wall_ns) : std::nullopt,
      s.completed() ? since_sent(s.end_wall_ns) : std::nullopt, s.tokens);
}

// The token_limits section, as the simulator records it from the provider's decisions: a 429
// by the limit its body or headers name, at its send; an admitted LLM request's tokens at its
// send (its head said 2xx, even if its stream broke or timed out later), and the tokens it was
// written (streamed, or its one body's usage) at its answer's end.
void LiveLoop::record_tokens(const LiveClient& c, const AttemptAnswer& a, std::int64_t now_ns) {
  TokenRecording& t = recording.tokens;
  if (a.status == 429) {
    t.record_refusal(c.sent_ns, classify_refusal(a.error_reason, c.exhausted));
    return;
  }
  const auto& ask = shared_.request.tokens_asked;
  if (!ask || !((a.status >= 200 && a.status <= 299) || a.stream.streamed)) return;
  t.record_admitted(c.sent_ns, c.item_tokens.value_or(ask->input_tokens), ask->max_tokens);
  const auto written = a.stream.streamed ? std::optional(a.stream.tokens) : a.usage_output_tokens;
  if (written) t.record_settled(now_ns, *written, ask->max_tokens);
}

// Adaptive throttling dropped the send on the client: it failed as a 429 that never left, and
// `step` is what that led to.
void LiveLoop::reject_locally(LiveClient& c, const Step& step) {
  c.last_outcome = Outcome::kRateLimited;
  c.last_status = 0;
  finish_item(c, step, c.send_at_ns);
}

void LiveLoop::finish_item(LiveClient& c, const Step& step, std::int64_t now_ns) {
  switch (step.kind) {
    case Step::Kind::kSendNow:  // occ mode: the write follows its read at once
      return stopping_ ? leave_unfinished(c, now_ns) : schedule(c, now_ns);
    case Step::Kind::kRetryAt:
      if (stopping_) return leave_unfinished(c, now_ns);
      recording.backoff.add(now_ns, 0);
      bump(counters_.in_backoff);
      if (step.at_ns > horizon_ns_) return park(c);
      schedule(c, step.at_ns);
      return;
    case Step::Kind::kDone:
      bump(counters_.delivered);
      break;
    case Step::Kind::kDeadLetter:
      bump(counters_.dead_lettered);
      dead_letters.push_back({c.item_id, c.id, c.sends, c.last_outcome, c.last_status,
                              to_string(step.reason), now_ns});
      break;
  }
  record_item_end(recording, step, now_ns, c.item_intended_ns, c.sends);
  c.state = LiveClient::State::kIdle;
  if (!stopping_) take_next_item(c, now_ns);
}

// Due after --max-duration ends the run: no timer is set for it (nor any histogram bin),
// and the stop leaves it unfinished with the items still waiting.
void LiveLoop::park(LiveClient& c) {
  c.state = LiveClient::State::kWaiting;
  ++parked_;
}

void LiveLoop::leave_unfinished(LiveClient& c, std::int64_t now_ns) {
  dead_letters.push_back(
      {c.item_id, c.id, c.sends, c.last_outcome, c.last_status, kUnfinishedReason, now_ns});
  c.state = LiveClient::State::kIdle;
}

void LiveLoop::begin_stop(std::int64_t now_wall_ns) {
  stopping_ = true;
  const std::int64_t now = shared_.clock.to_scenario_ns(now_wall_ns);
  for (auto& c : clients_) {
    if (c.state == LiveClient::State::kWaiting) leave_unfinished(c, now);
  }
  heap_.clear();
  parked_ = 0;
  counters_.in_backoff.store(0, std::memory_order_relaxed);
}

void LiveLoop::abort_in_flight() {
  const std::int64_t now = shared_.clock.now_ns();
  for (auto& c : clients_) {
    if (c.state != LiveClient::State::kInFlight) continue;
    transport_->abort(c);
    --in_flight_;
    // It went, and may have arrived: count it, as a request that got no answer in time.
    stamp_send(c);
    recording.record_send(c.sent_ns, c.sends, Outcome::kTimeout);
    if (shared_.options.keep_attempts) {
      attempts.push_back({c.id, c.item_id, c.sends, c.send_at_ns, c.sent_ns, -1, c.wake_lateness_ns,
                          c.send_lateness_ns, 0, Outcome::kTimeout, TransportError::kAborted, -1});
    }
    leave_unfinished(c, now);
  }
}

}  // namespace stampede
