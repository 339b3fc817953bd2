#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "upstream/upstream_pool.hpp"
#include "upstream/wait_line.hpp"

namespace stampede {

// The pool for an https upstream: a libcurl multi handle driven by its socket callbacks. At
// most config.connections transfers are handed to libcurl; the rest wait in a line of the
// pool's own, so the wait is timed as the http pool times it. libcurl's own resend (a kept-alive
// connection that died before any answer byte) is let through only as may_resend() says.
class CurlPool final : public UpstreamPool {
 public:
  CurlPool(const UpstreamConfig& config, UpstreamEvents& events);
  ~CurlPool() override;
  CurlPool(const CurlPool&) = delete;
  CurlPool& operator=(const CurlPool&) = delete;

  int fd() const override { return epoll_fd_; }
  int timeout_ms() const override;
  void waited(bool ready) override;
  void start(UpstreamExchange& x) override;
  void body_added(UpstreamExchange& x) override;
  void answer_taken(UpstreamExchange& x, std::size_t n) override;
  void cancel(UpstreamExchange& x) override;
  void fail_all(UpstreamFailure why) override;

  // libcurl's callbacks.
  struct Callbacks;

 private:
  void run();
  void* take_handle();  // a spare easy handle, or a new one with the options every request has
  void launch(UpstreamExchange& x);
  void serve_waiting();
  void expire_waiting();
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
  WaitLine waiting_;                // for a transfer slot, all config.connections of them in use
  std::int64_t sweep_due_ns_ = -1;  // the next look at the line's waits, while anyone waits
};

}  // namespace stampede
