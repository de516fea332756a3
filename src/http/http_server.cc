#include "http/http_server.h"

#include "core/clock_monotonic.h"

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

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>

namespace attune::http::server {

namespace {

void setTimeout(int fd, int option, std::chrono::milliseconds timeout) {
  // A zero timeval means "no timeout" to the kernel: wait at least a millisecond.
  const auto ms = std::max<std::int64_t>(timeout.count(), 1);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

}  // namespace

struct HttpServer::Connection {
  int fd = -1;
  SSL* ssl = nullptr;
  std::thread thread;
  std::atomic<bool> done{false};
  std::mutex state;   // guards busy against stop()
  bool busy = false;  // a request is being handled or answered
  bool timedOut = false;

  ~Connection() {
    if (ssl != nullptr) SSL_free(ssl);
    if (fd >= 0) ::close(fd);
  }

  // Up to `size` bytes, waiting until `deadline` at most; 0 at end of stream, on error or at the
  // deadline (then timedOut is set).
  std::size_t readSome(char* buf, std::size_t size, MonotonicTime deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - monotonicNow());
    if (left.count() <= 0 && (ssl == nullptr || SSL_pending(ssl) == 0)) {
      timedOut = true;
      return 0;
    }
    setTimeout(fd, SO_RCVTIMEO, left);
    if (ssl != nullptr) {
      const int n = SSL_read(ssl, buf, static_cast<int>(size));
      if (n > 0) return static_cast<std::size_t>(n);
      timedOut = errno == EAGAIN || errno == EWOULDBLOCK;
      ERR_clear_error();
      return 0;
    }
    while (true) {
      const ssize_t n = ::recv(fd, buf, size, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) timedOut = errno == EAGAIN || errno == EWOULDBLOCK;
      return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
  }

