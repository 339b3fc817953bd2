#include "support/null_twin.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>

namespace support {

NullTwin::NullTwin(std::string path, Kind kind) : path_(std::move(path)) {
  if (kind == Kind::kDeviceIfRoot && geteuid() == 0) {
    device_ = mknod(path_.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
    made_ = device_;
    if (made_) return;
  }
  if (mkfifo(path_.c_str(), 0666) != 0) return;
  read_fd_ = open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  hold_fd_ = open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  made_ = read_fd_ >= 0 && hold_fd_ >= 0;
  if (made_) reader_ = std::thread([this] { drain(); });
}

NullTwin::~NullTwin() {
  stop_ = true;
  if (reader_.joinable()) reader_.join();
  if (read_fd_ >= 0) close(read_fd_);
  if (hold_fd_ >= 0) close(hold_fd_);
  unlink(path_.c_str());
}

void NullTwin::drain() {
  while (!stop_) {
    pollfd p{read_fd_, POLLIN, 0};
    if (poll(&p, 1, 20) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(read_fd_, buf, sizeof buf);
    if (n <= 0) continue;
    const std::lock_guard lock(mutex_);
    received_.append(buf, static_cast<std::size_t>(n));
  }
}

bool NullTwin::intact() const {
  struct stat st {};
  if (lstat(path_.c_str(), &st) != 0) return false;
  if (!device_) return S_ISFIFO(st.st_mode);
  return S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

std::string NullTwin::received(std::size_t at_least) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    {
      const std::lock_guard lock(mutex_);
      if (received_.size() >= at_least || std::chrono::steady_clock::now() > deadline)
        return received_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace support
