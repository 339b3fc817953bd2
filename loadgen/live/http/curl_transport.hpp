#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "live/http/transport.hpp"

namespace stampede {

class CurlTransport;

// One libcurl multi handle and the few clients on it. libcurl looks for a reusable connection
// by walking every connection its multi handle holds to the host, so a burst of N clients on
// one multi handle costs O(N^2): 1.4 s for 2,000 clients, measured here. Small shards keep a
// burst linear; the loop's epoll set and timer serve all of its shards.
struct CurlShard {
  CURLM* multi = nullptr;
  CurlTransport* transport = nullptr;
  std::uint32_t index = 0;
  std::int64_t deadline_ns = -1;  // wall, from libcurl's timer callback; -1: none
  bool active = false;            // driven since its messages were last read
};

// libcurl's codes in the seam's words: the one place that reads them (the probe asks it too).
TransportError transport_error_of(CURLcode code);

// A client's libcurl handle (and through it a kept-alive connection) and its request headers:
// curl_slist nodes owned here, pointing at the lines of the client's request plan, whose
// attempt lines are rewritten before each send without allocating.
struct CurlClient {
  LiveClient* client = nullptr;
  const SourcePlan* sources = nullptr;  // the address its sockets bind, by client id
  CURL* easy = nullptr;
  int handed_fd = -1;  // its pre-opened connection, handed over, until libcurl has set it up
  std::vector<curl_slist> header_nodes;
  // The answer's head as it comes, held to the native parser's bounds: libcurl takes heads of
  // 100 KiB, interim answers without end, a 999 and a close inside the head.
  std::size_t head_bytes = 0;
  int interims = 0;
  bool began = false;       // a status line came
  bool head_ended = false;  // the last head read ended with its empty line
  bool final_head = false;  // that head's status is not 1xx: trailers follow, if any
  bool malformed = false;   // cut off here for a bound libcurl does not keep
  std::string body;         // the answer's, when the run records its token limits
};

// The loop's attempts through libcurl's multi-socket API: https, and any target the native
// client does not take.
class CurlTransport final : public LiveTransport {
 public:
  CurlTransport(LiveShared& shared, std::vector<LiveClient>& clients, int epoll_fd,
                AttemptSink& sink);
  ~CurlTransport() override;

  const char* name() const override { return "libcurl"; }
  void send(LiveClient& c) override;
  void abort(LiveClient& c) override;
  void on_event(std::uint32_t tag, int fd, std::uint32_t events) override;
  std::int64_t run_timers() override;
  void deliver_answers() override;

 private:
  static void judge_answer(const CurlClient& cc, AttemptAnswer& a);
  static int on_socket(CURL* easy, curl_socket_t s, int what, void* shard, void* socket_data);
  static int on_timer(CURLM* multi, long timeout_ms, void* shard);
  static curl_socket_t on_open_socket(void* client, curlsocktype purpose, curl_sockaddr* address);
  static int on_socket_options(void* client, curl_socket_t fd, curlsocktype purpose);
  static int on_request_ready(void* client, char* ip, char* local_ip, int port, int local_port);

  void setup_client(CurlClient& cc, LiveClient& c);
  CurlClient& curl_client(const LiveClient& c) { return curl_clients_[index_of(c)]; }
  CurlShard& shard_of(const LiveClient& c) { return shards_[index_of(c) / kClientsPerShard]; }
  void socket_action(CurlShard& shard, curl_socket_t s, int mask);
  // Notes when the bytes waiting on a readable socket reached it (the kernel's receive
  // stamp, peeked without reading them), before libcurl reads them: the answer's arrival at
  // the client, not when this loop, shared with a thousand other clients, got to it.
  void note_arrival(int fd);
  // The wall time the answer of c's attempt reached its socket: as noted, or from the
  // kernel's last receive on the connection (to the tick, never early), or now_wall_ns.
  std::int64_t arrival_of(const CurlClient& cc, std::int64_t now_wall_ns);

  static constexpr std::size_t kClientsPerShard = 32;

  curl_slist* resolve_ = nullptr;
  std::vector<CurlClient> curl_clients_;
  std::vector<CurlShard> shards_;
  // By descriptor: the steady time the unread bytes on it arrived (note_arrival); 0: none.
  std::vector<std::int64_t> arrived_wall_ns_;
};

}  // namespace stampede
