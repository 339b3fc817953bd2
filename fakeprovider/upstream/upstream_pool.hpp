#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "upstream/upstream_config.hpp"
#include "upstream/upstream_exchange.hpp"

namespace stampede {

// One data-plane thread's way to the upstream: a libcurl multi handle whose sockets are in an
// epoll set of its own, so the thread's event loop waits on fd() beside its other
// descriptors and calls run() when it is readable or timeout_ms() has passed. Connections are
// kept alive between requests, at most config.connections of them (requests beyond wait for
// one). Request bodies go up as they come in, answers come back as they arrive, and an answer
// the client reads slowly pauses its transfer rather than growing without bound. Not thread
// safe: one loop's thread owns it.
class UpstreamPool {
 public:
  UpstreamPool(const UpstreamConfig& config, UpstreamEvents& events);
  ~UpstreamPool();
  UpstreamPool(const UpstreamPool&) = delete;
  UpstreamPool& operator=(const UpstreamPool&) = delete;

  int fd() const { return epoll_fd_; }
  // Milliseconds until libcurl wants to run again without a socket event; -1: no such time.
  int timeout_ms() const;
  // Drives the sockets that are ready and the timers that are due; events follow.
  void run();

  // Sends x (method, target, headers, and what is in of its body); x must outlive its end or
  // a cancel.
  void start(UpstreamExchange& x);
  // More of x's request body is in x.body.
  void body_added(UpstreamExchange& x);
  // n more bytes of x's answer were passed on to the client.
  void answer_taken(UpstreamExchange& x, std::size_t n);
  // Forgets x, whose client is gone: no events for it from now on.
  void cancel(UpstreamExchange& x);
  // Ends every exchange in flight with this failure (on_end for each).
  void fail_all(UpstreamFailure why);

  // libcurl's callbacks.
  struct Callbacks;

 private:
  void* take_handle();  // a spare easy handle, or a new one with the options every request has
  void finish_done();
  void detach(UpstreamExchange& x);

  const UpstreamConfig config_;
  UpstreamEvents& events_;
  const std::string base_;  // the upstream's URL without a trailing slash
  void* multi_ = nullptr;   // CURLM*
  int epoll_fd_ = -1;
  std::int64_t timer_due_ns_ = -1;
  std::vector<void*> spare_;  // easy handles to reuse
  // libcurl's sockets and what the epoll set holds of them, by descriptor.
  struct Registration {
    bool watched = false;  // libcurl wants its events
    bool in_set = false;
    std::uint32_t events = 0;
  };
  std::unordered_map<int, Registration> registered_;
  std::unordered_set<UpstreamExchange*> active_;
};

}  // namespace stampede
