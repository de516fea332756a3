// Server-side TLS for the simulator's REST front end: a certificate authority and a server
// certificate generated in memory at start (OpenSSL), so a client trusts the server through the
// CA in the kubeconfig it is given.
#pragma once

#include <memory>
#include <string>

#include "core/error.h"
#include "core/time.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace attune::http::server {

// Owns an SSL_CTX (TLS 1.2 or later) holding the server certificate and key. Thread-safe after
// construction: connections create their SSL objects from it concurrently.
class TlsServerContext {
 public:
  // Generates an ECDSA P-256 CA ("attune-sim-ca") and a server certificate signed by it with the
  // subject alternative names IP:127.0.0.1, IP:::1 and DNS:localhost, both valid from an hour
  // before `now` to a year after it. kInternal when OpenSSL fails.
  static Result<std::unique_ptr<TlsServerContext>> generate(Time now);
  ~TlsServerContext();
  TlsServerContext(const TlsServerContext&) = delete;
  TlsServerContext& operator=(const TlsServerContext&) = delete;

  // The CA certificate (PEM), for a client's certificate-authority-data.
  const std::string& caPem() const { return caPem_; }
  // The server certificate (PEM).
  const std::string& certPem() const { return certPem_; }
  ssl_ctx_st* context() const { return ctx_; }

 private:
  TlsServerContext() = default;

  ssl_ctx_st* ctx_ = nullptr;
  std::string caPem_;
  std::string certPem_;
};

}  // namespace attune::http::server
