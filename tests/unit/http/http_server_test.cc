// HttpServer over a real loopback socket: keep-alive across requests, chunked streaming, bad
// requests answered and closed, and stop() ending a stream that is still open.
#include "http/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

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
  }
  ~Client() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& data) {
    ASSERT_EQ(::send(fd_, data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
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

}  // namespace
}  // namespace attune::http::server
