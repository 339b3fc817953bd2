#include "support/event_stream.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace support {
EventStream::EventStream(int port, const std::string& path, const StreamOptions& options) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (options.receive_buffer > 0) {
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &options.receive_buffer, sizeof options.receive_buffer);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd_);
    fd_ = -1;
    return;
  }
  std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n";
  for (const auto& [name, value] : options.headers) request += name + ": " + value + "\r\n";
  request += "\r\n";
  if (send(fd_, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size()))
    return;
  read_head();
}

EventStream::~EventStream() {
  if (fd_ >= 0) close(fd_);
}

bool EventStream::fill(int timeout_ms) {
  if (fd_ < 0) return false;
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return false;
  char buf[16384];
  const auto n = recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) return false;
  raw_.append(buf, static_cast<std::size_t>(n));
  return true;
}

bool EventStream::read_head() {
  std::size_t end;
  while ((end = raw_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(30'000)) return false;
  }
  head_ = parse_head(raw_.substr(0, end));
  raw_.erase(0, end + 4);
  // A refusal is a whole body with its length, not a stream.
  if (head_.header("transfer-encoding") != "chunked") {
    const auto length =
        static_cast<std::size_t>(std::max<std::int64_t>(0, head_.header_int("content-length")));
    while (raw_.size() < length && fill(30'000)) {
    }
    head_.body = raw_.substr(0, length);
    ended_ = true;
  }
  return true;
}

bool EventStream::unchunk() {
  while (true) {
    const auto size_end = raw_.find("\r\n");
    if (size_end == std::string::npos) return true;
    const auto size = std::stoul(raw_.substr(0, size_end), nullptr, 16);
    if (size == 0) return false;
    if (raw_.size() < size_end + 2 + size + 2) return true;
    text_ += raw_.substr(size_end + 2, size);
    raw_.erase(0, size_end + 2 + size + 2);
  }
}

std::optional<nlohmann::json> EventStream::next(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    if (!ended_ && !unchunk()) ended_ = true;
    std::size_t end;
    while ((end = text_.find("\n\n")) != std::string::npos) {
      const std::string event = text_.substr(0, end);
      text_.erase(0, end + 2);
      for (std::size_t at = 0; at < event.size();) {
        auto line_end = event.find('\n', at);
        if (line_end == std::string::npos) line_end = event.size();
        if (event.compare(at, 6, "data: ") == 0) {
          return nlohmann::json::parse(event.substr(at + 6, line_end - at - 6));
        }
        at = line_end + 1;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (ended_ || !fill(static_cast<int>(std::max<std::int64_t>(left, 0)))) return std::nullopt;
  }
}

bool EventStream::closed_within(int timeout_ms) {
  if (fd_ < 0) return true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    if (recv(fd_, buf, sizeof buf, 0) <= 0) return true;
  }
}

}  // namespace support
