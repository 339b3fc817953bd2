#include <doctest/doctest.h>

#include <vector>

#include "rng.hpp"

using namespace stampede;

namespace {

std::vector<std::uint64_t> draws(std::uint64_t seed, std::uint64_t stream, int n) {
  Rng rng = make_stream(seed, stream);
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(rng.next());
  return out;
}

}  // namespace

TEST_CASE("the same seed and stream give the same sequence") {
  for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, ~0ULL}) {
    for (std::uint64_t stream : {0ULL, 1ULL, 999'999ULL}) {
      CAPTURE(seed);
      CAPTURE(stream);
      CHECK(draws(seed, stream, 64) == draws(seed, stream, 64));
    }
  }
}

TEST_CASE("different streams and different seeds give different sequences") {
  const auto base = draws(1, 0, 16);
  CHECK(draws(1, 1, 16) != base);
  CHECK(draws(2, 0, 16) != base);
  // Neighbouring streams must not be shifted copies of each other.
  const auto next = draws(1, 1, 16);
  for (std::size_t i = 1; i < base.size(); ++i) CHECK(base[i] != next[i - 1]);
}

TEST_CASE("a stream does not depend on how many other streams exist") {
  // Client 7's draws are the same whether it is alone or the 8th of a fleet.
  Rng alone = make_stream(5, 7);
  std::vector<Rng> fleet;
  for (std::uint64_t c = 0; c < 8; ++c) fleet.push_back(make_stream(5, c));
  for (int i = 0; i < 16; ++i) CHECK(alone.next() == fleet[7].next());
}

TEST_CASE("unit draws lie in [0, 1) and uniform draws in [lo, hi)") {
  Rng rng(3);
  double sum = 0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    const double u = rng.unit();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  CHECK(sum / kDraws == doctest::Approx(0.5).epsilon(0.01));
  for (int i = 0; i < kDraws; ++i) {
    const auto v = rng.uniform(-5, 5);
    REQUIRE(v >= -5);
    REQUIRE(v < 5);
  }
  CHECK(rng.uniform(7, 7) == 7);
  CHECK(rng.uniform(7, 3) == 7);
}
