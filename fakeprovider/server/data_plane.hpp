#pragma once

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "listen_address.hpp"
#include "log_histogram.hpp"
#include "model/request_framing.hpp"
#include "server/admitter.hpp"
#include "server/answer_writer.hpp"
#include "server/arrival_stamps.hpp"
#include "server/connection_refusals.hpp"
#include "server/deadline_timer.hpp"
#include "upstream/upstream_config.hpp"
#include "upstream/upstream_exchange.hpp"

namespace stampede {

// How a request's arrival is stamped (--arrival-stamp).
enum class ArrivalStamping {
  kKernel,  // the kernel's receive stamp of its first bytes (ReceiveStamps)
  kWatch,   // when a watcher thread saw its bytes come in (ArrivalStamper)
  kRead,    // when a server thread read it: nothing more per request, late under a burst
};

struct DataPlaneConfig {
  ListenAddress listen;
  // Bound and listening already (a worker's share of one port, --processes): served instead
  // of a socket opened on listen, which then only names it.
  std::optional<ListenSocket> listen_socket;
  unsigned max_connections = 16000;
  unsigned threads = 2;
  // Longer than any backoff a client sleeps on its open connection between retries.
  unsigned idle_timeout_s = 600;
  // A request's headers, and then its body, must be complete this long after its first byte
  // came in, or the connection is closed: a client that trickles them (slowloris) keeps
  // resetting the idle timeout, which counts from the last byte. 0: no such limit. For the headers
  // it needs the first bytes' time: stamping other than kRead.
  std::int64_t header_timeout_ns = 10'000'000'000;
  int backlog = 4096;
  // Per connection: the request's headers must fit, with room for the answer's.
  std::size_t memory_per_connection = 4096;
  ArrivalStamping stamping = ArrivalStamping::kKernel;
  // Proxy mode: what the provider admits is forwarded here and its answer passed back.
  std::optional<UpstreamConfig> upstream;
  // Where the connections turned away are added up (RefusalTally, shared by the workers);
  // none: only the stderr line counts them.
  std::atomic<std::int64_t>* turned_away = nullptr;
};

// The provider's HTTP side: any method and path, read by the data plane's own HTTP/1.1 server
// (data_plane_connections.cpp). A request arrives when its headers are complete; it is stamped with
// the time its bytes came in (ArrivalStamps, unless config.stamping is kRead), or, when that
// time was not noted, the time it is read; then decided by the policy and answered the way
// real APIs answer (docs/ADMIN_API.md).
//
// One epoll set per thread, each driven by a loop of ours. The loops accept for each other,
// round robin: left to race for the listen socket, one thread took twice the connections of
// the other and became the bottleneck.
//
// The requests a loop read in one turn are decided together: by this process's provider, in
// one turn of its lock, or, with a shared store or the provider in another process (a worker
// of --processes), in one round trip on the loop's own line, the connections reading no more
// until the answer comes.
//
// With provider.hop_delay (--hop-delay) a request is held one network hop, its connection
// waiting, before the layers and the row decide it on the timer's thread, and answered one
// more hop later: the simulator's network on a loopback.
//
// Abusers: a connection that sends nothing keeps its place for idle_timeout_s (a storm's
// sleepers do just that between retries); one whose request headers or body are still
// incomplete header_timeout_ns after its first byte is closed. A request whose body's end
// cannot be found (Transfer-Encoding other than chunked, Content-Length repeated or beside
// Transfer-Encoding: check_framing) is answered 400 or 501 before any body is read, and its
// connection closed. Connections beyond max_connections, or
// beyond the descriptors the process may open, are accepted and closed at once, and counted
// on stderr at most one line every 10 s.
//
// With an upstream (proxy mode), an admitted request is forwarded, its body as it comes in,
// on the loop's own keep-alive pool (UpstreamPool), its connection reading no more until the
// upstream's answer comes back, which is passed on as it arrives and as the client takes it.
// Refused requests never leave.
//
// Its parts: data_plane.cpp starts and stops it; data_plane_loops.cpp the accepting and the
// connection limits; data_plane_connections.cpp the server (its loops, connections, epoll
// set and bytes); data_plane_requests.cpp a request's life (admission, hops and service times,
// answer); data_plane_forward.cpp a request's forward and data_plane_relay.cpp its answer
// relayed to the connection; data_plane_streams.cpp the LLM dialects' answers, streamed a
// token at a time from the loop's due queue. request_headers.* what is read from the headers;
// answer_writer.* the answers' bytes.
class DataPlane {
 public:
  DataPlane(const DataPlaneConfig& config, Admitter& provider);
  ~DataPlane();
  DataPlane(const DataPlane&) = delete;
  DataPlane& operator=(const DataPlane&) = delete;

