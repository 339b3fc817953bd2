#include "support/scripted_server.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "support/ports.hpp"

namespace support {

ScriptedServer::ScriptedServer(std::vector<Answer> script) : script_(std::move(script)) {
  listen_fd_ = listen_loopback(port_);
  thread_ = std::thread([this] { serve(); });
}

ScriptedServer::~ScriptedServer() {
  stop_ = true;
  thread_.join();
  for (auto& [fd, _] : buffers_) close(fd);
  close(listen_fd_);
}

std::vector<ScriptedServer::Request> ScriptedServer::requests() {
  std::lock_guard lock(mu_);
  return requests_;
}

void ScriptedServer::serve() {
  while (!stop_) {
    std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
    for (auto& [fd, _] : buffers_) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 20) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) buffers_[fd] = {};
      connection_of_[fd] = next_connection_++;
    }
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents) read_from(fds[i].fd);
    }
  }
}

void ScriptedServer::read_from(int fd) {
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n <= 0) {
    close(fd);
    buffers_.erase(fd);
    return;
  }
  std::string& b = buffers_[fd];
  b.append(buf, static_cast<std::size_t>(n));
  while (true) {
    const auto end = b.find("\r\n\r\n");
    if (end == std::string::npos) return;
    std::size_t length = end + 4;
    const auto cl = b.find("Content-Length: ");
    if (cl != std::string::npos && cl < end) length += std::stoul(b.substr(cl + 16));
    if (b.size() < length) return;
    const Answer& a = script_[std::min(answered_, script_.size() - 1)];
    ++answered_;
    {
      std::lock_guard lock(mu_);
      requests_.push_back({connection_of_[fd], b.substr(0, length)});
    }
    b.erase(0, length);
    // A peer that closes on a bad answer before taking it all is an outcome, not a SIGPIPE.
    if (!a.bytes.empty()) [[maybe_unused]]
      auto w = send(fd, a.bytes.data(), a.bytes.size(), MSG_NOSIGNAL);
    if (a.close) {
      close(fd);
      buffers_.erase(fd);
      return;
    }
  }
}

}  // namespace support
