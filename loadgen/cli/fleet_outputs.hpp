#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/junit_writer.hpp"
#include "live/provider_admin.hpp"
#include "provider_section.hpp"
#include "results.hpp"

namespace stampede {

// What both fleet commands (run, exec) do once the results are in: the exit code of the
// verdicts and of a stop, the results document, JUnit and the HTML report.

// The JUnit case that says whether the run itself was carried out to its end.
inline constexpr const char* kRunCase = "run completed";

// A file the engine formats itself (dead letters, attempts); no path, no file.
struct OutputFile {
  std::string what;  // as stderr names it: "the dead letters"
  std::string path;
  std::string text;
};

struct FleetOutputs {
  std::string out_path;  // the results document; "-": stdout
  std::string junit_path;
  std::string report_path;
  std::vector<OutputFile> files;
  bool quiet = false;  // else each file written is named on stderr, and a run without --out
                       // says that the results were not kept
};

// Why a fleet cut short by a stop (stopped_by: "a signal", "--max-duration 1h"; empty: none)
// did not show what it does: its items unfinished. nullopt when it ran to its end.
std::optional<std::string> stop_failure(std::string_view stopped_by, double wall_s,
                                        std::int64_t unfinished);

// 2 when a check was refused (gate_exit_code), 1 when one failed or when a stop left items
// unfinished; a refusal and the stop are said on stderr (say_refusals, stop_failure); 0
// otherwise.
int verdict_code(const Results& r, std::string_view stopped_by, double wall_s);

// Writes the document (to_json(r) and the engine's own sections: doc; to stdout for --out -),
// the engine's files and the report, then JUnit last, so that it says what they came to: the
// checks' cases and run_case, which becomes the error of the first file that could not be written.
// Each failure is said on stderr; false when any.
bool write_fleet_outputs(const Results& r, const nlohmann::json& doc, double wall_s,
                         const FleetOutputs& outputs, const std::vector<JunitCase>& cases,
                         JunitCase run_case);

// A fleet that ended before it could be judged: a JUnit file (when asked for) whose one case
// is the error. A failure to write it is said on stderr.
// Named on stderr unless quiet.
void write_junit_error(const std::string& junit_path, const std::string& scenario_name,
                       const std::string& message, bool quiet);

// Where the summary goes: stdout, unless the results document is going there (--out -).
std::ostream& summary_stream(const std::string& out_path);

// The "provider" section: which admin API, and what it counted besides the histograms.
ProviderSection provider_section(const TargetUrl& admin, const ProviderStats& stats);

// A shard's: the same with the whole provider's arrival histograms, which `loadgen merge`
// (and a supervisor) take as the fleet's.
ProviderSection shard_provider_section(const TargetUrl& admin, const ProviderStats& stats);

}  // namespace stampede
