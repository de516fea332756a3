// HttpServer over a real loopback socket: keep-alive across requests, chunked streaming, bad
// requests answered and closed, stop() ending a stream that is still open, and the limits a
// hostile client meets: oversized heads and bodies, slow clients, idle keep-alive connections, a
// connection flood, and a graceful stop that finishes the request in flight.
#include "http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

namespace attune::http::server {
namespace {

// A blocking client connection to 127.0.0.1:port.
class Client {
 public:
  explicit Client(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    // No read in these tests may hang: the server's deadlines are far shorter than this.
    timeval tv{.tv_sec = 20, .tv_usec = 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Client() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& data) {
    ASSERT_EQ(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(data.size()));
  }
  // Sends without asserting; false once the server has closed the connection.
  bool trySend(std::string_view data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  }
  // Whether bytes (or the end of the stream) arrive within `ms` milliseconds.
  bool readable(int ms) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, ms) == 1;
  }
  // Reads until `marker` has been received (or the peer closes); returns everything read.
  std::string readUntil(const std::string& marker) {
    char buf[4096];
    while (buffer_.find(marker) == std::string::npos) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
    const std::size_t at = buffer_.find(marker);
    const std::size_t end = at == std::string::npos ? buffer_.size() : at + marker.size();
    std::string out = buffer_.substr(0, end);
    buffer_.erase(0, end);
    return out;
  }
  // True when the peer has closed the connection.
  bool closedByPeer() {
    char c;
    return ::recv(fd_, &c, 1, 0) == 0;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

HttpResponse echo(const HttpRequest& request) {
  HttpResponse r;
  if (request.path == "/stream") {
    r.stream = [](ChunkSink& sink) {
      sink.write("one\n");
      sink.write("two\n");
    };
    return r;
  }
  r.contentType = "text/plain";
  r.body = request.method + " " + request.path + " " + request.body;
  return r;
}

TEST(HttpServer, KeepsTheConnectionAliveAcrossRequests) {
  auto server = HttpServer::start(HttpServerOptions{}, echo);
  ASSERT_TRUE(server) << server.error().toString();
  Client client((*server)->port());
  ASSERT_TRUE(client.connected());
  client.send("POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyzGET /b HTTP/1.1\r\n\r\n");
  EXPECT_NE(client.readUntil("POST /a xyz").find("HTTP/1.1 200 OK"), std::string::npos);
  EXPECT_NE(client.readUntil("GET /b ").find("Content-Length: 7"), std::string::npos);
  client.send("GET /c HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_NE(client.readUntil("GET /c ").find("Connection: close"), std::string::npos);
  EXPECT_TRUE(client.closedByPeer());
}

TEST(HttpServer, StreamsAChunkedBody) {
  auto server = HttpServer::start(HttpServerOptions{}, echo);
  ASSERT_TRUE(server);
  Client client((*server)->port());
  client.send("GET /stream HTTP/1.1\r\n\r\n");
  const std::string response = client.readUntil("0\r\n\r\n");
  EXPECT_NE(response.find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_NE(response.find("\r\n\r\n4\r\none\n\r\n4\r\ntwo\n\r\n0\r\n\r\n"), std::string::npos)
      << response;
}

TEST(HttpServer, AnswersAMalformedRequestWith400AndCloses) {
  auto server = HttpServer::start(HttpServerOptions{}, echo);
  ASSERT_TRUE(server);
  Client client((*server)->port());
  client.send("NONSENSE\r\n\r\n");
  EXPECT_NE(client.readUntil("\n\n").find("HTTP/1.1 400 Bad Request"), std::string::npos);
  EXPECT_TRUE(client.closedByPeer());
}

TEST(HttpServer, StopEndsAnOpenStream) {
  std::atomic<bool> streaming{false};
  auto server = HttpServer::start(HttpServerOptions{}, [&](const HttpRequest&) {
    HttpResponse r;
    r.stream = [&](ChunkSink& sink) {
      streaming = true;
      while (sink.write("tick\n")) {
      }
      EXPECT_TRUE(sink.closing());
    };
    return r;
  });
  ASSERT_TRUE(server);
  Client client((*server)->port());
  client.send("GET /watch HTTP/1.1\r\n\r\n");
  client.readUntil("tick\n");
  EXPECT_TRUE(streaming.load());
  (*server)->stop();  // joins the connection thread: returns only once the stream has ended
  EXPECT_TRUE((*server)->stopping());
}

TEST(HttpServer, RejectsAHostThatIsNotAnAddress) {
  HttpServerOptions options;
  options.host = "not-an-address";
  auto server = HttpServer::start(options, echo);
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().code, ErrorCode::kInvalidArgument);
}

using namespace std::chrono_literals;

TEST(HttpServerLimits, AnOversizedHeadIsAnswered431) {
  HttpServerOptions options;
  options.limits.maxHeadBytes = 4096;
  auto server = HttpServer::start(options, echo);
  ASSERT_TRUE(server);
  Client client((*server)->port());
  client.send("GET / HTTP/1.1\r\nX-Big: " + std::string(8192, 'x'));
  EXPECT_NE(client.readUntil("\r\n\r\n").find("HTTP/1.1 431 Request Header Fields Too Large"),
            std::string::npos);
  EXPECT_TRUE(client.closedByPeer());
}

TEST(HttpServerLimits, AnOversizedBodyIsAnswered413BeforeItIsSent) {
  HttpServerOptions options;
  options.limits.maxBodyBytes = 1024;
  auto server = HttpServer::start(options, echo);
  ASSERT_TRUE(server);
  Client client((*server)->port());
  client.send("POST / HTTP/1.1\r\nContent-Length: 104857600\r\n\r\n");
  EXPECT_NE(client.readUntil("\r\n\r\n").find("HTTP/1.1 413 Payload Too Large"), std::string::npos);
  EXPECT_TRUE(client.closedByPeer());
  // A chunked body is counted as it arrives.
  Client chunked((*server)->port());
  chunked.send("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  bool answered = false;
  for (int i = 0; i < 4 && !answered; ++i) {
    answered = !chunked.trySend("200\r\n" + std::string(512, 'a') + "\r\n") || chunked.readable(0);
  }
  EXPECT_NE(chunked.readUntil("\r\n\r\n").find("HTTP/1.1 413"), std::string::npos);
}

// A request's receive time runs from its first byte to its last: a body that arrives slowly
// counts (the admission webhook's latency includes it, as the API server waits for it).
TEST(HttpServer, ReportsHowLongTheRequestTookToArrive) {
  auto server = HttpServer::start({}, [](const HttpRequest& request) {
    HttpResponse r;
    r.body =
        "received in " +
        std::to_string(
            std::chrono::duration_cast<std::chrono::milliseconds>(request.receiveTime).count()) +
        " ms";
    return r;
  });
  ASSERT_TRUE(server);
  Client client((*server)->port());
  client.send("POST /slow HTTP/1.1\r\nContent-Length: 4\r\n\r\nab");
  EXPECT_FALSE(client.readable(600));  // no answer before the body is complete
  client.send("cd");
  const std::string answer = client.readUntil(" ms");
  const auto at = answer.find("received in ");
  ASSERT_NE(at, std::string::npos) << answer;
  // At least the 600 ms the body waited, less however late the server read its first bytes.
  EXPECT_GE(std::stoi(answer.substr(at + 12)), 300) << answer;

  client.send("GET /fast HTTP/1.1\r\n\r\n");  // the next request on the connection
  const std::string fast = client.readUntil(" ms");
  ASSERT_NE(fast.find("received in "), std::string::npos) << fast;
  EXPECT_LT(std::stoi(fast.substr(fast.find("received in ") + 12)), 300) << fast;
}

// A slowloris client: a byte of an endless header every 20 ms. The header deadline runs from
// the request's first byte, so trickling does not extend it.
TEST(HttpServerLimits, ASlowClientIsDroppedAtTheHeaderDeadline) {
  HttpServerOptions options;
  options.headerTimeout = 300ms;
  auto server = HttpServer::start(options, echo);
  ASSERT_TRUE(server);
  Client client((*server)->port());
  ASSERT_TRUE(client.trySend("GET / HTTP/1.1\r\nX-Slow: "));
  int sent = 0;
  while (sent < 1000 && !client.readable(20) && client.trySend("x")) ++sent;
  // 1000 bytes at one per 20 ms would take 20 s; the deadline is 0.3 s.
  EXPECT_LT(sent, 1000);
  EXPECT_NE(client.readUntil("\r\n\r\n").find("HTTP/1.1 408"), std::string::npos);
  EXPECT_TRUE(client.closedByPeer());
}

TEST(HttpServerLimits, ASilentConnectionIsClosedWithoutAnAnswer) {
  HttpServerOptions options;
  options.headerTimeout = 200ms;
  auto server = HttpServer::start(options, echo);
  ASSERT_TRUE(server);
  Client client((*server)->port());
  EXPECT_TRUE(client.readable(10'000));
  EXPECT_TRUE(client.closedByPeer());
}

// A TLS listener bound before its first certificate closes connections without a byte, rather
// than answering them in plain text.
TEST(HttpServer, ATlsListenerWithoutACertificateYetClosesConnections) {
  HttpServerOptions options;
  options.currentTls = [] { return std::shared_ptr<const TlsServerContext>(); };
  auto server = HttpServer::start(options, echo);
  ASSERT_TRUE(server) << server.error().toString();
  Client client((*server)->port());
  ASSERT_TRUE(client.connected());
  client.trySend("GET /a HTTP/1.1\r\n\r\n");  // fails once the server has closed: either way
  EXPECT_EQ(client.readUntil("GET /a"), "");
}

TEST(HttpServerLimits, AnIdleKeptAliveConnectionIsClosedAfterTheIdleTimeout) {
  HttpServerOptions options;
  options.idleTimeout = 200ms;
  auto server = HttpServer::start(options, echo);
  ASSERT_TRUE(server);
  Client client((*server)->port());
  client.send("GET /a HTTP/1.1\r\n\r\n");
  EXPECT_NE(client.readUntil("GET /a ").find("200 OK"), std::string::npos);
  EXPECT_TRUE(client.readable(10'000));
  EXPECT_TRUE(client.closedByPeer());
}

TEST(HttpServerLimits, ConnectionsBeyondTheCapAreAnswered503) {
  HttpServerOptions options;
  options.maxConnections = 4;
  auto server = HttpServer::start(options, echo);
  ASSERT_TRUE(server);
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(std::make_unique<Client>((*server)->port()));
    held.back()->send("GET /held HTTP/1.1\r\n\r\n");
    held.back()->readUntil("GET /held ");  // each one is being served
  }
  for (int i = 0; i < 8; ++i) {
    Client flood((*server)->port());
    const std::string answer = flood.readUntil("\r\n\r\n");
    EXPECT_NE(answer.find("HTTP/1.1 503 Service Unavailable"), std::string::npos) << answer;
    EXPECT_NE(answer.find("Retry-After: 1"), std::string::npos);
  }
  // The held connections are still served, and once one ends a new client gets in.
  held[0]->send("GET /again HTTP/1.1\r\n\r\n");
  EXPECT_NE(held[0]->readUntil("GET /again ").find("200 OK"), std::string::npos);
  held[1]->send("GET /bye HTTP/1.1\r\nConnection: close\r\n\r\n");
  held[1]->readUntil("GET /bye ");
  EXPECT_TRUE(held[1]->closedByPeer());
  bool served = false;
  for (int attempt = 0; attempt < 200 && !served; ++attempt) {
    Client next((*server)->port());
    next.send("GET /next HTTP/1.1\r\n\r\n");
    served = next.readUntil("\r\n\r\n").find("200 OK") != std::string::npos;
    if (!served) next.readable(10);  // the ended connection's thread is still finishing
  }
  EXPECT_TRUE(served);
}

TEST(HttpServerLimits, StopFinishesTheRequestInFlightAndClosesIdleConnections) {
  std::atomic<HttpServer*> self{nullptr};
  std::atomic<bool> handling{false};
  auto server = HttpServer::start(HttpServerOptions{}, [&](const HttpRequest& request) {
    handling = true;
    // Answers only once stop() has begun.
    while (self.load() == nullptr || !self.load()->stopping()) std::this_thread::yield();
    return echo(request);
  });
  ASSERT_TRUE(server);
  self = server->get();
  Client idle((*server)->port());
  Client busy((*server)->port());
  busy.send("POST /slow HTTP/1.1\r\nContent-Length: 2\r\n\r\nok");
  while (!handling.load()) std::this_thread::yield();
  std::thread stopper([&] { (*server)->stop(); });
  const std::string answer = busy.readUntil("POST /slow ok");
  stopper.join();
  EXPECT_NE(answer.find("HTTP/1.1 200 OK"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos);
  EXPECT_TRUE(busy.closedByPeer());
  EXPECT_TRUE(idle.closedByPeer());
}

}  // namespace
}  // namespace attune::http::server
