// The frames a data-plane worker and the provider's process exchange (--processes): what goes
// in comes out, and what is cut short or unknown is refused, never read past.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "processes/admission_codec.hpp"

using namespace stampede;

namespace {

std::string_view payload_of(const std::string& frame) {
  return std::string_view(frame).substr(kFrameHeaderBytes);
}

}  // namespace

TEST_CASE("arrivals cross with their strings, send claims, rows and tokens") {
  SendClaim counted{SendClaim::Kind::kCounted, SendRule::kItemHeader, 0, 77, 99};
  const std::vector<ProviderArrival> in{
      {0, 123, "tenant-a", {}, "", {}, {}, {}},
      {5, -4, "", counted, "client-9", {RowOp::kWrite, std::string_view("\"3\"")}, {42, false}, {}},
      {2, 1LL << 62, "t", {}, "c", {RowOp::kRead, std::string_view("")}, {std::nullopt, true}, {}},
  };
  const std::string frame = arrivals_frame(in);
  const auto head = read_frame_header(std::string_view(frame).substr(0, kFrameHeaderBytes));
  REQUIRE(head);
  CHECK(head->kind == FrameKind::kAdmit);
  CHECK(head->payload_bytes == frame.size() - kFrameHeaderBytes);
  const auto out = read_arrivals(payload_of(frame));
  REQUIRE(out);
  REQUIRE(out->size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    CAPTURE(i);
    const ProviderArrival& a = in[i];
    const ProviderArrival& b = (*out)[i];
    CHECK(b.thread == a.thread);
    CHECK(b.seen_steady_ns == a.seen_steady_ns);
    CHECK(b.tenant == a.tenant);
    CHECK(b.client_id == a.client_id);
    CHECK(b.send.kind == a.send.kind);
    CHECK(b.send.rule == a.send.rule);
    CHECK(b.send.key == a.send.key);
    CHECK(b.send.item == a.send.item);
    CHECK(b.row.op == a.row.op);
    CHECK(b.row.if_match == a.row.if_match);
    CHECK(b.tokens.count == a.tokens.count);
    CHECK(b.tokens.malformed == a.tokens.malformed);
  }
  // An empty If-Match is not an absent one.
  CHECK((*out)[2].row.if_match.has_value());
  CHECK_FALSE((*out)[0].row.if_match.has_value());
}

TEST_CASE("admissions, notes and hops cross whole") {
  Decision refused;
  refused.status = 429;
  refused.reason = DecisionReason::kAllowance;
  refused.retry_after_ns = 1'500'000'000;
  refused.tokens = QuotaNumbers{10, 0, 7};
  const std::vector<Admission> in{{1, {}, std::nullopt, {0, 1, std::nullopt}},
                                  {2, refused, 12u, {3, 2, 40u}}};
  const auto out = read_admissions(payload_of(admissions_frame(in)));
  REQUIRE(out);
  REQUIRE(out->size() == 2);
  CHECK((*out)[1].decision.status == 429);
  CHECK((*out)[1].decision.reason == DecisionReason::kAllowance);
  CHECK((*out)[1].decision.retry_after_ns == 1'500'000'000);
  CHECK((*out)[1].decision.tokens->reset_ns == 7);
  CHECK((*out)[1].row_version == 12u);
  CHECK((*out)[1].ticket.log_row == 40u);
  CHECK_FALSE((*out)[0].row_version);

  const auto note = read_note(payload_of(note_frame({{3, 9, 11u}, 502})));
  REQUIRE(note);
  CHECK(note->ticket.thread == 3);
  CHECK(note->ticket.log_row == 11u);
  CHECK(note->upstream == 502);
  CHECK(read_hop_drawn(payload_of(hop_drawn_frame(-17))) == -17);
  CHECK(payload_of(hop_frame()).empty());
}

TEST_CASE("a payload cut short, padded or of an unknown kind is refused") {
  const std::string arrivals =
      arrivals_frame(std::vector<ProviderArrival>{{1, 2, "ten", {}, "cl", {}, {}, {}}});
  const std::string admissions = admissions_frame(std::vector<Admission>{{1, {}, {}, {}}});
  const std::string_view a = payload_of(arrivals);
  const std::string_view b = payload_of(admissions);
  struct Case {
    const char* what;
    bool read;
  };
  const std::vector<Case> cases{
      {"arrivals cut in the strings", read_arrivals(a.substr(0, a.size() - 1)).has_value()},
      {"arrivals cut in the fixed part", read_arrivals(a.substr(0, 10)).has_value()},
      {"arrivals with a byte more", read_arrivals(std::string(a) + "x").has_value()},
      {"no count", read_arrivals("").has_value()},
      {"admissions cut", read_admissions(b.substr(0, b.size() - 1)).has_value()},
      {"admissions with a byte more", read_admissions(std::string(b) + "x").has_value()},
      {"a note cut", read_note("abc").has_value()},
      {"a hop with a byte more", read_hop_drawn("123456789").has_value()},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    CHECK_FALSE(c.read);
  }
  // A count of arrivals the payload cannot hold is refused before anything is allocated.
  CHECK_FALSE(read_arrivals(std::string("\xff\xff\xff\x7f", 4)).has_value());
  std::string header(kFrameHeaderBytes, '\0');
  header[4] = 9;  // no such kind
  CHECK_FALSE(read_frame_header(header));
  header[4] = static_cast<char>(FrameKind::kAdmit);
  header[3] = '\x7f';  // 2 GiB: past the bound
  CHECK_FALSE(read_frame_header(header));
  CHECK_FALSE(read_frame_header("abc"));
}
