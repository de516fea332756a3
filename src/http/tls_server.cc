#include "http/tls_server.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <ctime>

namespace attune::http::server {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

Error opensslError(const char* what) {
  std::string message = "TLS setup failed: ";
  message += what;
  if (unsigned long code = ERR_get_error(); code != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    message += ": ";
    message += buf;
  }
  return Error{ErrorCode::kInternal, std::move(message), {}};
}

KeyPtr newKey() { return KeyPtr(EVP_EC_gen("P-256")); }

bool addExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate for `key` named `commonName`, signed by `issuerKey` (`issuer` == nullptr:
// self-signed).
CertPtr newCert(EVP_PKEY* key, const char* commonName, X509* issuer, EVP_PKEY* issuerKey, Time now,
                bool ca) {
  CertPtr cert(X509_new());
  if (!cert) return nullptr;
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return nullptr;
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  ASN1_INTEGER* sn = X509_get_serialNumber(cert.get());
  BN_to_ASN1_INTEGER(bn, sn);
  BN_free(bn);
  const auto seconds = std::chrono::floor<std::chrono::seconds>(now).time_since_epoch().count();
  const std::time_t notBefore = static_cast<std::time_t>(seconds - 3600);
  const std::time_t notAfter = static_cast<std::time_t>(seconds + 365L * 24 * 3600);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), notBefore);
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), notAfter);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(commonName), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (ca) {
    ok = addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE") &&
         addExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign") &&
         addExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok =
        addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
        addExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature") &&
        addExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth") &&
        addExtension(cert.get(), signer, NID_subject_alt_name, "IP:127.0.0.1,IP:::1,DNS:localhost");
  }
  if (!ok) return nullptr;
  if (X509_sign(cert.get(), issuerKey, EVP_sha256()) == 0) return nullptr;
  return cert;
}

std::string pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

Result<std::unique_ptr<TlsServerContext>> TlsServerContext::generate(Time now) {
  KeyPtr caKey = newKey();
  KeyPtr serverKey = newKey();
  if (!caKey || !serverKey) return std::unexpected(opensslError("generating keys"));
  CertPtr caCert = newCert(caKey.get(), "attune-sim-ca", nullptr, caKey.get(), now, true);
  if (!caCert) return std::unexpected(opensslError("creating the CA certificate"));
  CertPtr serverCert =
      newCert(serverKey.get(), "attune-sim", caCert.get(), caKey.get(), now, false);
  if (!serverCert) return std::unexpected(opensslError("creating the server certificate"));

  std::unique_ptr<TlsServerContext> out(new TlsServerContext());
  out->ctx_ = SSL_CTX_new(TLS_server_method());
  if (out->ctx_ == nullptr) return std::unexpected(opensslError("SSL_CTX_new"));
  SSL_CTX_set_min_proto_version(out->ctx_, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate(out->ctx_, serverCert.get()) != 1 ||
      SSL_CTX_add1_chain_cert(out->ctx_, caCert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(out->ctx_, serverKey.get()) != 1 ||
      SSL_CTX_check_private_key(out->ctx_) != 1) {
    return std::unexpected(opensslError("loading the server certificate"));
  }
  // Go clients offer h2 through ALPN; not selecting a protocol keeps them on HTTP/1.1.
  out->caPem_ = pem(caCert.get());
  out->certPem_ = pem(serverCert.get());
  return out;
}

TlsServerContext::~TlsServerContext() {
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

}  // namespace attune::http::server
