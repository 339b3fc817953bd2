#include "cli/merge_command.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/live_comparison.hpp"
#include "exit_codes.hpp"
#include "gate.hpp"
#include "json_int.hpp"
#include "live_section.hpp"
#include "output_path.hpp"
#include "policy/shard.hpp"
#include "provider_section.hpp"
#include "results.hpp"
#include "sim/sim_engine.hpp"
#include "terminal_summary.hpp"

namespace stampede {
namespace {

using json = nlohmann::json;

const std::string kMalformed = "malformed results document: ";

struct ShardDoc {
  std::string name;
  const json* doc = nullptr;
  Results results;
  ShardInfo shard;  // {0, 1} for an unsharded run
};

std::vector<std::string> assertion_texts(const Results& r) {
  std::vector<std::string> texts;
  for (const auto& v : r.verdicts) texts.push_back(v.text);
  return texts;
}

// The first scenario field (one level into fleet and provider) whose value differs.
std::string first_difference(const json& a, const json& b, const std::string& prefix = "") {
  for (const auto& [key, value] : a.items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (!b.contains(key)) return path;
    if (value == b.at(key)) continue;
    if (value.is_object() && b.at(key).is_object() && prefix.empty())
      return first_difference(value, b.at(key), path);
    return path;
  }
  for (const auto& [key, value] : b.items()) {
    if (!a.contains(key)) return prefix.empty() ? key : prefix + "." + key;
  }
  return prefix.empty() ? "?" : prefix;
}

bool same_shape(const BinnedCounts& a, const BinnedCounts& b) {
  return a.bin_ns() == b.bin_ns() && a.labels() == b.labels();
}

bool same_histogram_shapes(const Recording& a, const Recording& b) {
  return same_shape(a.provider_by_outcome, b.provider_by_outcome) &&
         same_shape(a.provider_by_send, b.provider_by_send) &&
         same_shape(a.client_by_outcome, b.client_by_outcome) &&
         same_shape(a.client_by_send, b.client_by_send) && same_shape(a.backoff, b.backoff);
}

// Why these two cannot be shards of one fleet; empty if they can.
std::string mismatch(const ShardDoc& a, const ShardDoc& b) {
  const auto& x = a.results;
  const auto& y = b.results;
  const std::string pair = a.name + " and " + b.name;
  if (x.engine != y.engine)
    return pair + " come from different engines (" + x.engine + ", " + y.engine +
           "): merge the shards of one simulate or one run";
  if (x.scenario.fleet.seed != y.scenario.fleet.seed)
    return pair + " have different seeds (" + std::to_string(x.scenario.fleet.seed) + ", " +
           std::to_string(y.scenario.fleet.seed) + "): every shard must run with the same --seed";
  const json sx = to_json(x.scenario);
  const json sy = to_json(y.scenario);
  if (sx != sy)
    return pair + " ran different scenarios (" + first_difference(sx, sy) +
           " differs): every shard must run the same scenario and flags";
  if (assertion_texts(x) != assertion_texts(y))
    return pair + " checked different assertions: give every shard the same --assert";
  if (!same_histogram_shapes(x.recording, y.recording))
    return pair + " have histograms of different bins or labels: merge the shards of one run";
  if (a.shard.count != b.shard.count)
    return pair + " have different shard counts (" + std::to_string(a.shard.count) + ", " +
           std::to_string(b.shard.count) + ")";
  if (a.shard.index == b.shard.index)
    return pair + " are both shard " + std::to_string(a.shard.index) + " of " +
           std::to_string(a.shard.count);
  return "";
}

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (const auto i : v) s += (s.empty() ? "" : ", ") + std::to_string(i);
  return s;
}

// The shards' live sections as one fleet's (merge_live_sections).
Parsed<LiveSection> merge_live(const std::vector<ShardDoc>& shards) {
  std::vector<LiveSection> sections;
  for (const auto& s : shards) {
    auto live = live_section_from_json(s.doc->at("live"));
    if (!live) return Parsed<LiveSection>::fail(kMalformed + s.name + ": " + live.error());
    sections.push_back(std::move(*live));
  }
  return Parsed<LiveSection>::ok(merge_live_sections(sections));
}

// The shards' provider sections, as they read them.
Parsed<std::vector<ProviderSection>> provider_reads(const std::vector<ShardDoc>& shards) {
  std::vector<ProviderSection> reads;
  for (const auto& s : shards) {
    if (!s.doc->contains("provider")) continue;
    auto p = provider_section_from_json(s.doc->at("provider"));
    if (!p)
      return Parsed<std::vector<ProviderSection>>::fail(kMalformed + s.name + ": " + p.error());
    reads.push_back(std::move(*p));
  }
  return Parsed<std::vector<ProviderSection>>::ok(std::move(reads));
}

// Each admin URL is one provider replica that saw every shard sending to it; the shards
// fetched its stats at different moments, so the fullest fetch counts. Replicas add up.
std::optional<ProviderSection> merge_provider(const std::vector<ProviderSection>& reads,
                                              Results& merged, std::vector<std::string>& notes) {
  std::map<std::string, const ProviderSection*> fullest;
  for (const auto& p : reads) {
    auto& best = fullest[p.admin];
    if (!best || p.requests > best->requests) best = &p;
  }
  if (fullest.empty()) return std::nullopt;
  ProviderSection section;
  // The connections turned away: a sum only when every provider counted them, never a part.
  std::int64_t refused = 0;
  bool refused_counted = true;
  BinnedCounts by_outcome(kNsPerSec, kOutcomeCount);
  BinnedCounts by_send(kNsPerSec, kSendLabels);
  bool histograms = true;
  for (const auto& [admin, p] : fullest) {
    section.replicas.push_back({admin, p->requests});
    section.requests = saturating_add(section.requests, p->requests);
    refused_counted = refused_counted && p->connections_refused;
    refused = saturating_add(refused, p->connections_refused.value_or(0));
    if (!p->arrivals_by_outcome || !p->arrivals_by_send || p->bin_ns != kNsPerSec) {
      histograms = false;
      continue;
    }
    by_outcome.merge(*p->arrivals_by_outcome);
    by_send.merge(*p->arrivals_by_send);
  }
  if (histograms) {
    merged.recording.provider_by_outcome = std::move(by_outcome);
    merged.recording.provider_by_send = std::move(by_send);
    merged.provider_side = true;
  } else {
    notes.push_back(
        "a provider's arrival histograms were missing or not in 1 s bins: the "
        "summary uses the clients' view");
  }
  if (section.requests != merged.recording.requests) {
    notes.push_back("the provider recorded " + std::to_string(section.requests) +
                    " requests, the clients sent " + std::to_string(merged.recording.requests) +
                    " (a shard may have fetched its stats before the others finished)");
  }
  if (refused_counted) section.connections_refused = refused;
  return section;
}

// The simulation of the whole sharded fleet: every shard's, added up (a queue workload is
// split per shard there too).
Results simulate_shards(const Scenario& scenario, std::int64_t count, std::int64_t horizon_ns) {
  Results all;
  for (std::int64_t i = 0; i < count; ++i) {
    SimOptions options;
    if (horizon_ns > 0) options.horizon_ns = horizon_ns;
    options.shard = Shard{i, count};
    Results r = simulate(scenario, options);
    if (i == 0) {
      all = std::move(r);
    } else {
      all.recording.merge(r.recording);
    }
  }
  all.summary = summarize(all.recording, scenario.provider, true);
  return all;
}

// The fleet's: from the first shard's start (the same format sorts by time) to the last one's
// end, stopped early when any shard was.
std::optional<RunContext> merge_context(const std::vector<ShardDoc>& shards) {
  std::optional<RunContext> out;
  for (const auto& s : shards) {
    const auto& c = s.results.context;
    if (!c) continue;
    if (!out) {
      out = c;
      continue;
    }
    out->started_utc = std::min(out->started_utc, c->started_utc);
    out->wall_s = std::max(out->wall_s, c->wall_s);
    if (out->stopped_by.empty()) out->stopped_by = c->stopped_by;
  }
  return out;
}

Parsed<json> merge_documents(const std::vector<std::pair<std::string, json>>& docs, bool partial) {
  std::vector<ShardDoc> shards;
  for (const auto& [name, doc] : docs) {
    auto r = results_from_json(doc);
    if (!r) return Parsed<json>::fail(name + ": " + r.error());
    const ShardInfo info = r->shard.value_or(ShardInfo{});
    shards.push_back({name, &doc, std::move(*r), info});
  }
  std::sort(shards.begin(), shards.end(),
            [](const ShardDoc& a, const ShardDoc& b) { return a.shard.index < b.shard.index; });
  for (std::size_t i = 0; i < shards.size(); ++i) {
    for (std::size_t j = i + 1; j < shards.size(); ++j) {
      if (auto why = mismatch(shards[i], shards[j]); !why.empty()) return Parsed<json>::fail(why);
    }
  }
  const std::int64_t count = shards.front().shard.count;
  std::vector<std::int64_t> missing;
  for (std::int64_t i = 0, k = 0; i < count; ++i) {
    if (k < static_cast<std::int64_t>(shards.size()) &&
        shards[static_cast<std::size_t>(k)].shard.index == i) {
      ++k;
    } else {
      missing.push_back(i);
    }
  }
  if (!missing.empty() && !partial)
    return Parsed<json>::fail("shard" + std::string(missing.size() > 1 ? "s " : " ") +
                              join(missing) + " of " + std::to_string(count) +
                              (missing.size() > 1 ? " are" : " is") +
                              " missing: give every shard's results, or --partial");

  const Results& first = shards.front().results;
  Results merged;
  merged.engine = first.engine;
  merged.scenario = first.scenario;
  merged.stampede_version = first.stampede_version;
  merged.recording = first.recording;
  merged.provider_side = first.provider_side;
  merged.context = merge_context(shards);
  for (std::size_t i = 1; i < shards.size(); ++i)
    merged.recording.merge(shards[i].results.recording);

  std::vector<std::string> notes;
  const bool live = merged.engine == "run";
  std::optional<ProviderSection> provider;
  LiveSection live_section;
  if (live) {
    auto merged_live = merge_live(shards);
    if (!merged_live) return Parsed<json>::fail(merged_live.error());
    live_section = std::move(*merged_live);
    const auto reads = provider_reads(shards);
    if (!reads) return Parsed<json>::fail(reads.error());
    provider = merge_provider(*reads, merged, notes);
  }
  merged.summary = summarize(merged.recording, merged.scenario.provider, merged.provider_side);
  json comparison;
  if (live && missing.empty()) {
    const bool stopped = !live_section.stopped.empty();
    const auto horizon =
        stopped ? std::max<std::int64_t>(std::llround(live_section.end_s * kNsPerSec), 1) : 0;
    comparison = compare_with_simulation(merged, simulate_shards(merged.scenario, count, horizon));
    notes.push_back("comparison: recomputed against the simulation of all " +
                    std::to_string(count) + " shards");
  } else if (live) {
    notes.push_back("comparison: dropped, shards are missing");
  }
  const bool compared = !comparison.is_null() && take_divergence(comparison, merged.summary);
  auto assertions = parse_assertions(assertion_texts(first));
  if (!assertions) return Parsed<json>::fail(shards.front().name + ": " + assertions.error());
  // As the shards judged themselves: a failed 'delivered > 0' says what the fleet was answered.
  auto context = metric_context(merged);
  context.sim_comparison = compared;
  merged.verdicts = evaluate_gate(*assertions, merged, context);

  json out = to_json(merged);
  if (live) {
    out["live"] = to_json(live_section);
    if (provider) out["provider"] = to_json(*provider);
    if (!comparison.is_null()) out["comparison"] = comparison;
  }
  if (live || !missing.empty()) {
    json late = json::array();
    for (const auto& s : shards) late.push_back(s.shard.start_late_s);
    out["merged"] = {{"shards", count},
                     {"merged", static_cast<std::int64_t>(shards.size())},
                     {"missing", missing},
                     {"start_late_s", late},
                     {"notes", notes}};
  }
  return Parsed<json>::ok(std::move(out));
}

}  // namespace

