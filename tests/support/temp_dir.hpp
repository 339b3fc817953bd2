#pragma once

#include <string>

namespace support {

// A fresh private directory under the system's temporary directory, removed with everything in
// it when the object goes. Throws when it cannot be made: a test must not run in a directory
// it does not own.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes a file in the directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

}  // namespace support
