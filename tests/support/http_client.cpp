#include "support/http_client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <sstream>

namespace support {
namespace {

// A safety net against a hung server, never a pass/fail threshold.
constexpr int kSocketTimeoutS = 30;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::int64_t Response::header_int(const std::string& name) const {
  const auto v = header(name);
  return v.empty() ? -1 : std::stoll(v);
}

Connection::Connection(int port) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{kSocketTimeoutS, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const int on = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd_);
    fd_ = -1;
  }
}

Connection::~Connection() {
  if (fd_ >= 0) close(fd_);
}

void Connection::send_raw(const std::string& bytes) {
  std::size_t sent = 0;
  while (fd_ >= 0 && sent < bytes.size()) {
    const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

void Connection::shutdown_write() {
  if (fd_ >= 0) shutdown(fd_, SHUT_WR);
}

bool Connection::fill() {
  char buf[16384];
  const auto n = recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) return false;
  buffer_.append(buf, static_cast<std::size_t>(n));
  return true;
}

bool Connection::closed_within(int timeout_ms) {
  if (fd_ < 0) return true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    if (!fill()) return true;
  }
}

bool Connection::wait_for(const std::string& text, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (buffer_.find(text) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (fd_ < 0 || left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) > 0 && !fill()) return false;
  }
  return true;
}

Response Connection::request(const std::string& method, const std::string& path,
                             const Headers& headers, const std::string& body) {
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [name, value] : headers) req += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST") {
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  req += "\r\n" + body;
  send_raw(req);
  return read_response();
}

Response parse_head(const std::string& text) {
  Response r;
  std::istringstream head(text);
  std::string line;
  std::getline(head, line);
  std::istringstream status_line(line);
  std::string version;
  status_line >> version >> r.status;
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    r.headers[lower(line.substr(0, colon))] = value;
  }
  return r;
}

Response Connection::read_response() {
  Response r;
  if (fd_ < 0) return r;
  std::size_t end;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill()) return r;
  }
  r = parse_head(buffer_.substr(0, end));
  buffer_.erase(0, end + 4);
  if (r.has("content-length")) {
    const auto length = static_cast<std::size_t>(std::stoll(r.header("content-length")));
    while (buffer_.size() < length && fill()) {
    }
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, std::min(length, buffer_.size()));
  } else {
    while (fill()) {
    }
    r.body = std::move(buffer_);
    buffer_.clear();
  }
  return r;
}

Response http(int port, const std::string& method, const std::string& path, const Headers& headers,
              const std::string& body) {
  Connection c(port);
  return c.request(method, path, headers, body);
}

}  // namespace support