  // Binds and serves; the error says what could not be done.
  std::optional<std::string> start();
  int port() const { return port_; }

  // Stops accepting, lets requests in flight finish (at most max_wait_ns of wall time, then
  // cuts their service time short), and stops.
  void stop(std::int64_t max_wait_ns);
  // After stop: how late each streamed token was written against its due time (ns), so a
  // pacing error can be told apart from its reader's.
  const LogHistogram& token_lateness() const { return token_lateness_; }

 private:
  struct Request;
  struct Held;  // a request on its way in, not decided yet
  struct Loop;  // one epoll set and the thread that drives it

  std::unique_ptr<Loop> make_loop();  // null when its epoll set cannot be made
  // The accepting and the connection limits (data_plane_loops.cpp).
  void accept_connections(Loop& self);
  void add_handed_connections(Loop& loop);
  void shed_connection();
  bool take_connection_slot();  // false at max_connections
  void signal_loops(std::atomic<bool> Loop::*flag);

  // A request's life (data_plane_requests.cpp): decided, held, answered or forwarded.
  struct ClientConnection;
  bool reads_token_field() const;
  // Stamped, counted in flight, not decided yet; fd: its connection's.
  Request* new_request(int fd);
  struct RequestFacts;  // what its headers (and body) say
  // Held for a hop (provider.hop_delay): decided on the timer's thread when it is over.
  void hold_for_hop(const RequestFacts& facts, Request& r);
  ProviderArrival arrival_of(const RequestFacts& facts, const Request& r) const;
  void take_admission(const Admission& admission, Request& r);
  std::int64_t decide_held(Request& r);  // a held request's hop is over: the due time of its answer
  void complete(Request* r);
  // The requests: decided in its loop's turn, together (one turn of the lock),
  // in the order their bytes came in, and answered. A hop hands the connection to the timer's
  // thread, which decides it in deadline order across the loops and hands it back; a service
  // time or a stream's next token waits on the loop's own due queue (hold_until).
  void decide(ClientConnection& c);
  void admit_batch(Loop& loop);
  static void sort_by_arrival(std::vector<ProviderArrival>& arrivals,
                              std::vector<ClientConnection*>& conns);
  void settle(const std::vector<ClientConnection*>& conns, const std::vector<Admission>& admitted);
  bool answer(ClientConnection& c);
  void hold_until(ClientConnection& c, std::int64_t due_steady_ns, bool decide_first);
  void take_resumed(Loop& loop);  // handed back by the timer's thread
  void take_due(Loop& loop);      // the loop's own waits that are over
  void arm_due(Loop& loop);       // its timerfd at the earliest wait
  void resume(ClientConnection& c);

  // LLM answers (data_plane_streams.cpp): one body, or a stream whose tokens go out when the
  // pacing says, the connection on its loop's due queue between them.
  struct LlmStream;
  bool is_llm_request(ClientConnection& c) const;
  // Reads an LLM request's body into the request: nothing when it asks what the dialect takes
  // (or has no body), else whether the connection lives on after the dialect's 4xx.
  std::optional<bool> refuse_llm_body(ClientConnection& c);
  bool answer_llm(ClientConnection& c);
  bool start_llm_answer(ClientConnection& c);
  // The answer has ended having written output_tokens: its reservation, if it holds one, is
  // settled (once).
  void settle_llm(Request& r, std::int64_t output_tokens);
  // The stream's tokens due by now, or its end; then held until the next one is due.
  bool continue_stream(ClientConnection& c);
  // Bytes after what the socket has not taken yet; false when the connection was closed.
  bool send_more(ClientConnection& c, std::string_view bytes);

