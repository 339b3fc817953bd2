// A loop's line to the store: the batch is decided on the line's thread, from copies of the
// arrivals, and the answer waits behind the descriptor until the loop takes it.
#include <doctest/doctest.h>
#include <poll.h>

#include <string>
#include <vector>

#include "server/store_line.hpp"

using namespace stampede;

namespace {

// Whether fd turns readable within a generous bound (the line's thread is on its way).
bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

struct Seen {
  std::string tenant, client_id, if_match;
};

}  // namespace

TEST_CASE("StoreLine: a batch is decided from its copies, and answered once, in order") {
  std::vector<Seen> seen;  // the line's thread's, read once its answer is in
  StoreLine line([&seen](std::span<const ProviderArrival> arrivals) {
    std::vector<Admission> admitted;
    for (const ProviderArrival& a : arrivals) {
      seen.push_back({std::string(a.tenant), std::string(a.client_id),
                      a.row.if_match ? std::string(*a.row.if_match) : ""});
      Decision d;
      d.status = a.tenant == "late" ? 429 : 200;
      admitted.push_back({a.seen_steady_ns, d, std::nullopt, {a.thread, 0, std::nullopt}});
    }
    return admitted;
  });
  CHECK_FALSE(readable(line.fd(), 0));
  {
    // The caller's strings are gone once it has asked: the line keeps its own.
    std::string early = "early", late = "late", client = "c-1", tag = "\"3\"";
    std::vector<ProviderArrival> asked(2);
    asked[0].tenant = early;
    asked[0].seen_steady_ns = 1;
    asked[0].client_id = client;
    asked[0].row.if_match = std::string_view(tag);
    asked[1].tenant = late;
    asked[1].seen_steady_ns = 2;
    asked[1].thread = 1;
    line.ask(asked);
    early.assign(64, 'x');
    late.assign(64, 'x');
    client.assign(64, 'x');
    tag.assign(64, 'x');
  }
  REQUIRE(readable(line.fd(), 10'000));
  const std::vector<Admission> answer = line.answer(2);
  REQUIRE(answer.size() == 2);
  CHECK(answer[0].decision.status == 200);
  CHECK(answer[0].t_ns == 1);
  CHECK(answer[1].decision.status == 429);
  CHECK(answer[1].ticket.thread == 1);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].tenant == "early");
  CHECK(seen[0].client_id == "c-1");
  CHECK(seen[0].if_match == "\"3\"");
  CHECK(seen[1].tenant == "late");
  CHECK(seen[1].if_match.empty());
  // Taken: quiet until the next question's answer.
  CHECK_FALSE(readable(line.fd(), 0));
  std::vector<ProviderArrival> next(1);
  next[0].tenant = "late";
  line.ask(next);
  REQUIRE(readable(line.fd(), 10'000));
  CHECK(line.answer(1).at(0).decision.status == 429);
}
