// LoopbackServer: the one hand-made test server. A listening TCP socket on 127.0.0.1 with an
// ephemeral port and a thread that accepts one connection at a time and hands it to a handler,
// optionally over TLS (OpenSSL, with a certificate chain, its key and, to require client
// certificates, a CA). For tests that need a server answering as no real one does on demand, or
// that check what a client sent; LocalHttpServer and the http tests' TlsServer are built on it.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace attune::testing {

// A TCP socket bound to 127.0.0.1; fd -1 when that failed, port 0 when the bind failed.
struct LoopbackSocket {
  int fd = -1;
  int port = 0;
};
// Binds a socket to `port` (0: one the kernel picks) and listens on it when `listening`; the
// caller closes fd.
LoopbackSocket bindLoopbackSocket(bool listening, int port = 0);

// The server's TLS configuration.
struct LoopbackTls {
  std::filesystem::path cert;      // PEM certificate chain
  std::filesystem::path key;       // PEM private key
  std::filesystem::path clientCa;  // empty: no client certificate is asked for
};

// One accepted connection (for TLS, after a completed handshake). Used on the server thread.
class LoopbackConnection {
 public:
  LoopbackConnection(int fd, void* ssl, const std::atomic<bool>& stop);
  ~LoopbackConnection();
  LoopbackConnection(const LoopbackConnection&) = delete;
  LoopbackConnection& operator=(const LoopbackConnection&) = delete;

  // The bytes that arrive next, waiting for them; "" when the peer closed or the server stops.
  std::string receive();
  // One HTTP/1.1 request: its head and a Content-Length body; "" when the peer closed first or
  // the server stops.
  std::string receiveHttpRequest();
  // Sends all of `data` (stops early if the peer has gone).
  void send(std::string_view data);

 private:
  int fd_;
  void* ssl_;  // SSL*, or nullptr for plain TCP
  const std::atomic<bool>& stop_;
};

class LoopbackServer {
 public:
  // What becomes of a connection once the handler returns.
  enum class After { kClose, kHoldOpen };  // kHoldOpen: left open until the server stops
  using Handler = std::function<After(LoopbackConnection&)>;

  explicit LoopbackServer(Handler handler, std::optional<LoopbackTls> tls = std::nullopt);
  // Stops accepting, joins the thread and closes every connection still open.
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  // Listening (with the TLS certificate and key loaded, when asked for).
  bool ok() const { return port_ != 0 && (!tlsAsked_ || ctx_ != nullptr); }
  int port() const { return port_; }

 private:
  void serve();

  Handler handler_;
  bool tlsAsked_ = false;
  void* ctx_ = nullptr;  // SSL_CTX*
  int listenFd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::vector<std::unique_ptr<LoopbackConnection>> heldOpen_;  // server thread only
  std::thread thread_;
};

}  // namespace attune::testing
