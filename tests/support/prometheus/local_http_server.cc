#include "support/prometheus/local_http_server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace attune::testing {
namespace {

constexpr int kPollMs = 20;  // how often the server thread checks whether to stop

// Waits until `fd` is readable or the stop flag is set; true if readable.
bool waitReadable(int fd, const std::atomic<bool>& stop) {
  while (!stop) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kPollMs) > 0) return true;
  }
  return false;
}

size_t contentLength(const std::string& head) {
  std::string lower = head;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  const auto at = lower.find("\r\ncontent-length:");
  return at == std::string::npos ? 0 : std::strtoul(lower.c_str() + at + 17, nullptr, 10);
}

void writeAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

LocalHttpServer::LocalHttpServer(Handler handler) : handler_(std::move(handler)) {
  listenFd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listenFd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      listen(listenFd_, 16) == 0 &&
      getsockname(listenFd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port_ = ntohs(addr.sin_port);
  }
  thread_ = std::thread([this] { serve(); });
}

LocalHttpServer::~LocalHttpServer() {
  stop_ = true;
  thread_.join();
  for (int fd : heldOpen_) close(fd);
  close(listenFd_);
}

std::vector<std::string> LocalHttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::string LocalHttpServer::readRequest(int fd) {
  std::string data;
  char buffer[4096];
  size_t headEnd = std::string::npos;
  while (headEnd == std::string::npos || data.size() < headEnd + 4 + contentLength(data)) {
    if (!waitReadable(fd, stop_)) return {};
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return {};
    data.append(buffer, static_cast<size_t>(n));
    headEnd = data.find("\r\n\r\n");
  }
  return data;
}

void LocalHttpServer::serve() {
  while (waitReadable(listenFd_, stop_)) {
    const int fd = accept(listenFd_, nullptr, nullptr);
    if (fd < 0) continue;
    const std::string request = readRequest(fd);
    if (request.empty()) {
      close(fd);
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
    const std::optional<Reply> reply = handler_(request);
    if (!reply) {
      heldOpen_.push_back(fd);
      continue;
    }
    std::string out = "HTTP/1.1 " + std::to_string(reply->status) + " Status\r\n" +
                      "Content-Type: application/json\r\nConnection: close\r\n" +
                      "Content-Length: " + std::to_string(reply->body.size()) + "\r\n";
    for (const auto& [name, value] : reply->headers) out += name + ": " + value + "\r\n";
    out += "\r\n" + reply->body;
    writeAll(fd, out);
    close(fd);
  }
}

}  // namespace attune::testing
