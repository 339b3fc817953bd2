#pragma once

#include <httplib.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "listen_address.hpp"

namespace stampede {

// What one connection may cost the admin server.
struct ConnectionLimits {
  // A request, head and body, must be in whole this long after its first byte (however
  // steadily its bytes trickle), and an answer out this long after its first byte.
  std::int64_t request_deadline_ns = 5'000'000'000;
  std::int64_t answer_deadline_ns = 30'000'000'000;
  // What a request may send, head and body together; beyond it the request is cut.
  std::size_t request_max_bytes = 80 * 1024;
  // Connections served at once; more wait for a thread.
  std::size_t threads = 32;
};

// cpp-httplib 0.11.4's server with the bounds it lacks: its read timeout is per read (a byte
// every few seconds keeps a request open for ever), its body limit covers neither chunked
// bodies nor skipped ones, its request line and header lines grow without limit, and its
// listening socket sets SO_REUSEPORT, so a second server silently shares a port in use. Here
// every connection is read through a stream that enforces ConnectionLimits, and the listening
// socket is the data plane's own (open_listen_socket): a port in use is refused. Range is
// ignored (every answer is whole).
class BoundedServer : public httplib::Server {
 public:
  explicit BoundedServer(const ConnectionLimits& limits);
  ~BoundedServer() override;

  // Binds and listens (port 0: any free one); the bound port, or why not.
  Parsed<int> bind(const ListenAddress& address);
  // Serves what bind() bound, on a thread of its own, and returns once it runs (cpp-httplib
  // ignores a stop() that comes before); false if it stopped at once.
  bool serve_in_background();
  // Stops serving, in flight answers ended, and joins that thread; a no-op when not serving.
  void stop_serving();
  // Serves a connection that did not come through the listener (fuzz/fuzz_admin_request's
  // socketpair) as an accepted one is served, and closes it. Only while bound.
  bool serve_connection(socket_t sock) { return process_and_close_socket(sock); }

  // What an event stream sends next: an event (sse_event's text, made once for every stream),
  // nothing yet (it is asked again), or the stream's end.
  struct StreamStep {
    enum class Kind { kEvent, kNothingYet, kEnd };
    Kind kind = Kind::kNothingYet;
    std::shared_ptr<const std::string> event;
  };
  using NextEvent = std::function<StreamStep()>;
  // Answers a stream of server-sent events (both live dashboards' streams): a reconnection
  // delay (sse_retry), then each event next() gives, on the connection's thread, until it
  // says the end or a write fails. next() waits a slice at a time, so the server's stop is
  // seen; what it captures lives as long as the stream, so a stream's slot is given back by
  // its destructor. The answer deadline no longer applies, since a stream lasts as long as its
  // reader reads; the connection's send buffer is capped at send_buffer_bytes, so a reader
  // that stops reading blocks the next write, which times out (the write timeout), and the
  // stream is dropped. Each event is followed by kStreamPadBytes of a comment block
  // (sse_padding), which readers skip (an EventSource, loadgen's and the tests' readers). Why:
  // a reader's kernel acknowledges what comes in whether the reader reads or not, and tells
  // its sender nothing of it until its buffers are full; events of a KiB a second would take
  // minutes to fill them, so a stopped reader would keep its slot that long. Padded, they fill
  // in seconds (a receive buffer of the kernel's default size, 128 KiB), and the next write's
  // timeout drops the reader.
  static void answer_event_stream(httplib::Response& res, int send_buffer_bytes, NextEvent next);
  static constexpr std::size_t kStreamPadBytes = 64 * 1024;
  // How long an EventSource waits before it reconnects to a stream that ended.
  static constexpr std::int64_t kStreamRetryMs = 2000;

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool stopping() const { return svr_sock_ == INVALID_SOCKET; }

  ConnectionLimits limits_;
  std::thread thread_;
  std::atomic<bool> listen_returned_{false};
};

}  // namespace stampede
