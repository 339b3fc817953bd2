// A data-plane worker's provider (--processes) against the owner's DecisionServer, in one
// process over real socket pairs: each loop's line carries its own question while another is
// in flight, and every answer is the owner's decision for that arrival, numbered as the
// worker's loop among all workers' loops.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <string>
#include <vector>

#include "processes/decision_server.hpp"
#include "processes/remote_admitter.hpp"

using namespace stampede;

namespace {

// Decides by the arrival's time: an even one admitted (200), an odd one refused (429); notes
// which loop each came from, in the order decided.
class ParityAdmitter : public Admitter {
 public:
  const ProviderConfig& config() const override { return config_; }
  const SendRules& send_rules() const override { return rules_; }
  const ScenarioClock& clock() const override { return clock_; }
  Admission admit(const ProviderArrival& arrival) override { return admit_all({&arrival, 1})[0]; }
  std::vector<Admission> admit_all(std::span<const ProviderArrival> arrivals) override {
    std::vector<Admission> out;
    const std::lock_guard lock(mu);
    for (const ProviderArrival& a : arrivals) {
      threads.push_back(a.thread);
      Decision d;
      d.status = a.seen_steady_ns % 2 == 0 ? 200 : 429;
      out.push_back({a.seen_steady_ns, d, std::nullopt, {a.thread, 0, std::nullopt}});
    }
    return out;
  }
  void note_upstream(const AdmissionTicket&, int) override {}
  std::int64_t draw_hop_ns() override { return 7; }

  std::mutex mu;
  std::vector<std::size_t> threads;

 private:
  ProviderConfig config_;
  SendRules rules_;
  ScenarioClock clock_;
};

// One worker's channel and two lines: the worker's ends, and the owner's.
struct Pairs {
  std::vector<int> worker, owner;
  Pairs() {
    for (int i = 0; i < 3; ++i) {
      int pair[2];
      REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
      owner.push_back(pair[0]);
      worker.push_back(pair[1]);
    }
  }
  ~Pairs() {
    for (const int fd : worker) close(fd);
  }
};

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 5000) == 1;
}

std::vector<ProviderArrival> arrivals(std::size_t loop, std::vector<std::int64_t> times) {
  std::vector<ProviderArrival> out;
  for (const std::int64_t t : times) out.push_back({loop, t, "tenant", {}, "client", {}, {}, {}});
  return out;
}

}  // namespace

TEST_CASE("--processes: each loop's line is answered on its own, in order, as the owner decides") {
  ParityAdmitter owner;
  Pairs pairs;
  DecisionServer server(owner, pairs.owner);
  const std::size_t thread_offset = 4;  // worker 2 of 2-loop workers
  RemoteAdmitter worker(pairs.worker[0], std::span<const int>(pairs.worker).subspan(1),
                        thread_offset, ProviderConfig{}, SendRules{}, 1.0);
  AdmissionLine* line0 = worker.line(0);
  AdmissionLine* line1 = worker.line(1);
  REQUIRE(line0);
  REQUIRE(line1);
  CHECK(line0->fd() != line1->fd());
  CHECK(worker.line(2) == nullptr);

  // Both questions in flight at once; the second is answered whichever is read first.
  line0->ask(arrivals(0, {10, 11, 12}));
  line1->ask(arrivals(1, {21}));
  REQUIRE(readable(line1->fd()));
  const auto second = line1->answer(1);
  REQUIRE(second.size() == 1);
  CHECK(second[0].decision.status == 429);
  CHECK(second[0].ticket.thread == 5);
  REQUIRE(readable(line0->fd()));
  const auto first = line0->answer(3);
  REQUIRE(first.size() == 3);
  CHECK(first[0].decision.status == 200);
  CHECK(first[1].decision.status == 429);
  CHECK(first[2].decision.status == 200);
  CHECK(first[2].t_ns == 12);
  for (const Admission& a : first) CHECK(a.ticket.thread == 4);
  for (const Admission& a : first) CHECK_FALSE(a.decision.reset_connection);

  // The worker's own channel still asks and waits, beside the lines.
  const auto waited = worker.admit_all(arrivals(1, {30}));
  REQUIRE(waited.size() == 1);
  CHECK(waited[0].decision.status == 200);
  CHECK(worker.draw_hop_ns() == 7);

  const std::lock_guard lock(owner.mu);
  CHECK(owner.threads.size() == 5);
  for (const std::size_t t : owner.threads) CHECK(t >= thread_offset);
}
