// Every output flag goes through check_output_path before the run and write_output after it:
// a path that cannot be written is refused before any work, a device is never replaced by a
// file, a symlink stays a symlink, a read-only file stays as it was.
#include <doctest/doctest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "output_path.hpp"
#include "support/files.hpp"
#include "support/null_twin.hpp"
#include "support/temp_dir.hpp"

using namespace stampede;
using support::contains;
using support::NullTwin;
using support::read_file;
using support::TempDir;

namespace {

bool is_symlink(const std::string& path) {
  return std::filesystem::is_symlink(std::filesystem::symlink_status(path));
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(lstat(path.c_str(), &st) == 0);
  return st.st_mode;
}

// No FILE.tmp.PID left beside anything in dir.
bool no_temporary_files(const TempDir& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (contains(entry.path().string(), ".tmp.")) return false;
  }
  return true;
}

// A refusal names the path, says the problem, and leaves nothing written.
void check_refused(const std::string& path, const std::string& problem) {
  const auto checked = check_output_path(path);
  REQUIRE_FALSE(checked);
  CHECK(contains(checked.error(), "'" + path + "'"));
  CHECK_MESSAGE(contains(checked.error(), problem), checked.error());
  CHECK(checked.error().find('\n') == std::string::npos);
  const auto written = write_output(path, "{}\n");
  REQUIRE(written);
  CHECK_MESSAGE(contains(*written, problem), *written);
}

}  // namespace

TEST_CASE("a new file is created whole, with no temporary file left") {
  TempDir dir;
  const auto path = dir.file("r.json");
  const auto checked = check_output_path(path);
  REQUIRE_MESSAGE(checked, checked.error());
  CHECK(checked->kind == OutputKind::kNewFile);
  CHECK_FALSE(write_output(path, "{\"a\":1}\n"));
  CHECK(read_file(path) == "{\"a\":1}\n");
  CHECK(no_temporary_files(dir));
}

TEST_CASE("a regular file is replaced whole and keeps its permission bits") {
  TempDir dir;
  const auto path = dir.write("r.json", "old, longer than the new text\n");
  REQUIRE(chmod(path.c_str(), 0600) == 0);
  const auto checked = check_output_path(path);
  REQUIRE_MESSAGE(checked, checked.error());
  CHECK(checked->kind == OutputKind::kRegularFile);
  CHECK_FALSE(write_output(path, "new\n"));
  CHECK(read_file(path) == "new\n");
  CHECK((mode_of(path) & 07777) == 0600);
  CHECK(no_temporary_files(dir));
}

TEST_CASE("a symlink to a file is written through and stays a symlink") {
  TempDir dir;
  std::filesystem::create_directory(dir.file("data"));
  const auto target = dir.write("data/r.json", "old\n");
  const auto link = dir.file("link.json");
  REQUIRE(symlink("data/r.json", link.c_str()) == 0);
  const auto checked = check_output_path(link);
  REQUIRE_MESSAGE(checked, checked.error());
  CHECK(checked->resolved == std::filesystem::canonical(target).string());
  CHECK_FALSE(write_output(link, "new\n"));
  CHECK(is_symlink(link));
  CHECK(read_file(target) == "new\n");
  CHECK(no_temporary_files(dir));
}

TEST_CASE("a dangling symlink writes its target and stays a symlink") {
  TempDir dir;
  const auto link = dir.file("link.json");
  REQUIRE(symlink("made-by-the-run.json", link.c_str()) == 0);
  const auto checked = check_output_path(link);
  REQUIRE_MESSAGE(checked, checked.error());
  CHECK(checked->kind == OutputKind::kNewFile);
  CHECK_FALSE(write_output(link, "new\n"));
  CHECK(is_symlink(link));
  CHECK(read_file(dir.file("made-by-the-run.json")) == "new\n");
}

TEST_CASE("a dangling symlink into a missing folder names that folder") {
  TempDir dir;
  const auto link = dir.file("link.json");
  REQUIRE(symlink("gone/r.json", link.c_str()) == 0);
  check_refused(link, "folder '" + dir.path() + "/gone' does not exist");
  CHECK(is_symlink(link));
}

TEST_CASE("a loop of symlinks is refused") {
  TempDir dir;
  REQUIRE(symlink("b", dir.file("a").c_str()) == 0);
  REQUIRE(symlink("a", dir.file("b").c_str()) == 0);
  const auto checked = check_output_path(dir.file("a"));
  REQUIRE_FALSE(checked);
  CHECK(contains(checked.error(), "symbolic links"));
}

