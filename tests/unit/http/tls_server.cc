#include "tls_server.h"

#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "support/command.h"

namespace attune::testing {
namespace {

constexpr int kPollMs = 20;

bool waitReadable(int fd, const std::atomic<bool>& stop) {
  while (!stop) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kPollMs) > 0) return true;
  }
  return false;
}

}  // namespace

TlsServer::TlsServer(const std::filesystem::path& cert, const std::filesystem::path& key,
                     const std::filesystem::path& clientCa) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return;
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1) {
    SSL_CTX_free(ctx);
    return;
  }
  if (!clientCa.empty()) {
    SSL_CTX_load_verify_locations(ctx, clientCa.c_str(), nullptr);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  ctx_ = ctx;
  listenFd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (bind(listenFd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      listen(listenFd_, 16) == 0 &&
      getsockname(listenFd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port_ = ntohs(addr.sin_port);
  }
  thread_ = std::thread([this] { serve(); });
}

TlsServer::~TlsServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (listenFd_ >= 0) close(listenFd_);
  if (ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ctx_));
}

void TlsServer::serve() {
  while (waitReadable(listenFd_, stop_)) {
    const int fd = accept(listenFd_, nullptr, nullptr);
    if (fd < 0) continue;
    SSL* ssl = SSL_new(static_cast<SSL_CTX*>(ctx_));
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1) {
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const int n = SSL_read(ssl, buffer, sizeof buffer);
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
      }
      const std::string reply =
          "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
      SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
      ++served_;
      SSL_shutdown(ssl);
    }
    SSL_free(ssl);
    close(fd);
  }
}

bool makeTestCertificates(const std::filesystem::path& dir, std::string& why) {
  if (runCommand("command -v openssl").exitCode != 0) {
    why = "the openssl CLI is not installed";
    return false;
  }
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "server.ext") << "subjectAltName=IP:127.0.0.1\n";
  std::ofstream(dir / "client.ext") << "extendedKeyUsage=clientAuth\n";
  const std::string d = dir.string();
  const std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  const std::string script =
      "set -e; cd '" + d + "';" + "openssl req -x509" + key +
      " -keyout ca.key -out ca.crt -days 2 -subj /CN=attune-test-ca;" + "openssl req -x509" + key +
      " -keyout other-ca.key -out other-ca.crt -days 2 -subj /CN=other;" + "openssl req" + key +
      " -keyout server.key -out server.csr -subj /CN=127.0.0.1;" +
      "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2" +
      " -extfile server.ext -out server.crt;" + "openssl req" + key +
      " -keyout client.key -out client.csr -subj /CN=attune;" +
      "openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2" +
      " -extfile client.ext -out client.crt";
  const CommandRun run = runCommand(script);
  if (run.exitCode != 0) {
    why = "openssl failed: " + run.err;
    return false;
  }
  return true;
}

}  // namespace attune::testing
