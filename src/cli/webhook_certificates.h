// The webhook server's serving certificate (docs/webhooks.md), from one of two sources:
//
//  - self-managed: the operator generates a CA and a serving certificate for
//    <service>.<namespace>.svc (and .svc.cluster.local, and <service>, <service>.<namespace>)
//    and keeps clientConfig.caBundle of its Mutating- and ValidatingWebhookConfiguration up to
//    date. Rules, applied by each refresh (level-based, idempotent):
//      * the CA is valid for 10 × the serving validity and is replaced when less than one
//        serving validity is left (so no serving certificate outlives its CA);
//      * the serving certificate is replaced when less than `rotateBefore` is left, or when
//        the CA was replaced;
//      * each webhook's caBundle holds this replica's CA plus the certificates already in it
//        that have not expired (the other replicas' CAs, a CA just replaced), at most
//        kMaxBundledCas in all, in one canonical order (newest notAfter first): replicas add
//        their own CA and never remove a live one, so two replicas serving the same Service
//        agree on the bundle instead of fighting over it;
//      * the bundle is patched before the new certificate is served; the first certificate
//        (nothing served before it) is served before its bundle is patched.
//  - from files: `dir`/tls.crt and `dir`/tls.key (and ca.crt when present), as a Secret of
//    type kubernetes.io/tls is mounted; reloaded by refresh when their contents change. The
//    caBundle is then the issuer's business (e.g. cert-manager's CA injector).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "core/error.h"
#include "core/time.h"
#include "http/tls_server.h"

namespace attune::cli {

inline constexpr std::size_t kMaxBundledCas = 4;

struct SelfManagedCertificateOptions {
  std::string service = "attune-webhook";
  std::string namespace_ = "attune-system";
  std::string mutatingConfiguration = "attune-pod-sizing";
  std::string validatingConfiguration = "attune-policy-validation";
  Duration validity = std::chrono::hours(24 * 365);     // of a serving certificate
  Duration rotateBefore = std::chrono::hours(24 * 30);  // replaced when less is left
  // More names of the serving certificate: IP literals as IP SANs, others as DNS SANs (an
  // operator run outside the cluster behind clientConfig.url).
  std::vector<std::string> extraNames;
};

// What one refresh did.
struct CertificateRefresh {
  bool caReplaced = false;
  bool servingReplaced = false;  // a new context is served from now on
  int bundlesPatched = 0;        // configurations whose caBundle was written
};

class WebhookCertificates {
 public:
  // Self-managed; `api` must outlive this object.
  WebhookCertificates(api::ClusterApi& api, SelfManagedCertificateOptions options);
  // From files in `dir`.
  explicit WebhookCertificates(std::filesystem::path dir);

  // Called with every private key (PEM) the certificates use, as it is generated or read: the
  // CA's and the serving certificate's (self-managed) or tls.key (from files). The operator
  // registers each with its log redactor. Set before the first refresh.
  void onPrivateKey(std::function<void(std::string_view keyPem)> fn) {
    onPrivateKey_ = std::move(fn);
  }

  // Applies the rules above at `now`. Not thread-safe against itself (one caller, the run
  // loop); safe against current(). An error (a certificate that does not load, a failed
  // caBundle write) leaves the certificate served so far in place; a missing configuration is
  // an error naming it. The other configuration is still patched.
  Result<CertificateRefresh> refresh(Time now);

  // The context new connections use; nullptr before the first successful refresh.
  // Thread-safe.
  std::shared_ptr<const http::server::TlsServerContext> current() const;
  // The CA (PEM) of the self-managed mode; empty from files.
  std::string caPem() const;

 private:
  Result<CertificateRefresh> refreshSelfManaged(Time now);
  Result<CertificateRefresh> refreshFromFiles();
  // Patches the caBundle of one configuration to hold our CA; true when written.
  Result<bool> patchBundle(api::WebhookConfigurationKind kind, const std::string& name, Time now);
  void serve(std::shared_ptr<const http::server::TlsServerContext> context);

  api::ClusterApi* api_ = nullptr;
  SelfManagedCertificateOptions options_;
  std::optional<std::filesystem::path> dir_;
  std::optional<http::server::CertificateAuthority> ca_;
  std::optional<http::server::ServingCertificate> serving_;
  std::string loadedFiles_;  // the contents last loaded from files

  mutable std::mutex mutex_;  // guards current_ and caPem_
  std::shared_ptr<const http::server::TlsServerContext> current_;
  std::string caPem_;
  std::function<void(std::string_view)> onPrivateKey_;
};

}  // namespace attune::cli