  // The server (data_plane_connections.cpp): an HTTP/1.1 server of our own, one epoll set a
  // loop: its connections, their bytes in and out, each request's head and body read and
  // handed to the request's life above.
  void run_loop(Loop& loop);
  void set_listening(Loop& loop, bool on);
  void add_connection(Loop& loop, int fd, const sockaddr_storage& addr);
  void on_event(ClientConnection& c, std::uint32_t events);
  void read_requests(ClientConnection& c);
  // Serves what is in c.in: false when the connection was closed.
  bool serve(ClientConnection& c);
  bool start_request(ClientConnection& c);
  // Takes the request's body from bytes (kept for a token field, or forwarded); returns how
  // many were its.
  std::size_t feed_body(ClientConnection& c, std::string_view bytes);
  // A worker of --processes: the batch goes on the loop's line to the owner.
  void ask_line(Loop& loop);
  void take_line_answer(Loop& loop);
  bool write_bytes(ClientConnection& c, std::string_view bytes);
  bool flush(ClientConnection& c);
  bool finish_request(ClientConnection& c);
  // A request answered by the server itself: closed after it unless keep.
  bool refuse(ClientConnection& c, int status, std::string_view type, std::string_view reason,
              std::string_view message, bool keep = false);
  void close_connection(ClientConnection& c);
  void release(ClientConnection& c);  // its request completed, the connection forgotten
  void sweep(Loop& loop, std::int64_t now_ns);

  // Proxy mode: a request's forward (data_plane_forward.cpp).
  struct Proxied;       // a request on its way to the upstream and its answer on the way back
  struct ProxyEvents;   // what the loops' pools tell of the exchanges
  struct ForwardFacts;  // what is forwarded of a request's head
  bool proxying() const { return config_.upstream.has_value(); }
  // A body declared longer than --max-body is answered 413 before the provider hears of it, a
  // chunked one that ran past it once it is in (undecided, so uncounted too): the refusal
  // counted, and its message.
  std::optional<std::string> too_long_declared(const RequestFraming& framing);
  std::string too_long_message(const std::string& what);
  // At the headers: what the upstream will be sent, and sent now if admitted already.
  void prepare_forward(const ForwardFacts& facts, Request& r);
  // Decided: an admitted request with a body of known length or none goes now, its body after
  // it as it comes; a refused one is not forwarded.
  void forward_decided(Request& r);
  // A piece of the request's body came in: forwarded, and kept while a token field is to be
  // read from it.
  void take_body(Request& r, std::string_view piece);
  bool forwards(const Request& r) const;
  void start_forward(Request& r);
  // At the answer: the forward goes if it has not yet (decided after its headers).
  void send_forward(Request& r);
  // The answer to a forward that got no head: its status and message.
  static int failure_status(UpstreamFailure f);
  std::string failure_message(const Proxied& p) const;
  // The pool has news of p's answer: its client's connection relays it.
  void answer_came(Proxied& p);
  // What the upstream answered a forward, counted once: at its end, or when its client left.
  void note_forward_end(Proxied& p);

  // The server's side of a forward (data_plane_relay.cpp): the connection reads no more
  // while the upstream's answer is relayed to it, as it comes and as the client takes it.
  void prepare_forward(ClientConnection& c);
  bool relay_forwarded(ClientConnection& c);  // the request's answer is the upstream's
  bool relay(ClientConnection& c);            // what has come of it, as far as the socket takes it
  // A chunked answer's pieces, and its last chunk, into the connection's buffer.
  static void frame_chunks(ClientConnection& c, Proxied& p);
  // The pool or the client's socket had news: relayed, and once over the next request served.
  void relay_news(ClientConnection& c);
  void take_relays(Loop& loop);  // the connections whose forward had news this turn
  // The upstream pool's part of a turn: its sockets when ready or its timers when due, and
  // everything stopped when the provider is.
  void run_upstream(Loop& loop, bool ready);

  DataPlaneConfig config_;
  Admitter& provider_;
  const AnswerWriter answers_;  // in the provider's dialect
  DeadlineTimer timer_;
  LogHistogram token_lateness_;                // the loops', gathered when they stop
  std::unique_ptr<ArrivalStamps> stamper_;     // null when arrivals are stamped on reading
  std::unique_ptr<ProxyEvents> proxy_events_;  // proxy mode only
  std::vector<std::unique_ptr<Loop>> loops_;
  int listen_fd_ = -1;
  int port_ = 0;
  int spare_fd_ = -1;  // given up for a moment to accept and close when out of descriptors
  std::mutex spare_mu_;
  ConnectionRefusals refusals_;
  std::atomic<unsigned> next_loop_{0};         // who gets the next accepted connection
  std::atomic<unsigned> open_connections_{0};  // accepted and not yet closed, every loop's
  std::atomic<std::int64_t> in_flight_{0};
  std::atomic<std::int64_t> waiting_{0};
  std::atomic<std::uint64_t> llm_requests_{0};  // numbers each LLM answer's draws
  // Last: its thread, which uses the rest, is stopped first.
};

}  // namespace stampede