  bool writeAll(std::string_view data) {
    while (!data.empty()) {
      if (ssl != nullptr) {
        const int n = SSL_write(ssl, data.data(), static_cast<int>(data.size()));
        if (n <= 0) {
          ERR_clear_error();
          return false;
        }
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

  // Sends an error response and closes gracefully: the write side first, then what the client
  // still sends is read and dropped for a moment (bounded), so that closing with unread bytes
  // does not reset the connection before the client has read the response.
  void refuseAndClose(int status, std::string_view why) {
    HttpResponse response = textResponse(status, std::string(why) + "\n");
    writeAll(formatResponseHead(response, false) + response.body);
    if (ssl != nullptr) SSL_shutdown(ssl);
    ::shutdown(fd, SHUT_WR);
    setTimeout(fd, SO_RCVTIMEO, std::chrono::milliseconds(200));
    char sink[16 * 1024];
    for (int i = 0; i < 16 && ::recv(fd, sink, sizeof sink, 0) > 0; ++i) {
    }
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
    std::unique_lock lock(mutex_);
    // Connections waiting for a request close now; those handling one finish it first.
    for (auto& c : connections_) {
      std::lock_guard state(c->state);
      if (!c->busy) ::shutdown(c->fd, SHUT_RDWR);
    }
    const auto allDone = [this] {
      return std::all_of(connections_.begin(), connections_.end(),
                         [](const auto& c) { return c->done.load(); });
    };
    finished_.wait_for(lock, options_.drainTimeout, allDone);
    for (auto& c : connections_) {
      if (!c->done.load()) ::shutdown(c->fd, SHUT_RDWR);
    }
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

void HttpServer::refuse(int fd) {
  // Plain text only: a TLS client would not understand it, so a TLS listener just closes.
  if (options_.tls == nullptr && !options_.currentTls) {
    HttpResponse busy = textResponse(503, "too many connections\n");
    busy.headers.emplace_back("Retry-After", "1");
    const std::string out = formatResponseHead(busy, false) + busy.body;
    [[maybe_unused]] ssize_t n = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(fd, SHUT_WR);
  }
  ::close(fd);
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
    reapFinished();
    std::lock_guard lock(mutex_);
    if (stopping_.load()) {
      ::close(fd);
      break;
    }
    if (connections_.size() >= options_.maxConnections) {
      refuse(fd);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto connection = std::make_unique<Connection>();
    connection->fd = fd;
    Connection* c = connection.get();
    connections_.push_back(std::move(connection));
    c->thread = std::thread([this, c] {
      serve(*c);
      {
        std::lock_guard done(mutex_);
        c->done.store(true);
      }
      finished_.notify_all();
    });
  }
}

void HttpServer::serve(Connection& c) {
  setTimeout(c.fd, SO_SNDTIMEO, options_.writeTimeout);
  MonotonicTime waitingSince = monotonicNow();  // for the next request's first byte
  std::shared_ptr<const TlsServerContext> current;
  const TlsServerContext* tls = options_.tls;
  if (options_.currentTls) {
    current = options_.currentTls();
    if (current == nullptr) return;  // no certificate yet: closed, never served in plain text
    tls = current.get();
  }
  if (tls != nullptr) {
    setTimeout(c.fd, SO_RCVTIMEO, options_.headerTimeout);
    c.ssl = SSL_new(tls->context());
    if (c.ssl == nullptr || SSL_set_fd(c.ssl, c.fd) != 1 || SSL_accept(c.ssl) != 1) {
      ERR_clear_error();
      return;
    }
  }
  RequestParser parser(options_.limits);
  std::string buffer;
  char chunk[16 * 1024];
  bool first = true;             // the connection's first request
  MonotonicTime requestStart{};  // the current request's first byte
  while (!stopping_.load()) {
    ParsedRequest parsed = parser.next(buffer);
    if (parsed.outcome == ParseOutcome::kIncomplete) {
      MonotonicTime deadline;
      if (buffer.empty()) {
        deadline = waitingSince + (first ? options_.headerTimeout : options_.idleTimeout);
      } else {
        deadline = requestStart +
                   (parser.headComplete() ? options_.requestTimeout : options_.headerTimeout);
      }
      const std::size_t n = c.readSome(chunk, sizeof chunk, deadline);
      if (n == 0) {
        if (c.timedOut && !buffer.empty()) c.refuseAndClose(408, "request timed out");
        break;
      }
      if (buffer.empty()) requestStart = monotonicNow();
      buffer.append(chunk, n);
      continue;
    }
    if (parsed.outcome == ParseOutcome::kInvalid) {
      c.refuseAndClose(parsed.errorStatus, parsed.error);
      break;
    }
    parsed.request.receiveTime = monotonicNow() - requestStart;
    buffer.erase(0, parsed.consumed);
    if (!buffer.empty()) requestStart = monotonicNow();  // a pipelined request
    first = false;
    {
      std::lock_guard state(c.state);
      if (stopping_.load()) break;
      c.busy = true;
    }
    HttpResponse response = handler_(parsed.request);
    if (response.abort) break;
    const bool keepAlive = parsed.request.keepAlive() && !response.close && !stopping_.load();
    bool ok = true;
    if (!response.stream) {
      std::string out = formatResponseHead(response, keepAlive);
      if (parsed.request.method != "HEAD") out += response.body;
      ok = c.writeAll(out);
    } else if ((ok = c.writeAll(formatResponseHead(response, keepAlive)))) {
      ConnectionSink sink([&c](std::string_view data) { return c.writeAll(data); }, stopping_);
      response.stream(sink);
      ok = !sink.failed() && c.writeAll(encodeChunk({}));
    }
    {
      std::lock_guard state(c.state);
      c.busy = false;
      if (!ok || !keepAlive || stopping_.load()) break;
    }
    waitingSince = monotonicNow();
  }
  if (c.ssl != nullptr) SSL_shutdown(c.ssl);
  ::shutdown(c.fd, SHUT_RDWR);
}

}  // namespace attune::http::server
