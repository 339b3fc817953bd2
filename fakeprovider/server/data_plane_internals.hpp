#pragma once

// The data plane's own parts, shared by its files and by nothing else: data_plane.cpp (start
// and stop), data_plane_loops.cpp (the event loops and the connections they hold) and
// data_plane_requests.cpp (a request's life: headers, admission, answer).

#include <microhttpd.h>
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

#include "server/data_plane.hpp"
#include "upstream/upstream_pool.hpp"

namespace stampede {

// A request suspended until its decision comes (the store's, or another process's), with its
// connection and the loop to wake.
struct DataPlane::StoreWait {
  MHD_Connection* connection;
  Request* request;
  Loop* loop;
};

struct DataPlane::Loop {
  struct Handed {
    int fd;
    sockaddr_storage addr;
    socklen_t addr_len;
  };
  // One per open connection, from libmicrohttpd's start to its close of it; touched only on the
  // loop's thread (and at the daemon's stop, after that thread is gone).
  struct Conn {
    int fd = -1;
    bool in_request = false;         // its headers are complete; not yet answered
    bool cut = false;                // closed for a slow request; libmicrohttpd has yet to notice
    std::int64_t body_since_ns = 0;  // in_request, body still coming in: its first byte's time
    std::string target;  // proxy mode: the request line's target, as it came (not unescaped)
  };
  MHD_Daemon* daemon = nullptr;
  std::unordered_set<Conn*> conns;
  std::int64_t next_sweep_ns = 0;
  int epoll_fd = -1;
  int wake_fd = -1;  // an eventfd: the loop rereads its flags and hand-offs when it is written
  std::atomic<bool> quiesce{false};
  std::atomic<bool> quiesced{false};  // the loop has seen quiesce: it no longer accepts
  std::atomic<bool> stop{false};
  std::atomic<bool> drop_upstream{false};  // the provider is stopping: end what is forwarded
  std::unique_ptr<UpstreamPool> upstream;  // proxy mode only
  // A provider in another process: this loop's line to it, the requests whose question is in
  // flight on it, and those that wait for the next.
  AdmissionLine* line = nullptr;
  std::vector<StoreWait> asked;
  std::vector<StoreWait> pending;
  std::mutex handed_mu;
  std::vector<Handed> handed;  // accepted by another loop for this one's daemon
  std::thread thread;
  ~Loop() {
    for (const auto& h : handed) close(h.fd);
    for (Conn* c : conns) delete c;
    if (wake_fd >= 0) close(wake_fd);
  }
};

// A request held a network hop before it is decided (provider.hop_delay), or until the store
// decides it with the others waiting (data_plane_store.cpp): what the decision needs, copied,
// since it is made on another thread (the timer's, the store batches').
struct DataPlane::Held {
  std::size_t loop = 0;  // the recorder of the thread that read it
  std::int64_t arrives_steady_ns = 0;
  std::string tenant;
  std::string client_id;
  SendClaim send;
  RowOp row_op = RowOp::kNone;
  std::optional<std::string> if_match;
  DeclaredTokens tokens;
};

// A request forwarded (proxy mode): the exchange, and the connection waiting on it.
struct DataPlane::Proxied : UpstreamExchange {
  DataPlane* plane = nullptr;
  MHD_Connection* connection = nullptr;
  AdmissionTicket ticket;  // the arrival's, for what the upstream answers
  bool chunked = false;    // a body of unknown length: gathered whole, then forwarded
  bool too_long = false;   // ... and it ran past --max-body
  bool started = false;    // handed to the pool
  bool suspended = false;  // the connection waits for the upstream's head or more of its body
};

// The pools' news, turned into the connections' resumptions and the arrivals' records.
struct DataPlane::ProxyEvents : UpstreamEvents {
  explicit ProxyEvents(DataPlane& owner) : plane(owner) {}
  void on_head(UpstreamExchange& x) override;
  void on_body(UpstreamExchange& x) override;
  void on_end(UpstreamExchange& x) override;
  DataPlane& plane;
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
};

// libmicrohttpd's C callbacks. The request ones are in data_plane_requests.cpp, the
// connection ones in data_plane_loops.cpp.
struct MhdCallbacks {
  static MHD_Result on_request(void* cls, MHD_Connection* c, const char* url, const char* method,
                               const char* version, const char* upload_data,
                               std::size_t* upload_size, void** con_cls);
  static MHD_Result on_headers(DataPlane& self, MHD_Connection* c, const char* url,
                               const char* method, const char* version, void** con_cls);
  static void on_completed(void* cls, MHD_Connection* c, void** con_cls,
                           MHD_RequestTerminationCode toe);
  static void on_connection(void* cls, MHD_Connection* c, void** socket_context,
                            MHD_ConnectionNotificationCode code);
  static DataPlane::Loop::Conn* conn_of(MHD_Connection* c);
  // Proxy mode: keeps the request line's target as it came, for the upstream.
  static void* on_uri(void* cls, const char* uri, MHD_Connection* c);
  // Proxy mode: the next piece of a forwarded answer's body.
  static ssize_t read_answer(void* cls, std::uint64_t pos, char* buf, std::size_t max);
};

inline int connection_fd(MHD_Connection* c) {
  const auto* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info ? info->connect_fd : -1;
}

// This thread's number among the data plane's loops: its recorder in the provider.
inline thread_local std::size_t loop_index = 0;

}  // namespace stampede
