#pragma once

#include <string>
#include <vector>

namespace stampede {

struct ReportCommand {
  std::vector<std::string> inputs;  // results JSON files; two or more make a comparison
  std::string out_path;             // the HTML file to write
  std::vector<std::string> labels;  // one per input; empty: derived by input_labels()
  bool quiet = false;               // print nothing on success
};

// Checks the output path, reads every results file, renders one report and writes it
// (write_output), then prints its path. Returns the exit code: 0 written; 2 bad input (an
// output path that cannot take a file, no input, an empty, unreadable or malformed results
// file, labels that do not match the inputs), with one line naming the file and what is
// wrong; 3 the report could not be written.
int run_report_command(const ReportCommand& cmd);

// Names for runs nobody labelled: their strategies when those tell them apart, else their
// file names without ".json", else their paths.
std::vector<std::string> input_labels(const std::vector<std::string>& paths,
                                      const std::vector<std::string>& strategies);

}  // namespace stampede
