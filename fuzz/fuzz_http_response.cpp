// A response is whatever a server sends, cut into whatever pieces the network delivers: the
// parser never reads past a piece, never takes more of it than it was given, and makes the same
// of the bytes however they are cut. The input is a stream of responses (pipelined), each parsed
// whole and in pieces.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "answer_parser.hpp"

namespace {

using stampede::AnswerParser;
using State = AnswerParser::State;

struct Parsed {
  State state = State::kIncomplete;
  std::size_t used = 0;
  int status = 0;
  std::string retry_after, etag, error;
  std::optional<bool> should_retry;
  bool keep_alive = false;
  bool operator==(const Parsed&) const = default;
};

void require(bool invariant) {
  if (!invariant) std::abort();
}

// Each piece is copied to a block of exactly its size, so AddressSanitizer sees a read past it.
State feed_piece(AnswerParser& p, std::string_view piece, std::size_t* used) {
  const auto block = std::make_unique<char[]>(piece.size());
  std::copy(piece.begin(), piece.end(), block.get());
  const State state = p.feed(block.get(), piece.size(), used);
  require(*used <= piece.size());
  require(state != State::kIncomplete || *used == piece.size());
  return state;
}

// The response at the start of `text`, in pieces of 1 + rng() % max_piece bytes (0: in one).
Parsed parse(std::string_view text, bool head, bool closes, std::minstd_rand rng,
             std::size_t max_piece) {
  AnswerParser p;
  p.reset(head);
  Parsed out;
  while (out.state == State::kIncomplete && out.used < text.size()) {
    const std::size_t left = text.size() - out.used;
    const std::size_t size =
        max_piece == 0 ? left : std::min<std::size_t>(1 + rng() % max_piece, left);
    std::size_t used = 0;
    out.state = feed_piece(p, text.substr(out.used, size), &used);
    out.used += used;
  }
  if (out.state == State::kIncomplete && closes) out.state = p.close();
  require((out.state == State::kError) == !p.error().empty());
  require(p.retry_after().size() <= 256 && p.etag().size() <= 256);
  if (out.state == State::kError) {
    Parsed failed;  // how far it got before failing is not part of the outcome
    failed.state = State::kError;
    failed.error = p.error();
    return failed;
  }
  if (out.state == State::kIncomplete) return out;
  require(p.status() >= 200 && p.status() <= 599 && out.used > 0);
  require(p.close() == State::kComplete);
  out.status = p.status();
  out.retry_after = p.retry_after();
  out.etag = p.etag();
  out.should_retry = p.should_retry();
  out.keep_alive = p.keep_alive();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool head = in.ConsumeBool();
  const bool closes = in.ConsumeBool();
  const auto seed = in.ConsumeIntegral<std::uint32_t>();
  const auto max_piece = in.ConsumeIntegralInRange<std::size_t>(1, 64);
  const std::string stream = in.ConsumeRemainingBytesAsString();
  std::string_view rest = stream;
  while (!rest.empty()) {
    const Parsed whole = parse(rest, head, closes, std::minstd_rand(seed), 0);
    require(parse(rest, head, closes, std::minstd_rand(seed), max_piece) == whole);
    if (whole.state != State::kComplete) break;
    rest.remove_prefix(whole.used);
  }
  return 0;
}
