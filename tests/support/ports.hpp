#pragma once

#include <string>

// Loopback ports for the tests: every server a test starts listens on 127.0.0.1 only.
namespace support {

// A port nothing listens on (bound, then released): another process may take it before the
// test binds it, so a start on it must be able to try another.
int unused_port();

// A loopback port held bound and never listened on: a connection to it is refused, and no
// server can be given it while this lives (unused_port() lets the port go, and a parallel
// test's server may then get it, making a dead URL answer).
class RefusedPort {
 public:
  RefusedPort();                   // a free port
  explicit RefusedPort(int port);  // this one, say a server's that just stopped
  ~RefusedPort();
  RefusedPort(const RefusedPort&) = delete;
  RefusedPort& operator=(const RefusedPort&) = delete;
  int port() const { return port_; }  // 0 if it could not be bound
  std::string url(const std::string& path = "/") const;

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A socket listening on an ephemeral 127.0.0.1 port, its port in `port`: the listener a test's
// own raw-socket server accepts on.
int listen_loopback(int& port, int backlog = 64);

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
