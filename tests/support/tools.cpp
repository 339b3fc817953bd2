#include "support/tools.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "support/process.hpp"

namespace support {

bool in_ci() {
  return std::getenv("CI") != nullptr;
}

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const auto candidate = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && have_executable(candidate.string()))
      return candidate.string();
  }
  return "";
}

bool have_executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

bool python_imports(const std::string& python, const std::string& modules) {
  return !python.empty() && have_executable(python) &&
         run_program(python, {"-c", "import " + modules}, 60'000).code == 0;
}

bool have_python_yaml() {
  return python_imports(find_program("python3"), "yaml");
}

}  // namespace support
