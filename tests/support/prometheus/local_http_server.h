// A tiny HTTP/1.1 server on 127.0.0.1 (plain POSIX sockets, one thread, one connection at a
// time) for failure cases no real Prometheus produces on demand: 5xx answers, no answer at all,
// and inspecting what the client sent.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

  int port() const { return port_; }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Raw requests received so far.
  std::vector<std::string> requests() const;

 private:
  void serve();
  // Reads one request from `fd`; empty if the peer closed first or the server is stopping.
  std::string readRequest(int fd);

  Handler handler_;
  int listenFd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::vector<int> heldOpen_;
  std::thread thread_;
};

}  // namespace attune::testing
