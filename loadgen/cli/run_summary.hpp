#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "results.hpp"

namespace stampede {

// The summary `loadgen run` prints, one process's run or its workers' merged: taken from the
// results document, so that both say the same from the same figures.

// "harness: 2 loops (native), ... send lateness p50 ..., p99 ...", from the live section.
std::string format_harness_line(const nlohmann::json& live);

// "memory: peak RSS shard 0 181.2 MiB, ...; supervisor 9.1 MiB", from live.processes; empty
// when there is none.
std::string format_processes_line(const nlohmann::json& live);

// "DIVERGED: ..." and its possible causes when the run's arrivals are further than
// kLoudDivergence from its simulation's, from the document's comparison, summary and live
// sections: what a reader must see before any number of a run that measured something else.
// Empty otherwise.
std::string format_divergence(const nlohmann::json& doc);

// --stream: "streams: time to first token p50 ... ms, p99 ... ms; N completed, M broken ...",
// and "streams open: at most N at a second's end (t=S s)", from the results' streams section;
// empty when the run streamed nothing.
std::string format_streams_line(const nlohmann::json& doc);

// Proxy mode: "who answered: the provider itself 119 outage, 3 request rate exceeded; it
// forwarded 40 to the upstream, which answered 0 with a 429, ...", from the results'
// provider section, so an upstream's 404s read apart from the provider's own refusals. Empty
// when the provider is not in proxy mode (its settings say), or they were not read.
std::string format_who_answered(const nlohmann::json& provider);

// provider.models (docs/LLM.md#per-model): "provider by model: big 2 served of 2; small 1
// served of 2 (1 request rate exceeded)", from the results' provider section; empty when it
// counted no models.
std::string format_by_model(const nlohmann::json& provider);

// The divergence (if loud), the terminal summary, the comparison (if the document has one) and the
// harness's lines, where the summary goes (stdout, or stderr when the results go to stdout).
void print_run_summary(const Results& r, const nlohmann::json& doc, const std::string& out_path);

}  // namespace stampede