TEST_CASE("a folder is refused, as given or with a trailing slash, and nothing is written") {
  TempDir dir;
  check_refused(dir.path(), "is a folder");
  check_refused(dir.path() + "/", "is a folder");
  check_refused(dir.file("not-yet/"), "names a folder, not a file");
  CHECK_FALSE(std::filesystem::exists(dir.path() + ".html"));
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("a missing folder is refused, naming the folder") {
  TempDir dir;
  check_refused(dir.file("no/such/r.json"), "folder '" + dir.file("no/such") + "' does not exist");
}

TEST_CASE("a folder that is a file is refused") {
  TempDir dir;
  const auto file = dir.write("plain", "x");
  check_refused(file + "/r.json", "'" + file + "' is not a folder");
  CHECK(read_file(file) == "x");
}

TEST_CASE("a read-only file is refused, as root too, and stays as it was") {
  TempDir dir;
  const auto path = dir.write("kept.json", "kept\n");
  REQUIRE(chmod(path.c_str(), 0444) == 0);
  check_refused(path, "is read-only (mode 0444)");
  CHECK(read_file(path) == "kept\n");
  CHECK(no_temporary_files(dir));
}

TEST_CASE("a folder this process may not write is refused (not as root, who may)") {
  if (geteuid() == 0) {
    MESSAGE("skipped as root: root writes a folder whatever its mode bits");
    return;
  }
  TempDir dir;
  std::filesystem::create_directory(dir.file("locked"));
  REQUIRE(chmod(dir.file("locked").c_str(), 0555) == 0);
  check_refused(dir.file("locked/r.json"), "is not writable");
  chmod(dir.file("locked").c_str(), 0755);
}

TEST_CASE("a FIFO is written in place and stays a FIFO") {
  TempDir dir;
  NullTwin fifo(dir.file("fifo"), NullTwin::Kind::kFifo);
  REQUIRE(fifo.made());
  const auto checked = check_output_path(fifo.path());
  REQUIRE_MESSAGE(checked, checked.error());
  CHECK(checked->kind == OutputKind::kInPlace);
  CHECK_FALSE(write_output(fifo.path(), "through the pipe\n"));
  CHECK(fifo.received(17) == "through the pipe\n");
  CHECK(fifo.intact());
  CHECK(no_temporary_files(dir));
}

TEST_CASE("a device node is written in place and stays a device") {
  TempDir dir;
  NullTwin twin(dir.file("null"));
  REQUIRE(twin.made());
  const auto checked = check_output_path(twin.path());
  REQUIRE_MESSAGE(checked, checked.error());
  CHECK(checked->kind == OutputKind::kInPlace);
  CHECK_FALSE(write_output(twin.path(), "{\"results\":1}\n"));
  CHECK_FALSE(write_output(twin.path(), "twice\n"));
  CHECK(twin.intact());
  if (!twin.is_device()) CHECK(twin.received(20) == "{\"results\":1}\ntwice\n");
  CHECK(no_temporary_files(dir));
}

TEST_CASE("a device that refuses the write (a private /dev/full twin) is an error naming it") {
  if (geteuid() != 0) {
    MESSAGE("skipped: only root makes a device node");
    return;
  }
  TempDir dir;
  const auto full = dir.file("full");
  REQUIRE(mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  const auto e = write_output(full, "x\n");
  REQUIRE(e);
  CHECK(*e == "cannot write '" + full + "': " + std::strerror(ENOSPC));
  CHECK(S_ISCHR(mode_of(full)));
  CHECK(no_temporary_files(dir));
}

TEST_CASE("a symlink to a device writes the device and stays a symlink") {
  TempDir dir;
  NullTwin twin(dir.file("null"));
  REQUIRE(twin.made());
  const auto link = dir.file("out.json");
  REQUIRE(symlink("null", link.c_str()) == 0);
  CHECK_FALSE(write_output(link, "x\n"));
  CHECK(is_symlink(link));
  CHECK(twin.intact());
}

TEST_CASE("a socket is refused") {
  TempDir dir;
  const auto path = dir.file("sock");
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  std::copy(path.begin(), path.end(), addr.sun_path);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  check_refused(path, "is a socket");
  close(fd);
}

TEST_CASE("check_output_flags names the flag of the first bad path and skips empty ones") {
  TempDir dir;
  CHECK_FALSE(check_output_flags({{"--out", dir.file("r.json")}, {"--junit", ""}}));
  const auto e = check_output_flags({{"--out", dir.file("r.json")},
                                     {"--junit", ""},
                                     {"--dead-letter", dir.file("no/d.jsonl")},
                                     {"--report", dir.path()}});
  REQUIRE(e);
  CHECK(*e == "--dead-letter: '" + dir.file("no/d.jsonl") + "': folder '" + dir.file("no") +
                  "' does not exist");
}

TEST_CASE("check_output_flags: '-' is stdout where the flag takes it, refused elsewhere") {
  CHECK_FALSE(check_output_flags({{"--out", "-", true}}));
  const auto e = check_output_flags({{"--out", "-", true}, {"--junit", "-"}});
  REQUIRE(e);
  CHECK(*e ==
        "--junit: '-' is not stdout here (only --out of run and exec takes it); name a file (./- "
        "for one called '-')");
  // A file called '-' is still one path away.
  TempDir dir;
  CHECK_FALSE(check_output_flags({{"--junit", dir.file("-")}}));
}
