#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "parsed.hpp"

namespace stampede {

struct MergeCommand {
  std::vector<std::string> inputs;  // results files of the shards
  std::string out_path;
  bool partial = false;  // merge what is there; the merged results name the missing shards
  bool quiet = false;
};

// The shards' results documents (name, document) as one: counts and histograms added, the
// summary and the assertions evaluated again on the sum. Complete simulate shards give the
// unsharded `simulate --out` document byte for byte. Live sections: provider histograms add
// up over replicas (each admin URL's fullest fetch), wall figures merge (CPU adds, wall is the
// max, lateness histograms add), and the comparison with the simulation is recomputed (or
// dropped, with a note, when shards are missing). Fails, naming the files, on different
// engines, scenarios, seeds, assertions or shard counts, a duplicate shard, or, unless
// partial, a missing one.
Parsed<nlohmann::json> merge_results(
    const std::vector<std::pair<std::string, nlohmann::json>>& docs, bool partial);

// Checks the output, reads, merges, writes. Returns the exit code: 0 merged and every
// assertion holds, 1 some failed, 2 the output path cannot take a file (check_output_path) or
// the files cannot be merged (one line on stderr), 3 the output cannot be written.
int run_merge_command(const MergeCommand& cmd);

}  // namespace stampede
