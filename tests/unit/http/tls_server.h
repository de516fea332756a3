// A tiny HTTPS server on 127.0.0.1 for the client's TLS tests (a LoopbackServer over TLS: one
// thread, one connection at a time): answers every request with 200 "ok", optionally requiring a
// client certificate signed by a given CA.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "support/loopback_server.h"

namespace attune::testing {

class TlsServer {
 public:
  // `clientCa` empty: no client certificate is asked for.
  TlsServer(const std::filesystem::path& cert, const std::filesystem::path& key,
            const std::filesystem::path& clientCa = {});
  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;

  bool ok() const { return server_.ok(); }
  std::string address() const { return "https://127.0.0.1:" + std::to_string(server_.port()); }
  // Requests answered so far (TLS handshake completed).
  int served() const { return served_; }

 private:
  std::atomic<int> served_{0};
  LoopbackServer server_;
};

// Writes a CA, a server certificate for 127.0.0.1 and a client certificate (PEM, with keys:
// ca.crt, server.crt/.key, client.crt/.key, other-ca.crt) into `dir` with the openssl CLI.
// False (with the reason in `why`) when openssl is missing or fails.
bool makeTestCertificates(const std::filesystem::path& dir, std::string& why);

}  // namespace attune::testing
