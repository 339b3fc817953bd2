#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace support {

// A stand-in for /dev/null that a test may point outputs at: never the real one, whose
// replacement by a file would break every later '> /dev/null' on the machine. As root it is a
// private character device (1,3), /dev/null's own numbers, made in the test's directory; as
// another user, who may not make devices, a FIFO that a thread drains.
class NullTwin {
 public:
  enum class Kind { kDeviceIfRoot, kFifo };
  explicit NullTwin(std::string path, Kind kind = Kind::kDeviceIfRoot);
  ~NullTwin();
  NullTwin(const NullTwin&) = delete;
  NullTwin& operator=(const NullTwin&) = delete;

  bool made() const { return made_; }
  bool is_device() const { return device_; }
  const std::string& path() const { return path_; }
  // Whether the node is still the device (or FIFO) it was made as, not a file put there.
  bool intact() const;
  // FIFO: what was written to it, once at least that many bytes came (or two seconds went);
  // a device keeps nothing.
  std::string received(std::size_t at_least = 0) const;

 private:
  void drain();

  std::string path_;
  bool made_ = false;
  bool device_ = false;
  int read_fd_ = -1;
  int hold_fd_ = -1;  // a writer of its own, so the reader never sees the end between writers
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::string received_;
  std::thread reader_;
};

}  // namespace support
