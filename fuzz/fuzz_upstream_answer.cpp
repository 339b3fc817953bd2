// Proxy mode reads whatever the upstream sends, cut into whatever pieces the network delivers:
// the answer reader never takes more of a piece than it was given, makes the same of the bytes
// however they are cut, passes on only heads no other reader could take differently, and never
// lets a connection carry another answer once bytes came past this one's end.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http_token.hpp"
#include "upstream/answer_parser.hpp"

namespace {

using stampede::AnswerParser;
using State = AnswerParser::State;

struct Read {
  State state = State::kHead;
  std::string error;
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::size_t> length;
  std::string body;
  bool reusable = false;
  bool operator==(const Read&) const = default;
};

void require(bool invariant) {
  if (!invariant) std::abort();
}

bool clean(std::string_view value) {
  return std::none_of(value.begin(), value.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

// What is passed on of a head: a final status, token names, values no reader splits.
void check_head(const AnswerParser& p) {
  require(p.status() >= 200 && p.status() <= 599);
  for (const auto& [name, value] : p.headers()) {
    require(stampede::is_http_token(name));
    require(clean(value));
  }
}

// Each piece is copied to a block of exactly its size, so AddressSanitizer sees a read past it.
std::size_t feed_piece(AnswerParser& p, std::string_view piece, std::string& body) {
  const auto block = std::make_unique<char[]>(piece.size());
  std::copy(piece.begin(), piece.end(), block.get());
  const State before = p.state();
  const std::size_t used = p.feed({block.get(), piece.size()}, body);
  require(used <= piece.size());
  const bool open = p.state() == State::kHead || p.state() == State::kBody;
  require(!open || used == piece.size());
  require(before != State::kDone || used == 0);
  return used;
}

// The answer to one request, in pieces of 1 + rng() % max_piece bytes (0: in one), as a
// connection gives it: every byte that comes is fed, whatever the reader made of those before.
Read read(std::string_view text, bool head, std::size_t max_head, bool closes, std::minstd_rand rng,
          std::size_t max_piece) {
  AnswerParser p(head, max_head);
  Read out;
  std::size_t used = 0;
  for (std::size_t at = 0; at < text.size() && p.state() != State::kBad;) {
    const std::size_t left = text.size() - at;
    const std::size_t size =
        max_piece == 0 ? left : std::min<std::size_t>(1 + rng() % max_piece, left);
    used += feed_piece(p, text.substr(at, size), out.body);
    at += size;
  }
  if (closes) p.end_of_stream();
  out.state = p.state();
  out.reusable = p.reusable();
  // What came past the answer's end would be read as the next one's.
  require(out.state != State::kDone || used == text.size() || !out.reusable);
  require(out.body.size() <= text.size());
  require((out.state == State::kBad) == !p.error().empty());
  if (out.state == State::kBad) {
    require(!out.reusable);
    out.error = p.error();
    out.body.clear();  // how far it got before failing is not part of the outcome
    return out;
  }
  if (out.state == State::kHead) return out;
  check_head(p);
  return {out.state,           "",          p.status(), p.headers(), p.content_length(),
          std::move(out.body), out.reusable};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // A caller's bound up to twice the reader's own, which it must hold whatever the caller's.
  const auto max_head = in.ConsumeIntegralInRange<std::size_t>(0, 2 * AnswerParser::kMaxHeadBytes);
  const auto seed = in.ConsumeIntegral<std::uint32_t>();
  const auto max_piece = in.ConsumeIntegralInRange<std::size_t>(1, 64);
  const bool head = in.ConsumeBool();
  const bool closes = in.ConsumeBool();
  const std::string answer = in.ConsumeRemainingBytesAsString();
  const Read whole = read(answer, head, max_head, closes, std::minstd_rand(seed), 0);
  require(read(answer, head, max_head, closes, std::minstd_rand(seed), max_piece) == whole);
  return 0;
}
