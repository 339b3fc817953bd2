#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "answer_parser.hpp"
#include "live/http/connections.hpp"
#include "live/http/transport.hpp"

namespace stampede {

// The loop's own HTTP/1.1 client, for plain http to a numeric address: one kept-alive
// connection per client, the request written with one send() from a buffer prepared per
// client, the answer read with one recvmsg() that also brings the kernel's receive stamp.
// libcurl spends 60-70 us of CPU per request here (its multi handles' bookkeeping, the
// socket callbacks' epoll_ctl calls, a liveness poll per reuse); on two cores a wave of a
// thousand sends is then written over 30-60 ms, which --time-scale 0.05 stretches to more
// than a scenario second. This client writes the same wave in a few milliseconds.
class NativeTransport final : public LiveTransport {
 public:
  NativeTransport(LiveShared& shared, std::vector<LiveClient>& clients, int epoll_fd,
                  AttemptSink& sink);
  ~NativeTransport() override;

  // Plain http to a numeric address (the probe resolved the name once): what it carries.
  static bool can_carry(const LiveRequest& request, const LiveOptions& options);

  const char* name() const override { return "native"; }
  void adopt_connections() override;
  void send(LiveClient& c) override;
  void abort(LiveClient& c) override;
  void on_event(std::uint32_t tag, int fd, std::uint32_t events) override;
  std::int64_t run_timers() override;
  void deliver_answers() override;

 private:
  enum class Phase : std::uint8_t { kIdle, kConnecting, kWriting, kReading };
  struct Connection {
    int fd = -1;
    Phase phase = Phase::kIdle;
    bool reused = false;       // open from before this attempt: the server may have closed it
    bool retried = false;      // this attempt was re-sent once on a fresh connection
    bool wants_write = false;  // EPOLLOUT is asked for
    std::string request;       // this attempt's bytes
    std::size_t written = 0;
    std::size_t received = 0;  // bytes of this attempt's answer so far
    std::int64_t answered_wall_ns = 0;
    std::int64_t deadline_ns = 0;  // the attempt times out then (steady)
    AnswerParser parser;
    // --stream: a 2xx body's bytes of the last read, and the stream they are read into. Any
    // other body, kept whole (up to kMaxKeptBody) for read_kept_body when the run records its
    // token limits.
    std::string body;
    StreamAnswerReader stream_reader;
    StreamAnswer stream;
  };
  struct Done {
    std::uint32_t client;
    AttemptAnswer answer;
  };

  // c's attempt as bytes, from its request plan.
  void build_request(const LiveClient& c, std::string& out);
  // Opens a connection and starts writing; false if it failed.
  bool connect_client(std::uint32_t i);
  // fd, connected or connecting, becomes client i's connection.
  void attach(std::uint32_t i, int fd);
  void write_request(std::uint32_t i);
  void read_answer(std::uint32_t i);
  // The parser and the stream reader set for c's answer.
  void ready_for_answer(Connection& conn, const LiveClient& c);
  // A 2xx answer's body bytes that arrived, read as the stream they are part of.
  void read_stream(Connection& conn);
  void watch(std::uint32_t i, bool write);
  void close_connection(Connection& conn);
  // The attempt is over: the answer (or error) waits for deliver_answers.
  void finish(std::uint32_t i, TransportError transport_error, int status);
  // A kept-alive connection the server had closed fails before any answer: like libcurl,
  // the request goes once more on a fresh connection. False if that is not the case.
  bool resend_on_fresh_connection(std::uint32_t i);

  SocketAddress address_;
  // Every request's lines after the request line that are the same for all of a client's
  // attempts (Host, User-Agent, Accept, then the plan's client lines), by client.
  std::vector<std::string> prefixes_;
  bool default_content_type_ = false;  // no line names a Content-Type: a form body gets one
  std::vector<Connection> connections_;
  std::vector<std::uint32_t> client_by_fd_;  // kNoClient if none
  // Attempts in order of their deadlines (one timeout for all: a queue, not a heap); entries
  // whose attempt ended are dropped as they reach the front.
  std::deque<std::pair<std::int64_t, std::uint32_t>> deadlines_;
  std::vector<Done> done_;
  std::vector<char> buffer_;
};

}  // namespace stampede
