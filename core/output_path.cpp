#include "output_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stampede {
namespace {

using CheckedPath = Parsed<OutputPath>;

constexpr int kMaxSymlinks = 40;  // the kernel's own limit on a chain of links

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string in_folder(const std::string& folder, const std::string& name) {
  return folder == "/" ? "/" + name : folder + "/" + name;
}

// The canonical path (every link and '..' resolved), or the errno of why there is none.
struct RealPath {
  std::string path;
  int error = 0;
};

RealPath real_path(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) return {"", errno};
  RealPath r{real, 0};
  std::free(real);
  return r;
}

std::string folder_problem(const std::string& path, const std::string& folder, int error) {
  if (error == ENOENT) return quoted(path) + ": folder " + quoted(folder) + " does not exist";
  if (error == ENOTDIR) return quoted(path) + ": " + quoted(folder) + " is not a folder";
  return quoted(path) + ": folder " + quoted(folder) + ": " + std::strerror(error);
}

// The file is created (or renamed over) there, so the folder must take a new name.
std::optional<std::string> folder_not_writable(const std::string& path, const std::string& folder) {
  if (access(folder.c_str(), W_OK | X_OK) == 0) return std::nullopt;
  const int error = errno;
  return quoted(path) + ": folder " + quoted(folder) + " is not writable (" + std::strerror(error) +
         ")";
}

std::optional<std::string> not_writable(const std::string& path) {
  if (access(path.c_str(), W_OK) == 0) return std::nullopt;
  const int error = errno;
  return quoted(path) + " is not writable (" + std::strerror(error) + ")";
}

// Where a chain of symlinks that ends in nothing points: the file a dangling link creates.
Parsed<std::string> follow_dangling(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops <= kMaxSymlinks; ++hops) {
    std::string target(PATH_MAX, '\0');
    const ssize_t n = readlink(p.c_str(), target.data(), target.size());
    if (n < 0) return Parsed<std::string>::ok(p);  // not a link: the end of the chain
    target.resize(static_cast<std::size_t>(n));
    p = target.front() == '/' ? target : in_folder(folder_of(p), target);
  }
  return Parsed<std::string>::fail(quoted(path) + ": too many levels of symbolic links");
}

CheckedPath new_file(const std::string& path) {
  const auto followed = follow_dangling(path);
  if (!followed) return CheckedPath::fail(followed.error());
  const std::string name = name_of(*followed);
  if (name.empty() || name == "." || name == "..")
    return CheckedPath::fail(quoted(path) + " names a folder, not a file");
  const std::string folder = folder_of(*followed);
  const auto real = real_path(folder);
  if (real.error != 0) return CheckedPath::fail(folder_problem(path, folder, real.error));
  if (auto e = folder_not_writable(path, folder)) return CheckedPath::fail(*e);
  return CheckedPath::ok({in_folder(real.path, name), OutputKind::kNewFile});
}

CheckedPath regular_file(const std::string& path, mode_t mode) {
  if ((mode & 0222) == 0) {
    char bits[8];
    std::snprintf(bits, sizeof bits, "%04o", static_cast<unsigned>(mode & 07777));
    return CheckedPath::fail(quoted(path) + " is read-only (mode " + bits +
                             "); make it writable or name another file");
  }
  if (auto e = not_writable(path)) return CheckedPath::fail(*e);
  const auto real = real_path(path);
  if (real.error != 0) return CheckedPath::fail(quoted(path) + ": " + std::strerror(real.error));
  if (auto e = folder_not_writable(path, folder_of(real.path))) return CheckedPath::fail(*e);
  return CheckedPath::ok({real.path, OutputKind::kRegularFile});
}

// Kept as given: the kernel follows the links when it opens it, /dev/stdout's too, whose
// target (a pipe, a terminal) has no path of its own.
CheckedPath in_place(const std::string& path, mode_t mode) {
  if (S_ISSOCK(mode)) return CheckedPath::fail(quoted(path) + " is a socket, not a file");
  if (auto e = not_writable(path)) return CheckedPath::fail(*e);
  return CheckedPath::ok({path, OutputKind::kInPlace});
}

std::string write_failed(const std::string& path, int error) {
  return "cannot write " + quoted(path) + ": " + std::strerror(error);
}

bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> write_in_place(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return write_failed(path, errno);
  if (!write_all(fd, text)) {
    const int error = errno;
    close(fd);
    return write_failed(path, error);
  }
  if (close(fd) != 0) return write_failed(path, errno);
  return std::nullopt;
}

std::optional<std::string> write_replacing(const std::string& target, const std::string& text) {
  // A name of this process's own, so two writers of one path never share a temporary file.
  const std::string tmp = target + ".tmp." + std::to_string(getpid());
  // Takes errno first: close and unlink may change it.
  const auto failed = [&](int fd) -> std::optional<std::string> {
    const int error = errno;
    if (fd >= 0) close(fd);
    unlink(tmp.c_str());
    return write_failed(tmp, error);
  };
  // O_EXCL: a link planted under the temporary name is refused, never written through. A
  // leftover of a killed process with this pid goes first.
  unlink(tmp.c_str());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return write_failed(tmp, errno);
  // The replacement keeps the bits of the file it replaces (a 0600 file stays private); a
  // file system without modes simply keeps the new file's.
  struct stat old {};
  if (stat(target.c_str(), &old) == 0) (void)fchmod(fd, old.st_mode & 07777);
  if (!write_all(fd, text)) return failed(fd);
  // On disk before the rename: after a crash of the machine the path holds the old file or the
  // whole new one, never an empty one.
  if (fsync(fd) != 0 && errno != EINVAL) return failed(fd);
  if (close(fd) != 0) return failed(-1);
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int error = errno;
    unlink(tmp.c_str());
    return "cannot rename " + quoted(tmp) + " to " + quoted(target) + ": " + std::strerror(error);
  }
  return std::nullopt;
}

}  // namespace

Parsed<OutputPath> check_output_path(const std::string& path) {
  if (path.empty()) return CheckedPath::fail("an empty path; name a file");
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) return new_file(path);
    if (error == ENOTDIR) return CheckedPath::fail(folder_problem(path, folder_of(path), ENOTDIR));
    return CheckedPath::fail(quoted(path) + ": " + std::strerror(error));
  }
  if (S_ISDIR(st.st_mode))
    return CheckedPath::fail(quoted(path) + " is a folder; name a file in it");
  if (S_ISREG(st.st_mode)) return regular_file(path, st.st_mode);
  return in_place(path, st.st_mode);
}

std::optional<std::string> write_output(const std::string& path, const std::string& text) {
  const auto target = check_output_path(path);
  if (!target) return "cannot write: " + target.error();
  if (target->kind == OutputKind::kInPlace) return write_in_place(target->resolved, text);
  return write_replacing(target->resolved, text);
}

std::optional<std::string> check_output_flags(const std::vector<OutputFlag>& outputs) {
  for (const auto& [flag, path, stdout_ok] : outputs) {
    if (path.empty() || (stdout_ok && path == kStdoutPath)) continue;
    if (path == kStdoutPath)
      return flag +
             ": '-' is not stdout here (only --out of run and exec takes it); name a "
             "file (./- for one called '-')";
    if (const auto target = check_output_path(path); !target) return flag + ": " + target.error();
  }
  return std::nullopt;
}

}  // namespace stampede
