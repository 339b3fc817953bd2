#include "live/http/transport.hpp"

namespace stampede {

LiveTransport::LiveTransport(LiveShared& shared, std::vector<LiveClient>& clients, int epoll_fd,
                             AttemptSink& sink)
    : shared_(shared), clients_(clients), epoll_fd_(epoll_fd), sink_(sink), plans_(clients.size()) {
  for (std::size_t i = 0; i < clients.size(); ++i) plans_[i].build(shared, clients[i]);
}

const RequestPlan& LiveTransport::plan_attempt(const LiveClient& c) {
  RequestPlan& plan = plans_[index_of(c)];
  plan.next_attempt(c);
  return plan;
}

void read_kept_body(AttemptAnswer& a, const std::string& body, bool llm) {
  if (a.status == 429) {
    a.error_reason = error_reason_in_body(body);
  } else if (llm && a.status >= 200 && a.status <= 299 && !a.stream.streamed) {
    a.usage_output_tokens = usage_output_tokens(body);
  }
}

Outcome outcome_of(const AttemptAnswer& a) {
  switch (a.transport_error) {
    case TransportError::kNone:
      if (a.stream.streamed && !a.stream.completed())
        return a.stream.end == StreamAnswerReader::End::kError ? Outcome::kOverloaded
                                                               : Outcome::kBadResponse;
      return classify_status(a.status);  // a status outside 200-599 is bad_response there
    case TransportError::kTimeout:
      return Outcome::kTimeout;
    case TransportError::kBadResponse:
      return Outcome::kBadResponse;
    default:
      // Refused, reset or closed with nothing back, TLS failures: no answer from the server.
      // The same after an answer began (libcurl: a bad chunk is a receive error) is a broken one.
      return a.answer_began ? Outcome::kBadResponse : Outcome::kConnectError;
  }
}

}  // namespace stampede
