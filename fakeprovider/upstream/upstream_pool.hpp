#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "upstream/upstream_config.hpp"
#include "upstream/upstream_exchange.hpp"

namespace stampede {

// One data-plane thread's way to the upstream: its sockets in an epoll set of its own, so the
// thread's event loop waits on fd() beside its other descriptors and calls waited() after each
// wait. Connections are kept alive between requests, at most
// config.connections of them (requests beyond wait for one). Request bodies go up as they
// come in, answers come back as they arrive, and an answer the client reads slowly pauses its
// transfer rather than growing without bound. Not thread safe: one loop's thread owns it.
class UpstreamPool {
 public:
  // http: a socket client of this library's own (SocketPool); https: libcurl (CurlPool).
  static std::unique_ptr<UpstreamPool> make(const UpstreamConfig& config, UpstreamEvents& events);
  virtual ~UpstreamPool() = default;

  virtual int fd() const = 0;
  // Milliseconds until the pool wants to run again without a socket event; -1: no such time.
  virtual int timeout_ms() const = 0;
  // The loop's wait is over, fd() found readable (ready) or not: drives the sockets that are
  // ready and the timers that are due; events follow. Before any request of the loop's turn is
  // started: what the wait saw of the idle connections (a close, bytes out of turn) is taken
  // first. ready must be true when the wait may not have reported fd() (its events cut short).
  virtual void waited(bool ready) = 0;

  // Sends x (method, target, headers, and what is in of its body); x must outlive its end or
  // a cancel. An exchange that fails at once ends (on_end) before this returns.
  virtual void start(UpstreamExchange& x) = 0;
  // More of x's request body is in x.body.
  virtual void body_added(UpstreamExchange& x) = 0;
  // n more bytes of x's answer were passed on to the client.
  virtual void answer_taken(UpstreamExchange& x, std::size_t n) = 0;
  // Forgets x, whose client is gone: no events for it from now on.
  virtual void cancel(UpstreamExchange& x) = 0;
  // Ends every exchange in flight or waiting with this failure (on_end for each).
  virtual void fail_all(UpstreamFailure why) = 0;

  // An answer's bytes held for a client that reads slower than the upstream sends: past this
  // the transfer pauses, below half of it it goes on.
  static constexpr std::size_t kPauseBytes = 1 << 20;
  // How often the exchanges in flight and those waiting for a connection are checked against
  // the timeout.
  static constexpr std::int64_t kSweepNs = 100'000'000;
};

// What a request that waited --upstream-timeout for a pooled connection is told (pool_busy).
std::string pool_busy_detail(const UpstreamConfig& config);

}  // namespace stampede
