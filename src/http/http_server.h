// A small HTTP/1.1 server over POSIX sockets, optionally with TLS: one accept thread and one
// thread per connection. Connections are kept alive between requests; responses carry a
// Content-Length or are streamed with chunked encoding (watch streams). Every request is
// bounded in size and time, the number of connections is capped, and stop() drains requests in
// flight (docs/http-server.md says why the server is ours and what each limit guards).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/error.h"
#include "http/server_message.h"
#include "http/tls_server.h"

namespace attune::http::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // an IPv4 or IPv6 literal, or "localhost"
  int port = 0;                    // 0: any free port (see HttpServer::port())
  // When set, every connection is TLS; the context must outlive the server.
  const TlsServerContext* tls = nullptr;
  // When set (instead of `tls`), each new connection takes the context it returns, which it
  // keeps for its life: a rotated certificate serves the next connections. Called on the
  // accepting connection's thread; must be thread-safe. While it returns nullptr (no certificate
  // loaded yet) connections are closed at once: the port can be bound before the first one.
  std::function<std::shared_ptr<const TlsServerContext>()> currentTls;

  // Sizes: a head over its limit is answered 431, a body over its limit 413 (docs/http-server.md).
  RequestLimits limits;
  // Real-time deadlines; a connection that misses one is closed (a 408 is sent when a request
  // was under way). A slow client cannot hold a connection by trickling bytes: the deadlines
  // run from the request's first byte, not from the last read.
  //  - headerTimeout: from a new connection (TLS handshake included) or a request's first byte
  //    until its head is complete;
  //  - requestTimeout: from the request's first byte until its body is complete;
  //  - idleTimeout: a kept-alive connection waiting for its next request;
  //  - writeTimeout: a response write (or a stream's chunk) that makes no progress.
  std::chrono::milliseconds headerTimeout = std::chrono::seconds(10);
  std::chrono::milliseconds requestTimeout = std::chrono::seconds(30);
  std::chrono::milliseconds idleTimeout = std::chrono::seconds(60);
  std::chrono::milliseconds writeTimeout = std::chrono::seconds(30);
  // Open connections beyond this are answered 503 (with Retry-After) and closed at once, by the
  // accepting thread; each open connection has a thread.
  std::size_t maxConnections = 512;
  // stop() lets requests already being handled finish (their responses close the connection)
  // for up to this long before it shuts their sockets.
  std::chrono::milliseconds drainTimeout = std::chrono::seconds(5);
};

class HttpServer {
 public:
  // Called on a connection's thread, once per request, concurrently for different connections.
  // Must not throw.
  using Handler = std::function<HttpResponse(const HttpRequest&)>;

  // Binds and listens, then starts accepting. kUnavailable when the address cannot be bound
  // (the message names it), kInvalidArgument for a host that is not an address.
  static Result<std::unique_ptr<HttpServer>> start(const HttpServerOptions& options,
                                                   Handler handler);
  // stop().
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port.
  int port() const { return port_; }
  // Graceful stop: stops accepting, closes connections waiting for a request, lets requests
  // being handled finish within drainTimeout (streams see ChunkSink::closing() and should
  // return soon), then shuts what is left and joins all threads. Idempotent; not to be called
  // from a handler.
  void stop();
  bool stopping() const { return stopping_.load(); }

 private:
  struct Connection;

  HttpServer(const HttpServerOptions& options, Handler handler);
  void acceptLoop();
  void serve(Connection& connection);
  void reapFinished();
  void refuse(int fd);

  HttpServerOptions options_;
  Handler handler_;
  int listenFd_ = -1;
  int wakeRead_ = -1;  // a pipe that wakes the accept loop on stop()
  int wakeWrite_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptThread_;
  std::mutex mutex_;  // guards connections_; finished_ is notified when a connection ends
  std::condition_variable finished_;
  std::list<std::unique_ptr<Connection>> connections_;
};

}  // namespace attune::http::server
