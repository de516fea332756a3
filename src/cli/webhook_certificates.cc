#include "cli/webhook_certificates.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "api/k8s/base64.h"

namespace attune::cli {
namespace {

constexpr int kCaValidityFactor = 10;

std::optional<std::string> readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Our CA and the live certificates of `current` (a base64 bundle), in one canonical order
// (newest notAfter first, then by text) so that replicas agree on the bundle, at most
// kMaxBundledCas with ours always kept; base64 as on the wire.
std::string bundleWith(const std::string& ourCa, Time ourNotAfter, const std::string& current,
                       Time now) {
  const std::optional<std::string> decoded = api::base64Decode(current);
  std::vector<http::server::BundledCertificate> others =
      http::server::splitCertificateBundle(decoded.value_or(""));
  std::erase_if(others, [&](const auto& c) { return c.notAfter <= now || c.pem == ourCa; });
  auto newer = [](const auto& a, const auto& b) {
    return a.notAfter != b.notAfter ? a.notAfter > b.notAfter : a.pem < b.pem;
  };
  std::ranges::sort(others, newer);
  if (others.size() >= kMaxBundledCas) others.resize(kMaxBundledCas - 1);
  others.push_back({ourCa, ourNotAfter});
  std::ranges::sort(others, newer);
  std::string bundle;
  for (const auto& c : others) bundle += c.pem;
  return api::base64Encode(bundle);
}

}  // namespace

WebhookCertificates::WebhookCertificates(api::ClusterApi& api,
                                         SelfManagedCertificateOptions options)
    : api_(&api), options_(std::move(options)) {}

WebhookCertificates::WebhookCertificates(std::filesystem::path dir) : dir_(std::move(dir)) {}

Result<CertificateRefresh> WebhookCertificates::refresh(Time now) {
  return dir_ ? refreshFromFiles() : refreshSelfManaged(now);
}

std::shared_ptr<const http::server::TlsServerContext> WebhookCertificates::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

std::string WebhookCertificates::caPem() const {
  std::lock_guard lock(mutex_);
  return caPem_;
}

void WebhookCertificates::serve(std::shared_ptr<const http::server::TlsServerContext> context) {
  std::lock_guard lock(mutex_);
  current_ = std::move(context);
  caPem_ = ca_ ? ca_->certPem : std::string();
}

Result<CertificateRefresh> WebhookCertificates::refreshFromFiles() {
  CertificateRefresh out;
  const auto cert = readFile(*dir_ / "tls.crt");
  const auto key = readFile(*dir_ / "tls.key");
  if (!cert || !key) {
    return fail(ErrorCode::kNotFound, "cannot read tls.crt and tls.key in " + dir_->string(),
                "--webhook-cert-dir");
  }
  const std::string ca = readFile(*dir_ / "ca.crt").value_or("");
  std::string contents = *cert + *key + ca;
  if (contents == loadedFiles_) return out;
  if (onPrivateKey_) onPrivateKey_(*key);
  auto context = http::server::TlsServerContext::fromPem(*cert, *key, ca);
  if (!context) return std::unexpected(context.error());
  loadedFiles_ = std::move(contents);
  serve(std::move(*context));
  out.servingReplaced = true;
  return out;
}

Result<bool> WebhookCertificates::patchBundle(api::WebhookConfigurationKind kind,
                                              const std::string& name, Time now) {
  auto config = api_->getWebhookConfiguration(kind, name);
  if (!config) return std::unexpected(config.error());
  bool changed = false;
  for (api::AdmissionWebhook& webhook : config->webhooks) {
    std::string bundle = bundleWith(ca_->certPem, ca_->notAfter, webhook.caBundle, now);
    changed = changed || bundle != webhook.caBundle;
    webhook.caBundle = std::move(bundle);
  }
  if (!changed) return false;
  auto patched = api_->patchWebhookCaBundles(*config);
  if (!patched) return std::unexpected(patched.error());
  return true;
}

Result<CertificateRefresh> WebhookCertificates::refreshSelfManaged(Time now) {
  CertificateRefresh out;
  const Duration validity = options_.validity;
  std::optional<http::server::CertificateAuthority> ca = ca_;
  if (!ca || ca->notAfter - now < validity) {
    auto fresh = http::server::generateCertificateAuthority(options_.service + "-ca",
                                                            kCaValidityFactor * validity, now);
    if (!fresh) return std::unexpected(fresh.error());
    if (onPrivateKey_) onPrivateKey_(fresh->keyPem);
    ca = std::move(*fresh);
    out.caReplaced = true;
  }
  std::optional<http::server::ServingCertificate> serving = serving_;
  if (out.caReplaced || !serving || serving->notAfter - now < options_.rotateBefore) {
    const std::string& svc = options_.service;
    const std::string ns = svc + "." + options_.namespace_;
    http::server::ServingCertificateRequest request{
        .commonName = ns + ".svc",
        .dnsNames = {svc, ns, ns + ".svc", ns + ".svc.cluster.local"},
        .ipAddresses = {},
        .validity = validity};
    for (const std::string& name : options_.extraNames) {
      const bool ip = name.find(':') != std::string::npos ||
                      name.find_first_not_of("0123456789.") == std::string::npos;
      (ip ? request.ipAddresses : request.dnsNames).push_back(name);
    }
    auto fresh = http::server::generateServingCertificate(*ca, request, now);
    if (!fresh) return std::unexpected(fresh.error());
    if (onPrivateKey_) onPrivateKey_(fresh->keyPem);
    serving = std::move(*fresh);
    out.servingReplaced = true;
  }
  std::shared_ptr<const http::server::TlsServerContext> context;
  if (out.servingReplaced) {
    auto made =
        http::server::TlsServerContext::fromPem(serving->certPem, serving->keyPem, ca->certPem);
    if (!made) return std::unexpected(made.error());
    context = std::move(*made);
  }
  // The bundles first: a client must trust the CA before a certificate it signed is served.
  // Until then nothing was served, so no client can lose a working connection: the first
  // certificate is served at once, and a client that sees the patched bundle finds it served.
  const bool wasServing = current() != nullptr;
  std::swap(ca_, ca);
  if (!wasServing && context) serve(context);
  std::optional<Error> failure;
  for (const auto& [kind, name] :
       {std::pair{api::WebhookConfigurationKind::kMutating, options_.mutatingConfiguration},
        std::pair{api::WebhookConfigurationKind::kValidating, options_.validatingConfiguration}}) {
    if (name.empty()) continue;
    auto patched = patchBundle(kind, name, now);
    if (!patched) {
      if (!failure) {
        failure = Error{
            patched.error().code,
            std::string(api::kindName(kind)) + " \"" + name + "\": " + patched.error().toString(),
            {}};
      }
    } else if (*patched) {
      ++out.bundlesPatched;
    }
  }
  if (failure && wasServing && out.caReplaced) {
    std::swap(ca_, ca);  // keep serving what the bundles still trust; retried next refresh
    return std::unexpected(*failure);
  }
  serving_ = std::move(serving);
  if (context) serve(std::move(context));
  if (failure) return std::unexpected(*failure);
  return out;
}

}  // namespace attune::cli
