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

std::time_t epochSeconds(Time t) {
  return static_cast<std::time_t>(
      std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count());
}

// A certificate for `key` named `commonName`, signed by `issuerKey` (`issuer` == nullptr:
// self-signed), valid from an hour before `now` to `notAfter`; a serving certificate (`ca`
// false) names `altNames` ("IP:...,DNS:...").
CertPtr newCert(EVP_PKEY* key, const std::string& commonName, X509* issuer, EVP_PKEY* issuerKey,
                Time now, Time notAfter, bool ca, const std::string& altNames) {
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
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), epochSeconds(now) - 3600);
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), epochSeconds(notAfter));
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (ca) {
    ok = addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE") &&
         addExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign") &&
         addExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok = addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
         addExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature") &&
         addExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth") &&
         addExtension(cert.get(), signer, NID_subject_alt_name, altNames.c_str());
  }
  if (!ok) return nullptr;
  if (X509_sign(cert.get(), issuerKey, EVP_sha256()) == 0) return nullptr;
  return cert;
}

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  return bioText(bio.get());
}

std::string pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  return bioText(bio.get());
}

BioPtr readBio(const std::string& text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

CertPtr parseCert(BIO* bio) { return CertPtr(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)); }

KeyPtr parseKey(const std::string& text) {
  BioPtr bio = readBio(text);
  return KeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

Error invalidPem(const char* what) {
  ERR_clear_error();
  return Error{ErrorCode::kInvalidArgument, std::string("TLS setup failed: ") + what, {}};
}

}  // namespace

Result<CertificateAuthority> generateCertificateAuthority(const std::string& commonName,
                                                          Duration validity, Time now) {
  KeyPtr key = newKey();
  if (!key) return std::unexpected(opensslError("generating the CA key"));
  const Time notAfter = now + validity;
  CertPtr cert = newCert(key.get(), commonName, nullptr, key.get(), now, notAfter, true, {});
  if (!cert) return std::unexpected(opensslError("creating the CA certificate"));
  return CertificateAuthority{
      .certPem = pem(cert.get()), .keyPem = pem(key.get()), .notAfter = notAfter};
}

Result<ServingCertificate> generateServingCertificate(const CertificateAuthority& ca,
                                                      const ServingCertificateRequest& request,
                                                      Time now) {
  std::string altNames;
  for (const std::string& ip : request.ipAddresses) altNames += ",IP:" + ip;
  for (const std::string& dns : request.dnsNames) altNames += ",DNS:" + dns;
  if (altNames.empty()) {
    return fail(ErrorCode::kInvalidArgument, "a serving certificate needs at least one name",
                "subjectAltName");
  }
  BioPtr caBio = readBio(ca.certPem);
  CertPtr caCert = parseCert(caBio.get());
  KeyPtr caKey = parseKey(ca.keyPem);
  if (!caCert || !caKey) return std::unexpected(opensslError("reading the CA"));
  KeyPtr key = newKey();
  if (!key) return std::unexpected(opensslError("generating the serving key"));
  const Time notAfter = now + request.validity;
  CertPtr cert = newCert(key.get(), request.commonName, caCert.get(), caKey.get(), now, notAfter,
                         false, altNames.substr(1));
  if (!cert) return std::unexpected(opensslError("creating the serving certificate"));
  return ServingCertificate{
      .certPem = pem(cert.get()), .keyPem = pem(key.get()), .notAfter = notAfter};
}

std::vector<BundledCertificate> splitCertificateBundle(std::string_view bundle) {
  std::vector<BundledCertificate> out;
  BioPtr bio(BIO_new_mem_buf(bundle.data(), static_cast<int>(bundle.size())));
  while (CertPtr cert = parseCert(bio.get())) {
    std::tm tm{};
    if (ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &tm) != 1) continue;
    const auto days =
        std::chrono::sys_days(std::chrono::year(tm.tm_year + 1900) /
                              std::chrono::month(static_cast<unsigned>(tm.tm_mon + 1)) /
                              std::chrono::day(static_cast<unsigned>(tm.tm_mday)));
    const Time notAfter = days + std::chrono::hours(tm.tm_hour) + std::chrono::minutes(tm.tm_min) +
                          std::chrono::seconds(tm.tm_sec);
    out.push_back({pem(cert.get()), notAfter});
  }
  ERR_clear_error();
  return out;
}

Result<std::unique_ptr<TlsServerContext>> TlsServerContext::generate(Time now) {
  const Duration year = std::chrono::hours(365 * 24);
  auto ca = generateCertificateAuthority("attune-sim-ca", year, now);
  if (!ca) return std::unexpected(ca.error());
  auto serving = generateServingCertificate(*ca,
                                            {.commonName = "attune-sim",
                                             .dnsNames = {"localhost"},
                                             .ipAddresses = {"127.0.0.1", "::1"},
                                             .validity = year},
                                            now);
  if (!serving) return std::unexpected(serving.error());
  return fromPem(serving->certPem, serving->keyPem, ca->certPem);
}

Result<std::unique_ptr<TlsServerContext>> TlsServerContext::fromPem(const std::string& certPem,
                                                                    const std::string& keyPem,
                                                                    const std::string& caPem) {
  BioPtr certBio = readBio(certPem);
  CertPtr leaf = parseCert(certBio.get());
  if (!leaf) return std::unexpected(invalidPem("the certificate does not parse"));
  KeyPtr key = parseKey(keyPem);
  if (!key) return std::unexpected(invalidPem("the private key does not parse"));
  std::unique_ptr<TlsServerContext> out(new TlsServerContext());
  out->ctx_ = SSL_CTX_new(TLS_server_method());
  if (out->ctx_ == nullptr) return std::unexpected(opensslError("SSL_CTX_new"));
  SSL_CTX_set_min_proto_version(out->ctx_, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate(out->ctx_, leaf.get()) != 1) {
    return std::unexpected(opensslError("loading the server certificate"));
  }
  // The rest of the certificate file, then the CA, form the chain sent to clients.
  while (CertPtr chain = parseCert(certBio.get())) {
    if (SSL_CTX_add1_chain_cert(out->ctx_, chain.get()) != 1) {
      return std::unexpected(opensslError("loading the certificate chain"));
    }
  }
  ERR_clear_error();  // the end of the file reads as an error
  if (!caPem.empty()) {
    BioPtr caBio = readBio(caPem);
    CertPtr ca = parseCert(caBio.get());
    if (!ca) return std::unexpected(invalidPem("the CA certificate does not parse"));
    if (SSL_CTX_add1_chain_cert(out->ctx_, ca.get()) != 1) {
      return std::unexpected(opensslError("loading the CA certificate"));
    }
  }
  if (SSL_CTX_use_PrivateKey(out->ctx_, key.get()) != 1 ||
      SSL_CTX_check_private_key(out->ctx_) != 1) {
    return std::unexpected(invalidPem("the private key does not match the certificate"));
  }
  // Go clients offer h2 through ALPN; not selecting a protocol keeps them on HTTP/1.1.
  out->caPem_ = caPem;
  out->certPem_ = pem(leaf.get());
  return out;
}

TlsServerContext::~TlsServerContext() {
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

}  // namespace attune::http::server
