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

#include "answer_parser.hpp"
#include "http_token.hpp"

namespace {

using stampede::AnswerParser;
using State = AnswerParser::State;

struct Read {
  State state = State::kIncomplete;
  std::string error;
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::uint64_t> length;
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
void check_head(const AnswerParser& p, const AnswerParser::Fields& fields) {
  require(p.status() >= 200 && p.status() <= 599);
  for (const auto& [name, value] : fields) {
    require(stampede::is_http_token(name));
    require(clean(value));
  }
}

// Each piece is copied to a block of exactly its size, so AddressSanitizer sees a read past it.
State feed_piece(AnswerParser& p, State before, std::string_view piece, std::size_t* used,
                 std::string& body) {
  const auto block = std::make_unique<char[]>(piece.size());
  std::copy(piece.begin(), piece.end(), block.get());
  const State state = p.feed(block.get(), piece.size(), used, &body);
  require(*used <= piece.size());
  require(state != State::kIncomplete || *used == piece.size());
  require(before != State::kComplete || *used == 0);
  return state;
}

// The answer to one request, in pieces of 1 + rng() % max_piece bytes (0: in one), as a
// connection gives it: every byte that comes is fed, whatever the reader made of those before.
Read read(std::string_view text, bool head, std::size_t max_head, bool closes, std::minstd_rand rng,
          std::size_t max_piece) {
  AnswerParser p;
  AnswerParser::Fields fields;
  p.reset(head, max_head, &fields);
  Read out;
  std::size_t used = 0;
  // Every piece that comes is fed, whatever the reader made of those before.
  for (std::size_t at = 0; at < text.size() && out.state != State::kError;) {
    const std::size_t left = text.size() - at;
    const std::size_t size =
        max_piece == 0 ? left : std::min<std::size_t>(1 + rng() % max_piece, left);
    std::size_t piece_used = 0;
    out.state = feed_piece(p, out.state, text.substr(at, size), &piece_used, out.body);
    used += piece_used;
    at += size;
  }
  if (closes) out.state = p.close();
  out.reusable = p.reusable();
  // What came past the answer's end would be read as the next one's.
  require(out.state != State::kComplete || used == text.size() || !out.reusable);
  require(out.body.size() <= text.size());
  require((out.state == State::kError) == !p.error().empty());
  if (out.state == State::kError) {
    require(!out.reusable);
    out.error = p.error();
    out.body.clear();  // how far it got before failing is not part of the outcome
    return out;
  }
  if (!p.head_done()) return out;
  check_head(p, fields);
  return {out.state, "", p.status(), fields, p.content_length(), std::move(out.body), out.reusable};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // A caller's bound up to twice the reader's own, which it must hold whatever the caller's.
  const auto max_head = in.ConsumeIntegralInRange<std::size_t>(0, 2 * AnswerParser::kMaxHead);
  const auto seed = in.ConsumeIntegral<std::uint32_t>();
  const auto max_piece = in.ConsumeIntegralInRange<std::size_t>(1, 64);
  const bool head = in.ConsumeBool();
  const bool closes = in.ConsumeBool();
  const std::string answer = in.ConsumeRemainingBytesAsString();
  const Read whole = read(answer, head, max_head, closes, std::minstd_rand(seed), 0);
  require(read(answer, head, max_head, closes, std::minstd_rand(seed), max_piece) == whole);
  return 0;
}
