#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "answer_parser.hpp"
#include "upstream/upstream_pool.hpp"
#include "upstream/wait_line.hpp"

namespace stampede {

// The pool for a plain http upstream: non-blocking sockets of its own, one request at a time
// on each, answers read by AnswerParser. Half of libcurl's CPU per request, which is most of a
// proxy's own. An idle kept-alive connection stays in the epoll set, so a close or bytes out
// of turn (the upstream's keep-alive timeout, an answer that overran) make fd() readable; it
// carries another request only once a loop's wait has looked at it since its answer ended
// (waited), with what that wait saw taken first: no system call per reuse, and no request
// written to a connection whose close came before the wait. A request that fails before any
// byte of its answer goes again only as may_resend() says (the body is kept whole for that).
class SocketPool final : public UpstreamPool {
 public:
  SocketPool(const UpstreamConfig& config, UpstreamEvents& events);
  ~SocketPool() override;
  SocketPool(const SocketPool&) = delete;
  SocketPool& operator=(const SocketPool&) = delete;

  int fd() const override { return epoll_fd_; }
  int timeout_ms() const override;
  void waited(bool ready) override;
  void start(UpstreamExchange& x) override;
  void body_added(UpstreamExchange& x) override;
  void answer_taken(UpstreamExchange& x, std::size_t n) override;
  void cancel(UpstreamExchange& x) override;
  void fail_all(UpstreamFailure why) override;

 private:
  struct Conn {
    int fd = -1;
    UpstreamExchange* x = nullptr;  // null: idle
    AnswerParser parser;
    std::string out;  // request bytes not yet written
    std::size_t out_at = 0;
    std::size_t sent = 0;  // of this exchange's request, written to the socket
    bool connecting = false;
    bool answered = false;        // a byte of this exchange's answer came
    bool paused = false;          // the client is behind: not reading
    std::uint64_t idle_turn = 0;  // the turn its last answer ended in
    std::uint32_t events = 0;
    std::int64_t active_ns = 0;  // the last time it made progress
  };
  void read_ready();
  void take_event(Conn& c, std::uint32_t events);
  Conn* open_conn();
  Conn* idle_conn();
  void begin(Conn& c, UpstreamExchange& x);
  void write_out(Conn& c);
  void read_in(Conn& c);
  void take_answer(Conn& c, std::string_view data);
  void finish(Conn& c);
  void fail(Conn& c, UpstreamFailure why, const std::string& detail);
  void resend_or_fail(Conn& c, const std::string& detail);
  void close_conn(Conn& c);
  void watch(Conn& c);
  void serve_waiting();
  void sweep(std::int64_t now_ns);

  const UpstreamConfig config_;
  UpstreamEvents& events_;
  std::string host_header_;
  sockaddr_storage addr_{};
  socklen_t addr_len_ = 0;
  std::string resolve_error_;  // the host could not be resolved: every exchange fails
  int epoll_fd_ = -1;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<std::unique_ptr<Conn>> closed_;  // freed at the end of run(): events may name them
  std::vector<Conn*> idle_;
  WaitLine waiting_;  // for a connection, all of them busy
  std::int64_t next_sweep_ns_ = -1;
  // The loop's waits so far: an idle connection whose answer ended in an earlier turn was
  // looked at by this turn's wait.
  std::uint64_t turn_ = 0;
  std::array<char, 64 * 1024> buffer_{};
};

}  // namespace stampede
