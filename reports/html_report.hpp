#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results.hpp"

namespace stampede {

// One self-contained page: inline CSS and inline SVG, no script and no external resource (its
// Content-Security-Policy forbids both), XHTML so an XML parser reads it too. One run gives
// its charts; several give the same charts as small multiples on shared axes and a table
// side by side. Labels name the runs, one per run; missing ones are default_label(). Every
// string from the results is escaped. Size and time depend on the runs' bins, never their
// traffic.
std::string render_report(const std::vector<Results>& runs, const std::vector<std::string>& labels);

// The report's stylesheet (no `<` or `&`), which the live dashboard's page shares.
std::string_view report_style();

// What a run is called when nobody named it: its strategy (an exec fleet: "exec").
std::string default_label(const Results& r);

// Renders one run's report and writes it (write_output). Returns the error, if any.
std::optional<std::string> write_report(const Results& results, const std::string& path);

// Where a run's report goes beside its results: "out/storm.json" -> "out/storm.html".
std::string default_report_path(const std::string& results_path);

}  // namespace stampede
