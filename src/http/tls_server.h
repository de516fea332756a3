// Server-side TLS: for the simulator's REST front end, a certificate authority and a server
// certificate generated in memory at start (OpenSSL), so a client trusts the server through the
// CA in the kubeconfig it is given; for the operator's webhook server, a CA and a serving
// certificate for the names of its Service (generateCertificates), or PEM files from a Secret.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/time.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace attune::http::server {

// A certificate authority, PEM-encoded, with its private key (to sign serving certificates).
struct CertificateAuthority {
  std::string certPem;
  std::string keyPem;
  Time notAfter{};
};

// A serving certificate and key (PEM) with the chain's CA.
struct ServingCertificate {
  std::string certPem;
  std::string keyPem;
  Time notAfter{};
};

// What a serving certificate names and how long it lasts.
struct ServingCertificateRequest {
  std::string commonName;
  std::vector<std::string> dnsNames;     // subject alternative names DNS:...
  std::vector<std::string> ipAddresses;  // IP:... (IPv4 or IPv6 literals)
  Duration validity{};                   // from `now` (valid from an hour before `now`)
};

// A new ECDSA P-256 CA named `commonName`, valid from an hour before `now` for `validity`.
// kInternal when OpenSSL fails.
Result<CertificateAuthority> generateCertificateAuthority(const std::string& commonName,
                                                          Duration validity, Time now);

// A new ECDSA P-256 serving certificate (serverAuth) for `request`, signed by `ca`. kInternal
// when OpenSSL fails or `ca` does not parse; kInvalidArgument for a request without names.
Result<ServingCertificate> generateServingCertificate(const CertificateAuthority& ca,
                                                      const ServingCertificateRequest& request,
                                                      Time now);

// The certificates of a PEM bundle, each as its own PEM text with its notAfter, in bundle
// order; text that is not a certificate is skipped.
struct BundledCertificate {
  std::string pem;
  Time notAfter{};
};
std::vector<BundledCertificate> splitCertificateBundle(std::string_view bundle);

// Owns an SSL_CTX (TLS 1.2 or later) holding the server certificate and key. Thread-safe after
// construction: connections create their SSL objects from it concurrently.
class TlsServerContext {
 public:
  // Generates an ECDSA P-256 CA ("attune-sim-ca") and a server certificate signed by it with the
  // subject alternative names IP:127.0.0.1, IP:::1 and DNS:localhost, both valid from an hour
  // before `now` to a year after it. kInternal when OpenSSL fails.
  static Result<std::unique_ptr<TlsServerContext>> generate(Time now);
  // A context serving `certPem` (the certificate, optionally followed by its chain) with
  // `keyPem`; `caPem` is kept for caPem(). kInvalidArgument when they do not parse or the key
  // does not match the certificate.
  static Result<std::unique_ptr<TlsServerContext>> fromPem(const std::string& certPem,
                                                           const std::string& keyPem,
                                                           const std::string& caPem = {});
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
