#pragma once

// The data plane's own parts, shared by its files and by nothing else: data_plane.cpp (start
// and stop), data_plane_loops.cpp (the event loops and the connections they hold),
// data_plane_connections.cpp (the server) and data_plane_requests.cpp (a request's life:
// admission, answer), with the forward's (data_plane.hpp).

#include <sys/socket.h>

#include <unistd.h>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "body_framing.hpp"
#include "log_histogram.hpp"
#include "model/llm_pacing.hpp"
#include "model/llm_request.hpp"
#include "model/llm_stream.hpp"
#include "request_head.hpp"
#include "server/data_plane.hpp"
#include "server/due_queue.hpp"
#include "upstream/forward_headers.hpp"
#include "upstream/relayed_answer.hpp"
#include "upstream/upstream_pool.hpp"

namespace stampede {

// How often a loop looks for requests whose headers are overdue: a few
// times per timeout, so none is cut much later than its due time, and at most once a second.
std::int64_t sweep_period_ns(std::int64_t header_timeout_ns);

// What the provider lets through: every layer passed (to the upstream, or to an LLM answer).
inline bool admitted(const Decision& d) {
  return d.status == 200 && d.reason == DecisionReason::kServed && !d.reset_connection;
}

// A peer's address as text (X-Forwarded-For); empty for a family other than IPv4 and IPv6.
std::string address_text(const sockaddr* sa);

// A client's connection to the server: the bytes that came in and are
// not used yet, the request they are on, and the answer's bytes not sent yet.
struct DataPlane::ClientConnection {
  int fd = -1;
  Loop* loop = nullptr;
  std::unique_ptr<char[]> in;  // config.memory_per_connection bytes
  std::size_t filled = 0;
  RequestHead head;  // the request on: views into in, which stay where they are until it ends
  BodyFraming body;
  Request* request = nullptr;  // on: its head is in; ends when its answer is sent
  bool keep_alive = true;
  bool head_only = false;  // a HEAD request: its answer's head only
  bool waiting = false;    // for a hop or a service time: the timer hands it back
  bool deciding = false;   // in its loop's batch, admitted at the end of the turn
  bool unread = false;     // reading stopped for the wait, not at the socket's end
  std::string out;         // the answer's bytes the socket did not take yet
  std::size_t out_sent = 0;
  std::int64_t body_since_ns = 0;  // its request's body is still coming in: since then
  std::int64_t last_active_ns = 0;
  std::string path_scratch;
  // Proxy mode: the client's address, for X-Forwarded-For; and the upstream's answer being
  // relayed (reading stopped until it is over), how far, and whether it had news this turn.
  std::string peer;
  bool relaying = false;
  bool relay_due = false;
  bool relay_head_sent = false;
  bool relay_end_framed = false;  // a chunked answer's last chunk is in out
  RelayFraming relay_framing = RelayFraming::kNone;
};

struct DataPlane::Loop {
  struct Handed {
    int fd;
    sockaddr_storage addr;
    socklen_t addr_len;
  };
  std::int64_t next_sweep_ns = 0;
  int wake_fd = -1;  // an eventfd: the loop rereads its flags and hand-offs when it is written
  std::atomic<bool> quiesce{false};
  std::atomic<bool> quiesced{false};  // the loop has seen quiesce: it no longer accepts
  std::atomic<bool> stop{false};
  // The provider is stopping: end what is forwarded, and send the streams' tokens at once.
  std::atomic<bool> drop_upstream{false};
  std::unique_ptr<UpstreamPool> upstream;  // proxy mode only
  // A shared store, or a provider in another process: this loop's line to it.
  AdmissionLine* line = nullptr;
  std::mutex handed_mu;
  std::vector<Handed> handed;  // accepted by another loop for this one
  // Its connections, its epoll set, those the timer hands back, and the time of this turn.
  std::unordered_set<ClientConnection*> connections;
  int epoll_fd = -1;
  bool listening = false;
  std::vector<ClientConnection*> resumed;  // under handed_mu
  // What this loop waits out itself (service times, streams' next tokens), and the timerfd
  // armed at the earliest of them.
  DueQueue<ClientConnection*> due;
  std::vector<ClientConnection*> due_now;
  int due_fd = -1;
  std::int64_t armed_ns = DueQueue<ClientConnection*>::kNone;
  LogHistogram token_lateness;  // ns from each streamed token's due time to its write
  std::vector<ProviderArrival> batch;
  std::vector<ClientConnection*> batch_conns;
  std::vector<ClientConnection*> line_asked;  // their question is in flight on the line
  std::vector<ClientConnection*> released;    // closed this turn, deleted at its end
  std::vector<ClientConnection*> relays;      // their forward's answer had news this turn
  std::string body_piece;                     // a forwarded request body's latest piece
  std::int64_t turn_ns = 0;
  std::thread thread;
  ~Loop();
};

// A request held a network hop before it is decided (provider.hop_delay): what the decision
// needs, copied, since it is made on the timer's thread.
struct DataPlane::Held {
  std::size_t loop = 0;  // the recorder of the thread that read it
  std::int64_t arrives_steady_ns = 0;
  std::string tenant;
  std::string client_id;
  SendClaim send;
  RowOp row_op = RowOp::kNone;
  std::optional<std::string> if_match;
  DeclaredTokens tokens;
  std::optional<LlmCharge> llm;
};

// A request forwarded (proxy mode): the exchange, and the connection waiting on it.
struct DataPlane::Proxied : UpstreamExchange {
  ClientConnection* client = nullptr;  // its client's, once it waits for the answer
  AdmissionTicket ticket;              // the arrival's, for what the upstream answers
  bool chunked = false;                // a body of unknown length: gathered whole, then forwarded
  bool too_long = false;               // ... and it ran past --max-body
  bool started = false;                // handed to the pool
};

// The pools' news, turned into the connections' relays and the arrivals' records.
struct DataPlane::ProxyEvents : UpstreamEvents {
  explicit ProxyEvents(DataPlane& owner) : plane(owner) {}
  void on_head(UpstreamExchange& x) override;
  void on_body(UpstreamExchange& x) override;
  void on_end(UpstreamExchange& x) override;
  DataPlane& plane;
};

struct DataPlane::ForwardFacts {
  std::string_view method;
  std::string_view target;  // as it came
  std::vector<HeaderField> fields;
  std::string_view peer;
  const RequestFraming& framing;
  std::size_t head_bytes;  // what the request's head takes of the connection's memory
};

struct DataPlane::RequestFacts {
  std::string_view tenant;
  SendHeaders sends;
  RowRequest row;
  DeclaredTokens tokens;
  std::optional<LlmCharge> llm;  // an LLM request's, once its body is read
};

// An LLM answer being streamed (docs/LLM.md): its bytes, its draws, and how far it has gone.
struct DataPlane::LlmStream {
  StreamFacts facts;
  StreamPlan plan;
  bool chunked = true;            // false for HTTP/1.0: the close ends it
  std::int64_t head_sent_ns = 0;  // steady: the tokens are due from then
  std::int64_t next = 0;          // the next token to send
  bool ended = false;             // its last bytes are in the connection's buffer
};

struct DataPlane::Request {
  Decision decision;
  AdmissionTicket ticket;  // where it was recorded
  std::optional<std::uint64_t> row_version;
  std::int64_t due_steady_ns = 0;  // when the service time is over
  bool served = false;             // the service time has passed
  // With provider.token_field the decision waits for the body, which holds the tokens; the
  // arrival is still when the headers came in.
  bool decided = true;
  std::int64_t seen_steady_ns = 0;
  std::string body;
  std::unique_ptr<Held> held;        // not decided yet: still on its way in
  std::unique_ptr<Proxied> proxied;  // proxy mode
  // An LLM request in the anthropic or openai dialect: decided once its body is read, which
  // says what its answer is (a stream, or not) and is then let go.
  bool llm = false;
  std::optional<LlmRequest> asked;
  std::unique_ptr<LlmStream> stream;
  // Its tenant, kept while its decision holds a reservation: settled when the answer ends.
  std::string reserved_by;
};

inline DataPlane::Loop::~Loop() {
  for (const auto& h : handed) close(h.fd);
  for (ClientConnection* c : connections) {
    if (c->fd >= 0) close(c->fd);
    delete c->request;
    delete c;
  }
  for (ClientConnection* c : released) delete c;
  if (wake_fd >= 0) close(wake_fd);
  if (due_fd >= 0) close(due_fd);
  if (epoll_fd >= 0) close(epoll_fd);
}

// This thread's number among the data plane's loops: its recorder in the provider.
inline thread_local std::size_t loop_index = 0;

}  // namespace stampede
