// A tiny HTTP/1.1 server on 127.0.0.1 (a LoopbackServer: one thread, one connection at a time)
// for failure cases no real Prometheus produces on demand: 5xx answers, no answer at all, and
// inspecting what the client sent.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/loopback_server.h"

namespace attune::testing {

class LocalHttpServer {
 public:
  struct Reply {
    int status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
  };
  // Given the raw request (head and body), the reply to send, or nullopt to never answer (the
  // connection is held open until the server stops).
  using Handler = std::function<std::optional<Reply>(const std::string& request)>;

  explicit LocalHttpServer(Handler handler);
  ~LocalHttpServer();
  LocalHttpServer(const LocalHttpServer&) = delete;
  LocalHttpServer& operator=(const LocalHttpServer&) = delete;

  int port() const { return server_.port(); }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port()); }
  // Raw requests received so far.
  std::vector<std::string> requests() const;

 private:
  // Answers one connection's request.
  LoopbackServer::After answer(LoopbackConnection& connection);

  Handler handler_;
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  LoopbackServer server_;  // last: its thread stops before the members above go
};

}  // namespace attune::testing
