// Requests decided by a shared store (--store, without --hop-delay): each is suspended while
// its decision waits with the others that came in meanwhile, and one thread asks the store
// about them all in one round trip (LockedProvider::admit_all), then resumes them with their
// answers. One round trip per request, made by the loop's thread, held a replica to one
// decision in flight per loop; batched, a round trip decides everything that waited for it.
#include <sys/eventfd.h>

#include <algorithm>

#include "saturating.hpp"
#include "server/data_plane_internals.hpp"

namespace stampede {

void DataPlane::start_store_batches() {
  // With a hop delay the timer decides each request when its hop is over, in that order.
  if (!provider_.batches() || provider_.config().hop_delay) return;
  store_batches_ = std::make_unique<BatchThread<StoreWait>>(
      [this](std::vector<StoreWait>& batch) { decide_stored(batch); });
}

void DataPlane::hold_for_store(MHD_Connection* c, Request& r) {
  MHD_suspend_connection(c);
  suspended_.fetch_add(1, std::memory_order_relaxed);
  // After the suspension: the answer may resume it at once.
  store_batches_->put({c, &r, loop_of(c)});
}

void DataPlane::decide_stored(std::vector<StoreWait>& batch) {
  // The connections are suspended: their loops do not touch the requests until resumed.
  std::vector<ProviderArrival> arrivals;
  arrivals.reserve(batch.size());
  for (const StoreWait& w : batch) {
    const Held& h = *w.request->held;
    arrivals.push_back(
        {h.loop, h.arrives_steady_ns, h.tenant, h.send, h.client_id,
         RowRequest{h.row_op,
                    h.if_match ? std::optional<std::string_view>(*h.if_match) : std::nullopt},
         h.tokens});
  }
  const std::vector<Admission> admitted = provider_.admit_all(arrivals);
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
    if (std::find(woken.begin(), woken.end(), batch[i].loop) == woken.end())
      woken.push_back(batch[i].loop);
    ++resumed;
  }
  // A daemon driven from outside notices a resumption only when it next runs: once a loop.
  for (Loop* loop : woken) eventfd_write(loop->wake_fd, 1);
  suspended_.fetch_sub(resumed, std::memory_order_relaxed);
}

}  // namespace stampede
