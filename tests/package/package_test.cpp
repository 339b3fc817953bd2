// The install story of a user's pipeline: make package's .deb, installed by the Dockerfile's
// runtime stage into a bare Debian 12, runs. check_package.sh does the work; it needs root
// (debootstrap, chroot) and Debian's package registry, so outside CI a user may skip it.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "generated/version.hpp"
#include "support/files.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "support/tools.hpp"

using namespace support;

namespace {

bool may_not_run() {
  return skip_unless_ci(geteuid() != 0 || !have_executable("/usr/sbin/debootstrap"));
}

}  // namespace

TEST_CASE(
    "slow: the .deb installs into a bare Debian 12 as the Dockerfile does, and both "
    "binaries run" *
    doctest::skip(may_not_run())) {
  TempDir dir;
  const std::string log = dir.file("check.log");
  const std::string command = source_path("tests/package/check_package.sh") + " " + source_dir() +
                              " " + bin_path("..") + " " + dir.path() + " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string out = read_file(log);
  INFO(out);
  REQUIRE(status == 0);
  const std::string version = stampede::kVersion;
  CHECK(out.find("\nloadgen " + version + "\n") != std::string::npos);
  CHECK(out.find("\nfakeprovider " + version + "\n") != std::string::npos);
  // The package asks for runtime libraries only, never a -dev package or a test tool.
  const auto depends = out.substr(out.find("Depends:"));
  CHECK(depends.find("-dev") == std::string::npos);
  CHECK(depends.find("libcurl4") != std::string::npos);
}
