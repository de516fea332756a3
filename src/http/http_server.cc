#include "http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace attune::http::server {

struct HttpServer::Connection {
  int fd = -1;
  SSL* ssl = nullptr;
  std::thread thread;
  std::atomic<bool> done{false};

  ~Connection() {
    if (ssl != nullptr) SSL_free(ssl);
    if (fd >= 0) ::close(fd);
  }

  // Up to `size` bytes; 0 at end of stream or on error.
  std::size_t readSome(char* buf, std::size_t size) {
    if (ssl != nullptr) {
      const int n = SSL_read(ssl, buf, static_cast<int>(size));
      return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    while (true) {
      const ssize_t n = ::recv(fd, buf, size, 0);
      if (n < 0 && errno == EINTR) continue;
      return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
  }

  bool writeAll(std::string_view data) {
    while (!data.empty()) {
      if (ssl != nullptr) {
        const int n = SSL_write(ssl, data.data(), static_cast<int>(data.size()));
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
        continue;
      }
      const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
};

namespace {

class ConnectionSink final : public ChunkSink {
 public:
  using Writer = std::function<bool(std::string_view)>;
  ConnectionSink(Writer write, const std::atomic<bool>& stopping)
      : write_(std::move(write)), stopping_(stopping) {}

  bool write(std::string_view data) override {
    if (stopping_.load() || failed_) return false;
    if (data.empty()) return true;
    failed_ = !write_(encodeChunk(data));
    return !failed_;
  }
  bool closing() const override { return stopping_.load(); }
  bool failed() const { return failed_; }

 private:
  Writer write_;
  const std::atomic<bool>& stopping_;
  bool failed_ = false;
};

Error unavailable(std::string message) {
  message += ": ";
  message += std::strerror(errno);
  return Error{ErrorCode::kUnavailable, std::move(message), {}};
}

void setIoTimeout(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::start(const HttpServerOptions& options,
                                                      Handler handler) {
  // A peer closing its end must fail a write, not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  sockaddr_storage addr{};
  socklen_t addrLen = 0;
  int family = AF_INET;
  if (auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
      inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(options.port));
    addrLen = sizeof(sockaddr_in);
  } else if (auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
             inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(options.port));
    addrLen = sizeof(sockaddr_in6);
    family = AF_INET6;
  } else {
    return fail(ErrorCode::kInvalidArgument,
                "listen address \"" + options.host + "\" is not an IP address", "listen");
  }
  std::unique_ptr<HttpServer> server(new HttpServer(options, std::move(handler)));
  const std::string where = options.host + ":" + std::to_string(options.port);
  server->listenFd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (server->listenFd_ < 0) return std::unexpected(unavailable("socket"));
  const int one = 1;
  ::setsockopt(server->listenFd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(server->listenFd_, reinterpret_cast<sockaddr*>(&addr), addrLen) != 0) {
    return std::unexpected(unavailable("cannot listen on " + where));
  }
  if (::listen(server->listenFd_, 128) != 0) {
    return std::unexpected(unavailable("cannot listen on " + where));
  }
  sockaddr_storage bound{};
  socklen_t boundLen = sizeof bound;
  ::getsockname(server->listenFd_, reinterpret_cast<sockaddr*>(&bound), &boundLen);
  server->port_ = bound.ss_family == AF_INET6
                      ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                      : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) return std::unexpected(unavailable("pipe"));
  server->wakeRead_ = pipeFds[0];
  server->wakeWrite_ = pipeFds[1];
  server->acceptThread_ = std::thread([s = server.get()] { s->acceptLoop(); });
  return server;
}

HttpServer::HttpServer(const HttpServerOptions& options, Handler handler)
    : options_(options), handler_(std::move(handler)) {}

HttpServer::~HttpServer() {
  stop();
  if (listenFd_ >= 0) ::close(listenFd_);
  if (wakeRead_ >= 0) ::close(wakeRead_);
  if (wakeWrite_ >= 0) ::close(wakeWrite_);
}

void HttpServer::stop() {
  if (stopping_.exchange(true)) {
    if (acceptThread_.joinable()) acceptThread_.join();
    return;
  }
  if (wakeWrite_ >= 0) {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(wakeWrite_, &byte, 1);
  }
  if (acceptThread_.joinable()) acceptThread_.join();
  std::list<std::unique_ptr<Connection>> connections;
  {
    std::lock_guard lock(mutex_);
    for (auto& c : connections_) ::shutdown(c->fd, SHUT_RDWR);
    connections.swap(connections_);
  }
  for (auto& c : connections) {
    if (c->thread.joinable()) c->thread.join();
  }
}

void HttpServer::reapFinished() {
  std::list<std::unique_ptr<Connection>> finished;
  {
    std::lock_guard lock(mutex_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      if ((*it)->done.load()) {
        finished.push_back(std::move(*it));
        it = connections_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : finished) {
    if (c->thread.joinable()) c->thread.join();
  }
}

void HttpServer::acceptLoop() {
  while (!stopping_.load()) {
    pollfd fds[2] = {{listenFd_, POLLIN, 0}, {wakeRead_, POLLIN, 0}};
    const int ready = ::poll(fds, 2, -1);
    if (ready < 0 && errno == EINTR) continue;
    if (stopping_.load() || (fds[1].revents & POLLIN) != 0) break;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (options_.ioTimeout) setIoTimeout(fd, *options_.ioTimeout);
    reapFinished();
    auto connection = std::make_unique<Connection>();
    connection->fd = fd;
    Connection* c = connection.get();
    std::lock_guard lock(mutex_);
    if (stopping_.load()) break;  // `connection` closes the socket
    connections_.push_back(std::move(connection));
    c->thread = std::thread([this, c] {
      serve(*c);
      c->done.store(true);
    });
  }
}

void HttpServer::serve(Connection& c) {
  std::shared_ptr<const TlsServerContext> current;
  const TlsServerContext* tls = options_.tls;
  if (options_.currentTls) {
    current = options_.currentTls();
    tls = current.get();
  }
  if (tls != nullptr) {
    c.ssl = SSL_new(tls->context());
    if (c.ssl == nullptr || SSL_set_fd(c.ssl, c.fd) != 1 || SSL_accept(c.ssl) != 1) {
      ERR_clear_error();
      return;
    }
  }
  std::string buffer;
  char chunk[16 * 1024];
  while (!stopping_.load()) {
    ParsedRequest parsed = parseRequest(buffer, options_.maxBodyBytes);
    if (parsed.outcome == ParseOutcome::kIncomplete) {
      const std::size_t n = c.readSome(chunk, sizeof chunk);
      if (n == 0) break;
      buffer.append(chunk, n);
      continue;
    }
    if (parsed.outcome == ParseOutcome::kInvalid) {
      HttpResponse response;
      response.status = parsed.errorStatus;
      response.contentType = "text/plain";
      response.body = parsed.error + "\n";
      c.writeAll(formatResponseHead(response, false) + response.body);
      break;
    }
    buffer.erase(0, parsed.consumed);
    HttpResponse response = handler_(parsed.request);
    if (response.abort) break;
    const bool keepAlive = parsed.request.keepAlive() && !response.close && !stopping_.load();
    if (!response.stream) {
      std::string out = formatResponseHead(response, keepAlive);
      if (parsed.request.method != "HEAD") out += response.body;
      if (!c.writeAll(out) || !keepAlive) break;
      continue;
    }
    if (!c.writeAll(formatResponseHead(response, keepAlive))) break;
    ConnectionSink sink([&c](std::string_view data) { return c.writeAll(data); }, stopping_);
    response.stream(sink);
    if (sink.failed() || !c.writeAll(encodeChunk({})) || !keepAlive) break;
  }
  if (c.ssl != nullptr) SSL_shutdown(c.ssl);
  ::shutdown(c.fd, SHUT_RDWR);
}

}  // namespace attune::http::server
