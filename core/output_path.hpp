#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"

namespace stampede {

// How an output is written, from what its path names when it is checked.
enum class OutputKind {
  kNewFile,      // nothing there yet
  kRegularFile,  // replaced whole by a rename
  kInPlace,      // a device or a FIFO: opened and written, never replaced
};

// An output path that can be written, with its symlinks followed.
struct OutputPath {
  std::string resolved;  // the file created or renamed over; for kInPlace the path as given
  OutputKind kind = OutputKind::kNewFile;
};

// Checked before any work, so that a path the run cannot write costs no run. Symlinks are
// followed to their final target (a dangling one names the file to create). Refused, with one
// line naming the path and the problem: a folder, a missing folder, a folder it may not write
// (the new file is renamed into it), a regular file without a write bit for anyone (even for
// root, who may write it anyway: the bits say someone meant to keep it) or that this process
// may not write, a socket.
Parsed<OutputPath> check_output_path(const std::string& path);

// Writes text where check_output_path resolves path now. A file goes to TARGET.tmp.PID beside
// its target, synced to disk and renamed over the target: an interrupted run leaves the old
// file or the whole new one, a symlink stays a symlink, a replaced file keeps its permission
// bits. A device or a FIFO is opened and written in place: replacing /dev/null with a file
// would break every later '> /dev/null' on the machine. On a failure any temporary file is
// removed and the error names the path.
std::optional<std::string> write_output(const std::string& path, const std::string& text);

// "-" as a path: stdout, for the flags that take it (the results of `loadgen run --out -`).
inline constexpr std::string_view kStdoutPath = "-";

// An output flag as given; an empty path is no output.
struct OutputFlag {
  std::string flag;
  std::string path;
  bool stdout_ok = false;  // "-" is stdout; for any other flag "-" is refused, not a file "-"
};

// The first output that cannot be written, as "FLAG: problem"; none when every one can.
std::optional<std::string> check_output_flags(const std::vector<OutputFlag>& outputs);

}  // namespace stampede
