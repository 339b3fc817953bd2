// Requests decided by a shared store (--store, without --hop-delay), or by the process that
// owns the provider (a worker of --processes): each is suspended while its decision waits with
// the others that came in meanwhile, and one round trip decides them all, then they are resumed
// with their answers. One round trip per request, made by the loop's thread, held a replica to
// one decision in flight per loop; batched, a round trip decides everything that waited for it.
//
// The loop asks on its own line (AdmissionLine: to the store, or to the process that owns the
// provider) and reads the answer when it comes, in its poll with the rest.
#include <sys/eventfd.h>

#include <algorithm>

#include "saturating.hpp"
#include "server/data_plane_internals.hpp"

namespace stampede {

std::vector<ProviderArrival> DataPlane::arrivals_of(const std::vector<StoreWait>& batch) {
  std::vector<ProviderArrival> arrivals;
  arrivals.reserve(batch.size());
  for (const auto& w : batch) {
    const auto& h = *w.request->held;
    arrivals.push_back(
        {h.loop, h.arrives_steady_ns, h.tenant, h.send, h.client_id,
         RowRequest{h.row_op,
                    h.if_match ? std::optional<std::string_view>(*h.if_match) : std::nullopt},
         h.tokens});
  }
  return arrivals;
}

void DataPlane::hold_for_store(MHD_Connection* c, Request& r) {
  MHD_suspend_connection(c);
  suspended_.fetch_add(1, std::memory_order_relaxed);
  Loop* loop = loop_of(c);
  loop->pending.push_back({c, &r, loop});
}

void DataPlane::ask_line(Loop& loop) {
  if (!loop.line || !loop.asked.empty() || loop.pending.empty()) return;
  loop.asked.swap(loop.pending);
  loop.line->ask(arrivals_of(loop.asked));
}

void DataPlane::take_line_answer(Loop& loop) {
  settle(loop.asked, loop.line->answer(loop.asked.size()), &loop);
  loop.asked.clear();
  ask_line(loop);
}

void DataPlane::settle(std::vector<StoreWait>& batch, const std::vector<Admission>& admitted,
                       const Loop* self) {
  // The connections are suspended: their loops do not touch the requests until resumed.
  const std::int64_t now_ns = ScenarioClock::steady_ns();
  std::vector<Loop*> woken;
  std::int64_t resumed = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    Request& r = *batch[i].request;
    r.decision = admitted[i].decision;
    r.row_version = admitted[i].row_version;
    r.ticket = admitted[i].ticket;
    r.held.reset();
    r.served = true;  // the service time passes here, suspended still
    if (r.decision.service_ns > 0) {
      resume_at(saturating_add(now_ns, provider_.clock().wall_ns(r.decision.service_ns)),
                batch[i].connection, batch[i].loop);
      continue;
    }
    MHD_resume_connection(batch[i].connection);
    if (batch[i].loop != self &&
        std::find(woken.begin(), woken.end(), batch[i].loop) == woken.end())
      woken.push_back(batch[i].loop);
    ++resumed;
  }
  // A daemon driven from outside notices a resumption only when it next runs: once a loop. Its
  // own loop runs it next anyway.
  for (Loop* loop : woken) eventfd_write(loop->wake_fd, 1);
  suspended_.fetch_sub(resumed, std::memory_order_relaxed);
}

}  // namespace stampede
