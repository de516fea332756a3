// A small HTTP/1.1 server over POSIX sockets, optionally with TLS: one accept thread and one
// thread per connection. Connections are kept alive between requests; responses carry a
// Content-Length or are streamed with chunked encoding (watch streams).
#pragma once

#include <atomic>
#include <chrono>
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
  // accepting connection's thread; must be thread-safe and return non-null.
  std::function<std::shared_ptr<const TlsServerContext>()> currentTls;
  // When set, a connection whose next read or write waits longer than this is closed (a slow
  // or silent client cannot hold a thread).
  std::optional<std::chrono::milliseconds> ioTimeout;
  std::size_t maxBodyBytes = 16 * 1024 * 1024;
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
  // Stops accepting, shuts every open connection down (streams see ChunkSink::closing() and
  // failed writes), and joins all threads. Handlers still running are waited for, so a stream
  // must return soon after closing() turns true. Idempotent; not to be called from a handler.
  void stop();
  bool stopping() const { return stopping_.load(); }

 private:
  struct Connection;

  HttpServer(const HttpServerOptions& options, Handler handler);
  void acceptLoop();
  void serve(Connection& connection);
  void reapFinished();

  HttpServerOptions options_;
  Handler handler_;
  int listenFd_ = -1;
  int wakeRead_ = -1;  // a pipe that wakes the accept loop on stop()
  int wakeWrite_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptThread_;
  std::mutex mutex_;  // guards connections_
  std::list<std::unique_ptr<Connection>> connections_;
};

}  // namespace attune::http::server
