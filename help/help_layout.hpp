#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace stampede {

// The group listed last, after everything a first run needs: plumbing (threads, connection
// and transport tuning, how an arrival is stamped, a shared store, worker processes).
inline constexpr const char* kAdvancedGroup = "Advanced";
// The group listed first: the flags named in a command's HelpLayout::first.
inline constexpr const char* kFirstGroup = "Start here";

// What a command's --help opens with, after its one-line purpose (its description).
struct HelpLayout {
  std::string example;             // a short runnable example, its lines as typed
  std::vector<std::string> first;  // the flags a person needs first, in this order
};

// Every help page of app and of the subcommands added after it says CLI11's notation in words:
// a flag's type and default only beside it ("--clients INT=100"); required, the environment
// variable it falls back to and what it cannot go with at the end of its description.
void use_plain_help(CLI::App& app);

// cmd's --help: its purpose, usage, the example, the first flags in the order given, its other
// groups, then the Advanced one.
void lay_out_help(CLI::App& cmd, HelpLayout layout);

}  // namespace stampede
