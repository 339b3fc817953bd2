#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "duration.hpp"
#include "json_text.hpp"
#include "recording/arrival_stats.hpp"
#include "recording/stats_document.hpp"

using namespace stampede;

namespace {

// A send numbered by the client's own X-Attempt.
SendAttribution numbered_send(std::int64_t n) {
  return {SendStatus::kAttributed, SendRule::kXAttempt, n};
}

ArrivalStats recorder(const std::vector<std::string>& tenants) {
  ArrivalStats s(kNsPerSec);
  std::int64_t t_ns = 0;
  for (const auto& tenant : tenants) {
    s.record(t_ns, tenant, Outcome::kRateLimited, numbered_send(2), DecisionReason::kAllowance);
    s.record(t_ns += kNsPerSec, tenant, Outcome::kOk, numbered_send(1));
  }
  return s;
}

using Format = StatsDocument::Format;

// The document as the recorders' merged stats make it whole, and as StatsDocument makes it.
struct Both {
  std::string whole;
  std::string pieces;
};

Both both(const std::vector<ArrivalStats>& recorders, std::size_t piece_bytes,
          Format format = Format::kJson) {
  ArrivalStats merged(kNsPerSec);
  StatsDocument doc(kNsPerSec, recorders.size());
  for (const auto& r : recorders) {
    merged.merge(r);
    doc.add(r);
  }
  doc.finish(1234, 0.5);
  Both out{format == Format::kJson ? json_text(merged.to_json(1234, 0.5)) + "\n"
                                   : merged.to_prometheus(1234),
           ""};
  CHECK(doc.write(
      [&](const std::string& piece) {
        CHECK_FALSE(piece.empty());
        out.pieces += piece;
        return true;
      },
      format, piece_bytes));
  CHECK(doc.size(format) == out.pieces.size());
  CHECK(doc.text(format) == out.pieces);
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

TEST_CASE("stats document: the metrics page made a piece at a time is the whole page") {
  const std::vector<ArrivalStats> recorders = {recorder({"a", "shared", "q\"uote"}),
                                               recorder({"shared", "line\nbreak", ""})};
  for (const std::size_t piece_bytes : {std::size_t{1}, std::size_t{100}, std::size_t{1} << 20}) {
    CAPTURE(piece_bytes);
    const auto [whole, pieces] = both(recorders, piece_bytes, Format::kPrometheus);
    CHECK(pieces == whole);
  }
  const auto [whole, pieces] = both(recorders, 64, Format::kPrometheus);
  CHECK(pieces.find("fakeprovider_tenant_requests_total{tenant=\"shared\",outcome=\"429\"} 2\n") !=
        std::string::npos);
}

TEST_CASE("stats document: no tenants, and a writer that gives up") {
  const auto [whole, pieces] = both({ArrivalStats(kNsPerSec)}, 64);
  CHECK(nlohmann::json::parse(pieces) == nlohmann::json::parse(whole));
  CHECK(nlohmann::json::parse(pieces).at("tenants") == nlohmann::json::object());

  StatsDocument doc(kNsPerSec, 0);
  doc.add(recorder({"a", "b", "c"}));
  doc.finish(0, 1);
  for (const auto format : {Format::kJson, Format::kPrometheus}) {
    int calls = 0;
    CHECK_FALSE(doc.write(
        [&](const std::string&) {
          ++calls;
          return false;
        },
        format, 1));
    CHECK(calls == 1);
  }
}
