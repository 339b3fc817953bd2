#pragma once

// Loopback ports for the tests: every server a test starts listens on 127.0.0.1 only.
namespace support {

// A port nothing listens on (bound, then released): another process may take it before the
// test binds it, so a start on it must be able to try another.
int unused_port();

// Whether 127.0.0.1:port completes a TCP handshake.
bool accepts_connections(int port);

// A loopback port that takes connections (the kernel completes the handshake into its
// backlog) and never reads or answers them: a server that hangs.
class SilentListener {
 public:
  SilentListener();
  ~SilentListener();
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  int port() const { return port_; }  // 0 if it could not listen

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace support
