#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "http/llm_stream.hpp"
#include "live/client.hpp"
#include "live/http/request_plan.hpp"
#include "live/http/transport_error.hpp"

namespace stampede {

// A streamed answer (loadgen run --stream) as the client read it: its 2xx body an event
// stream in the request's dialect.
struct StreamAnswer {
  bool streamed = false;  // a 2xx answer's body was read as a stream
  StreamAnswerReader::End end = StreamAnswerReader::End::kOpen;
  std::int64_t tokens = 0;
  std::int64_t first_token_wall_ns = 0;  // steady; 0: no token came
  std::int64_t end_wall_ns = 0;          // steady: when its last bytes were read
  std::int64_t head_wall_ns = 0;         // steady: when its head reached the socket
  // It reached the dialect's end; anything else is a broken stream, retried as a 529 is.
  bool completed() const { return end == StreamAnswerReader::End::kEnded; }
};

// How an attempt ended, as a transport saw it.
struct AttemptAnswer {
  TransportError transport_error = TransportError::kNone;  // kNone: an HTTP answer came
  int status = 0;
  std::int64_t answered_wall_ns = 0;  // when the answer reached the client's socket (steady)
  // Part of an answer came (its status line at least): a reset or close after it is a broken
  // answer, not a connection that failed.
  bool answer_began = false;
  StreamAnswer stream;
  // The token_limits section's (LiveRequest::records_tokens; the native client): a 429 body's
  // error.reason, and the output tokens an LLM answer in one body reports in its usage.
  std::string error_reason;
  std::optional<std::int64_t> usage_output_tokens;
};

// The most of an answer's body kept for read_kept_body: an LLM answer of tens of thousands of
// tokens; a longer one's usage is not read.
inline constexpr std::size_t kMaxKeptBody = 256 * 1024;
// What the token_limits section reads of an answer's body that was kept whole (not a stream's):
// a 429's error.reason, and, for an LLM request (llm), a 2xx answer's usage.
void read_kept_body(AttemptAnswer& a, const std::string& body, bool llm);

// What a transport calls back on its loop.
class AttemptSink {
 public:
  virtual ~AttemptSink() = default;
  // c's attempt is over; its retry_after, should_retry and occ ETag are the answer's.
  virtual void answered(LiveClient& c, const AttemptAnswer& a) = 0;
  // Starts the sends that fell due meanwhile; whether there was one.
  virtual bool start_due_sends() = 0;
};

// Carries one loop's attempts over HTTP: libcurl, or the loop's own HTTP/1.1 client. It
// registers its sockets in the loop's epoll set with a tag of 1 or more in the high half of
// the event data (0 is the loop's own descriptors) and the descriptor in the low half.
class LiveTransport {
 public:
  virtual ~LiveTransport() = default;
  LiveTransport(const LiveTransport&) = delete;
  LiveTransport& operator=(const LiveTransport&) = delete;
  // The wire's name in the results: "libcurl" or "native".
  virtual const char* name() const = 0;
  // Before t=0: the clients' connections opened for them (LiveClient::own_fd) are theirs to
  // set up now, so that the first wave only writes.
  virtual void adopt_connections() {}
  // Sends c's attempt (c.sends, c.item_id and c.occ say which), setting c.sent_wall_ns as the
  // request is about to be written.
  virtual void send(LiveClient& c) = 0;
  // Drops c's attempt in flight, answered or not.
  virtual void abort(LiveClient& c) = 0;
  virtual void on_event(std::uint32_t tag, int fd, std::uint32_t events) = 0;
  // Runs what is due (timeouts; libcurl's timers); returns the next expiry (steady ns) or -1.
  virtual std::int64_t run_timers() = 0;
  // Hands the attempts that ended since the last call to the sink (libcurl queues them).
  virtual void deliver_answers() {}

 protected:
  // clients: the loop's, sized for good; epoll_fd: the loop's epoll set.
  LiveTransport(LiveShared& shared, std::vector<LiveClient>& clients, int epoll_fd,
                AttemptSink& sink);
  std::size_t index_of(const LiveClient& c) const {
    return static_cast<std::size_t>(&c - clients_.data());
  }
  // c's request plan, made ready for the attempt it is about to send.
  const RequestPlan& plan_attempt(const LiveClient& c);
  const RequestPlan& plan_of(const LiveClient& c) const { return plans_[index_of(c)]; }

  LiveShared& shared_;
  std::vector<LiveClient>& clients_;
  const int epoll_fd_;
  AttemptSink& sink_;

 private:
  std::vector<RequestPlan> plans_;  // by client; sized once (libcurl points into them)
};

// An epoll event's data: the transport's tag (1 or more; 0 is the loop's own timer and wake
// descriptors) in the high half, the descriptor in the low half.
inline std::uint64_t event_data(std::uint32_t tag, int fd) {
  return (std::uint64_t{tag} << 32) | static_cast<std::uint32_t>(fd);
}

// Turns a transport's view of an attempt into the outcome the retry policy reads; both
// transports report a malformed answer as kBadResponse so that this makes it bad_response. A
// stream broken after its 200 is a failure the retry policy sees: an overloaded_error event
// is the 529 the API would have answered before the stream began; a stream that stopped
// without its end (the chunked body whole, the dialect's last event missing) a bad response,
// as a connection cut mid-body is.
Outcome outcome_of(const AttemptAnswer& a);

}  // namespace stampede
