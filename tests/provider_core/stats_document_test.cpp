#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "duration.hpp"
#include "json_text.hpp"
#include "recording/arrival_stats.hpp"
#include "recording/stats_document.hpp"

using namespace stampede;

namespace {

ArrivalStats recorder(const std::vector<std::string>& tenants) {
  ArrivalStats s(kNsPerSec);
  std::int64_t t_ns = 0;
  for (const auto& tenant : tenants) {
    s.record(t_ns, tenant, Outcome::kRateLimited, 2, DecisionReason::kAllowance);
    s.record(t_ns += kNsPerSec, tenant, Outcome::kOk, 1);
  }
  return s;
}

// The document as the recorders' merged stats make it whole, and as StatsDocument makes it.
struct Both {
  std::string whole;
  std::string pieces;
};

Both both(const std::vector<ArrivalStats>& recorders, std::size_t piece_bytes) {
  ArrivalStats merged(kNsPerSec);
  StatsDocument doc(recorders.size());
  ArrivalStats counts(kNsPerSec);
  for (const auto& r : recorders) {
    merged.merge(r);
    counts.merge_counts(r);
    doc.add_tenants(r);
  }
  doc.head = counts.to_json(1234, 0.5, /*with_tenants=*/false);
  Both out{json_text(merged.to_json(1234, 0.5)) + "\n", ""};
  CHECK(doc.write(
      [&](const std::string& piece) {
        CHECK_FALSE(piece.empty());
        out.pieces += piece;
        return true;
      },
      piece_bytes));
  CHECK(doc.size() == out.pieces.size());
  CHECK(doc.text() == out.pieces);
  return out;
}

}  // namespace

TEST_CASE("stats document: made a piece at a time, it is the whole document's JSON") {
  // Tenants in several recorders, one in all of them; keys that need escaping, and bytes that
  // are not UTF-8 (written as U+FFFD either way).
  const std::vector<ArrivalStats> recorders = {recorder({"a", "shared", "q\"uote"}),
                                               recorder({"shared", "\xff\xfe", "b"}),
                                               recorder({"shared", "line\nbreak", ""})};
  for (const std::size_t piece_bytes : {std::size_t{1}, std::size_t{100}, std::size_t{1} << 20}) {
    CAPTURE(piece_bytes);
    const auto [whole, pieces] = both(recorders, piece_bytes);
    CHECK(nlohmann::json::parse(pieces) == nlohmann::json::parse(whole));
    CHECK(pieces.back() == '\n');
  }
  const auto [whole, pieces] = both(recorders, 64);
  const auto j = nlohmann::json::parse(pieces);
  CHECK(j.at("tenants").size() == 7);
  CHECK(j.at("tenants").at("shared").at("requests") == 6);
  CHECK(j.at("requests") == 18);
}

TEST_CASE("stats document: no tenants, and a writer that gives up") {
  const auto [whole, pieces] = both({ArrivalStats(kNsPerSec)}, 64);
  CHECK(nlohmann::json::parse(pieces) == nlohmann::json::parse(whole));
  CHECK(nlohmann::json::parse(pieces).at("tenants") == nlohmann::json::object());

  StatsDocument doc(0);
  doc.add_tenants(recorder({"a", "b", "c"}));
  doc.head = ArrivalStats(kNsPerSec).to_json(0, 1, false);
  int calls = 0;
  CHECK_FALSE(doc.write(
      [&](const std::string&) {
        ++calls;
        return false;
      },
      1));
  CHECK(calls == 1);
}