Parsed<json> merge_results(const std::vector<std::pair<std::string, json>>& docs, bool partial) {
  if (docs.empty()) return Parsed<json>::fail("no results to merge");
  // Past what results_from_json reads (the live and provider sections), a document's fields
  // are taken as a live run writes them; one that holds something else is refused here.
  try {
    return merge_documents(docs, partial);
  } catch (const std::exception& e) {
    return Parsed<json>::fail(kMalformed + e.what());
  }
}

int run_merge_command(const MergeCommand& cmd) {
  if (auto e = check_output_flags({{"-o", cmd.out_path}})) {
    std::cerr << "loadgen: merge: " << *e << "\n";
    return kExitUsage;
  }
  std::vector<std::pair<std::string, json>> docs;
  for (const auto& path : cmd.inputs) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "loadgen: merge: cannot read '" << path << "'\n";
      return kExitUsage;
    }
    std::stringstream text;
    text << in.rdbuf();
    json j = json::parse(text.str(), nullptr, false);
    if (j.is_discarded()) {
      std::cerr << "loadgen: merge: '" << path << "' is not valid JSON\n";
      return kExitUsage;
    }
    docs.emplace_back(path, std::move(j));
  }
  const auto merged = merge_results(docs, cmd.partial);
  if (!merged) {
    std::cerr << "loadgen: merge: " << merged.error() << "\n";
    return kExitUsage;
  }
  if (auto error = write_output(cmd.out_path, merged->dump(1) + "\n")) {
    std::cerr << "loadgen: " << *error << "\n";
    return kExitUnreachable;
  }
  const auto results = results_from_json(*merged);
  if (!cmd.quiet) std::cout << format_terminal_summary(*results) << std::flush;
  for (const auto& v : results->verdicts) {
    if (!v.passed) return kExitFailed;
  }
  return kExitOk;
}

}  // namespace stampede
