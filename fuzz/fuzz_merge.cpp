// `loadgen merge` of shards' results files: whatever JSON documents it is given, it either
// refuses them with a message or merges them into a document that reads back as results,
// whose counts are the sums of the inputs', and that renders, never a crash. The first byte
// says --partial (odd) or not; the rest is two or more documents split at lines "---".
//
// The simulation a complete live merge recomputes costs what `loadgen simulate` of the
// documents' scenario costs (fuzz_scenario's ground): only small fleets are merged as live.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/merge_command.hpp"
#include "results.hpp"
#include "terminal_summary.hpp"

namespace {

using nlohmann::json;

constexpr std::string_view kSeparator = "\n---\n";
constexpr std::size_t kMaxDocuments = 8;
constexpr std::int64_t kMaxSimulatedItems = 2000;

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < kMaxDocuments) {
    const auto at = text.find(kSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + kSeparator.size());
  }
  parts.push_back(text);
  return parts;
}

// Whether merging these would simulate a fleet larger than the fuzzer can afford per input.
bool simulates_a_big_fleet(const std::vector<stampede::Results>& read) {
  for (const auto& r : read) {
    if (r.engine == "run" && (r.scenario.fleet.item_count() > kMaxSimulatedItems ||
                              r.scenario.fleet.clients > kMaxSimulatedItems))
      return true;
  }
  return false;
}

std::int64_t sum_of(const std::vector<stampede::Results>& read,
                    std::int64_t stampede::Recording::*count, bool& overflows) {
  std::int64_t sum = 0;
  for (const auto& r : read) overflows |= __builtin_add_overflow(sum, r.recording.*count, &sum);
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool partial = data[0] & 1;
  const auto parts = split({reinterpret_cast<const char*>(data) + 1, size - 1});
  if (parts.size() < 2) return 0;
  std::vector<std::pair<std::string, json>> docs;
  std::vector<stampede::Results> read;
  for (const auto part : parts) {
    json j = json::parse(part, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;  // the command refuses a file that is not JSON
    if (auto r = stampede::results_from_json(j)) read.push_back(std::move(*r));
    docs.emplace_back("shard-" + std::to_string(docs.size()) + ".json", std::move(j));
  }
  if (simulates_a_big_fleet(read)) return 0;

  const auto merged = stampede::merge_results(docs, partial);
  if (!merged) {
    if (merged.error().empty()) std::abort();
    return 0;
  }
  // Merged only if every input read as results.
  if (read.size() != docs.size()) std::abort();
  const std::string text = merged->dump(1);  // what the command writes
  const auto back = stampede::results_from_json(*merged);
  if (!back) std::abort();
  bool overflows = false;
  using stampede::Recording;
  const auto& rec = back->recording;
  if (rec.items != sum_of(read, &Recording::items, overflows) ||
      rec.requests != sum_of(read, &Recording::requests, overflows) ||
      rec.delivered != sum_of(read, &Recording::delivered, overflows)) {
    if (!overflows) std::abort();
  }
  stampede::format_terminal_summary(*back);
  return 0;
}
