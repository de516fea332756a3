#include "support/loopback_server.h"

#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace attune::testing {
namespace {

constexpr int kPollMs = 20;  // how often a waiting server thread checks whether to stop

// Waits until `fd` is readable or the stop flag is set; true if readable.
bool waitReadable(int fd, const std::atomic<bool>& stop) {
  while (!stop) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kPollMs) > 0) return true;
  }
  return false;
}

std::size_t contentLength(const std::string& head) {
  std::string lower = head;
  std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto at = lower.find("\r\ncontent-length:");
  return at == std::string::npos ? 0 : std::strtoul(lower.c_str() + at + 17, nullptr, 10);
}

// A server context for `tls`, or nullptr when its files do not load.
SSL_CTX* serverContext(const LoopbackTls& tls) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return nullptr;
  if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, tls.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    SSL_CTX_free(ctx);
    return nullptr;
  }
  if (!tls.clientCa.empty()) {
    SSL_CTX_load_verify_locations(ctx, tls.clientCa.c_str(), nullptr);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return ctx;
}

}  // namespace

LoopbackSocket bindLoopbackSocket(bool listening, int port) {
  LoopbackSocket out;
  out.fd = socket(AF_INET, SOCK_STREAM, 0);
  if (out.fd < 0) return out;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t len = sizeof addr;
  if (bind(out.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      (!listening || listen(out.fd, 16) == 0) &&
      getsockname(out.fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    out.port = ntohs(addr.sin_port);
  }
  return out;
}

// ---- LoopbackConnection

LoopbackConnection::LoopbackConnection(int fd, void* ssl, const std::atomic<bool>& stop)
    : fd_(fd), ssl_(ssl), stop_(stop) {}

LoopbackConnection::~LoopbackConnection() {
  if (ssl_ != nullptr) {
    SSL_shutdown(static_cast<SSL*>(ssl_));
    SSL_free(static_cast<SSL*>(ssl_));
  }
  close(fd_);
}

std::string LoopbackConnection::receive() {
  char buffer[4096];
  if (ssl_ != nullptr) {
    SSL* ssl = static_cast<SSL*>(ssl_);
    if (SSL_pending(ssl) == 0 && !waitReadable(fd_, stop_)) return {};
    const int n = SSL_read(ssl, buffer, sizeof buffer);
    return n <= 0 ? std::string() : std::string(buffer, static_cast<std::size_t>(n));
  }
  if (!waitReadable(fd_, stop_)) return {};
  const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
  return n <= 0 ? std::string() : std::string(buffer, static_cast<std::size_t>(n));
}

std::string LoopbackConnection::receiveHttpRequest() {
  std::string data;
  std::size_t headEnd = std::string::npos;
  while (headEnd == std::string::npos || data.size() < headEnd + 4 + contentLength(data)) {
    const std::string more = receive();
    if (more.empty()) return {};
    data += more;
    headEnd = data.find("\r\n\r\n");
  }
  return data;
}

void LoopbackConnection::send(std::string_view data) {
  while (!data.empty()) {
    const long n = ssl_ != nullptr ? SSL_write(static_cast<SSL*>(ssl_), data.data(),
                                               static_cast<int>(data.size()))
                                   : ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// ---- LoopbackServer

LoopbackServer::LoopbackServer(Handler handler, std::optional<LoopbackTls> tls)
    : handler_(std::move(handler)), tlsAsked_(tls.has_value()) {
  if (tls) {
    ctx_ = serverContext(*tls);
    if (ctx_ == nullptr) return;
  }
  const LoopbackSocket listening = bindLoopbackSocket(true);
  listenFd_ = listening.fd;
  port_ = listening.port;
  thread_ = std::thread([this] { serve(); });
}

LoopbackServer::~LoopbackServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  heldOpen_.clear();
  if (listenFd_ >= 0) close(listenFd_);
  if (ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ctx_));
}

void LoopbackServer::serve() {
  while (waitReadable(listenFd_, stop_)) {
    const int fd = accept(listenFd_, nullptr, nullptr);
    if (fd < 0) continue;
    SSL* ssl = nullptr;
    if (ctx_ != nullptr) {
      ssl = SSL_new(static_cast<SSL_CTX*>(ctx_));
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) != 1) {
        SSL_free(ssl);
        close(fd);
        continue;
      }
    }
    auto connection = std::make_unique<LoopbackConnection>(fd, ssl, stop_);
    if (handler_(*connection) == After::kHoldOpen) heldOpen_.push_back(std::move(connection));
  }
}

}  // namespace attune::testing
