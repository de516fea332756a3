// The webhook's serving certificate: self-managed (generation, rotation on the simulated clock,
// caBundle kept in the two configurations of the in-process cluster) and from files.
#include "cli/webhook_certificates.h"

#include <gtest/gtest.h>

#include <fstream>

#include "api/forwarding_cluster_api.h"
#include "api/k8s/base64.h"
#include "sim/cluster/cluster.h"

namespace attune::cli {
namespace {

using namespace std::chrono_literals;
using http::server::splitCertificateBundle;

const Time kStart = std::chrono::sys_days(std::chrono::year(2026) / 1 / 5);
constexpr Duration kDay = 24h;

class WebhookCertificatesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto kind :
         {api::WebhookConfigurationKind::kMutating, api::WebhookConfigurationKind::kValidating}) {
      api::WebhookConfiguration config{.kind = kind, .metadata = {}, .webhooks = {}};
      config.metadata.name = kind == api::WebhookConfigurationKind::kMutating
                                 ? "attune-pod-sizing"
                                 : "attune-policy-validation";
      config.webhooks.push_back({.name = "a.attune.io"});
      config.webhooks.push_back({.name = "b.attune.io"});
      ASSERT_TRUE(state_.webhookConfigurations(kind).create(config));
    }
  }

  // The certificates of the mutating configuration's first webhook.
  std::vector<http::server::BundledCertificate> bundle(
      api::WebhookConfigurationKind kind = api::WebhookConfigurationKind::kMutating) {
    auto config = cluster_.getWebhookConfiguration(
        kind, kind == api::WebhookConfigurationKind::kMutating ? "attune-pod-sizing"
                                                               : "attune-policy-validation");
    EXPECT_TRUE(config);
    return splitCertificateBundle(*api::base64Decode(config->webhooks.at(0).caBundle));
  }

  SimulatedClock clock_{kStart};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  SelfManagedCertificateOptions options_{.validity = 100 * kDay, .rotateBefore = 10 * kDay};
};

TEST_F(WebhookCertificatesTest, FirstRefreshServesACertificateAndPatchesBothBundles) {
  WebhookCertificates certs(cluster_, options_);
  EXPECT_EQ(certs.current(), nullptr);
  auto r = certs.refresh(clock_.now());
  ASSERT_TRUE(r) << r.error().toString();
  EXPECT_TRUE(r->caReplaced);
  EXPECT_TRUE(r->servingReplaced);
  EXPECT_EQ(r->bundlesPatched, 2);
  ASSERT_NE(certs.current(), nullptr);
  for (auto kind :
       {api::WebhookConfigurationKind::kMutating, api::WebhookConfigurationKind::kValidating}) {
    const auto b = bundle(kind);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].pem, certs.caPem());
  }
  // Level-based: nothing to do the second time.
  r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->servingReplaced);
  EXPECT_EQ(r->bundlesPatched, 0);
}

TEST_F(WebhookCertificatesTest, TheServingCertificateRotatesBeforeExpiryUnderTheSameCa) {
  WebhookCertificates certs(cluster_, options_);
  ASSERT_TRUE(certs.refresh(clock_.now()));
  const auto first = certs.current();
  const std::string ca = certs.caPem();
  clock_.advance(89 * kDay);  // 11 days left: kept
  auto r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->servingReplaced);
  EXPECT_EQ(certs.current(), first);
  clock_.advance(2 * kDay);  // 9 days left: replaced
  r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->servingReplaced);
  EXPECT_FALSE(r->caReplaced);
  EXPECT_EQ(r->bundlesPatched, 0);
  EXPECT_NE(certs.current(), first);
  EXPECT_NE(certs.current()->certPem(), first->certPem());
  EXPECT_EQ(certs.caPem(), ca);
}

// What was served when each bundle patch reached the cluster.
class PatchWitness : public api::ForwardingClusterApi {
 public:
  using ForwardingClusterApi::ForwardingClusterApi;
  Result<api::WebhookConfiguration> patchWebhookCaBundles(
      const api::WebhookConfiguration& config) override {
    servedAtPatch.push_back(certs == nullptr ? nullptr : certs->current());
    return inner().patchWebhookCaBundles(config);
  }
  const WebhookCertificates* certs = nullptr;
  std::vector<std::shared_ptr<const http::server::TlsServerContext>> servedAtPatch;
};

// A client that reads the patched bundle and connects at once finds the first certificate
// served; a new CA is in the bundles while the certificate it replaces is still served.
TEST_F(WebhookCertificatesTest, TheFirstCertificateIsServedBeforeItsBundleAppearsLaterOnesAfter) {
  PatchWitness witness(cluster_);
  WebhookCertificates certs(witness, options_);
  witness.certs = &certs;
  ASSERT_TRUE(certs.refresh(clock_.now()));
  const auto first = certs.current();
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(witness.servedAtPatch.size(), 2u);
  EXPECT_EQ(witness.servedAtPatch[0], first);
  EXPECT_EQ(witness.servedAtPatch[1], first);
  clock_.advance(901 * kDay);  // a new CA and a new serving certificate
  auto r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->caReplaced);
  ASSERT_EQ(witness.servedAtPatch.size(), 4u);
  EXPECT_EQ(witness.servedAtPatch[2], first);
  EXPECT_EQ(witness.servedAtPatch[3], first);
  EXPECT_NE(certs.current(), first);
}

TEST_F(WebhookCertificatesTest, ANewCaJoinsTheBundleBesideTheOldOneUntilItExpires) {
  WebhookCertificates certs(cluster_, options_);
  ASSERT_TRUE(certs.refresh(clock_.now()));
  const std::string oldCa = certs.caPem();
  clock_.advance(901 * kDay);  // the CA (1000 days) has less than one serving validity left
  auto r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->caReplaced);
  EXPECT_TRUE(r->servingReplaced);
  EXPECT_EQ(r->bundlesPatched, 2);
  auto b = bundle();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].pem, certs.caPem());
  EXPECT_EQ(b[1].pem, oldCa);
  clock_.advance(100 * kDay);  // the old CA has expired: dropped
  r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  b = bundle();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].pem, certs.caPem());
}

TEST_F(WebhookCertificatesTest, TwoReplicasKeepEachOthersCa) {
  WebhookCertificates one(cluster_, options_);
  WebhookCertificates two(cluster_, options_);
  ASSERT_TRUE(one.refresh(clock_.now()));
  ASSERT_TRUE(two.refresh(clock_.now()));
  auto r = one.refresh(clock_.now());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bundlesPatched, 0);
  EXPECT_EQ(two.refresh(clock_.now())->bundlesPatched, 0);
  const auto b = bundle();
  ASSERT_EQ(b.size(), 2u);
  EXPECT_TRUE(b[0].pem == one.caPem() || b[1].pem == one.caPem());
  EXPECT_TRUE(b[0].pem == two.caPem() || b[1].pem == two.caPem());
}

TEST_F(WebhookCertificatesTest, AMissingConfigurationIsAnErrorButTheCertificateIsServed) {
  options_.validatingConfiguration = "absent";
  WebhookCertificates certs(cluster_, options_);
  auto r = certs.refresh(clock_.now());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().toString().find("ValidatingWebhookConfiguration \"absent\""),
            std::string::npos)
      << r.error().toString();
  EXPECT_NE(certs.current(), nullptr);
  EXPECT_EQ(bundle().size(), 1u);
}

TEST_F(WebhookCertificatesTest, EveryPrivateKeyIsHandedToTheRedactorHook) {
  WebhookCertificates certs(cluster_, options_);
  std::vector<std::string> keys;
  certs.onPrivateKey([&](std::string_view key) { keys.emplace_back(key); });
  ASSERT_TRUE(certs.refresh(clock_.now()));
  ASSERT_EQ(keys.size(), 2u);  // the CA's and the serving certificate's
  for (const auto& key : keys) EXPECT_NE(key.find("PRIVATE KEY-----"), std::string::npos);
  EXPECT_NE(keys[0], keys[1]);
  clock_.advance(91 * kDay);  // the serving certificate rotates: its new key is handed over
  ASSERT_TRUE(certs.refresh(clock_.now()));
  EXPECT_EQ(keys.size(), 3u);

  const auto dir = std::filesystem::path(::testing::TempDir()) / "webhook-key-hook";
  std::filesystem::create_directories(dir);
  auto ca = http::server::generateCertificateAuthority("files-ca", 1000 * kDay, kStart);
  auto s = http::server::generateServingCertificate(
      *ca, {.commonName = "files", .dnsNames = {"files"}, .validity = 100 * kDay}, kStart);
  std::ofstream(dir / "tls.crt") << s->certPem;
  std::ofstream(dir / "tls.key") << s->keyPem;
  WebhookCertificates fromFiles(dir);
  std::string loaded;
  fromFiles.onPrivateKey([&](std::string_view key) { loaded = key; });
  ASSERT_TRUE(fromFiles.refresh(clock_.now()));
  EXPECT_EQ(loaded, s->keyPem);
}

TEST_F(WebhookCertificatesTest, FromFilesReloadsWhenTheyChange) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "webhook-certs";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& cn) {
    auto ca = http::server::generateCertificateAuthority(cn + "-ca", 1000 * kDay, kStart);
    auto s = http::server::generateServingCertificate(
        *ca, {.commonName = cn, .dnsNames = {cn}, .validity = 100 * kDay}, kStart);
    std::ofstream(dir / "tls.crt") << s->certPem;
    std::ofstream(dir / "tls.key") << s->keyPem;
  };
  write("one");
  WebhookCertificates certs(dir);
  auto r = certs.refresh(clock_.now());
  ASSERT_TRUE(r) << r.error().toString();
  EXPECT_TRUE(r->servingReplaced);
  const auto first = certs.current();
  ASSERT_NE(first, nullptr);
  r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->servingReplaced);
  write("two");
  r = certs.refresh(clock_.now());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->servingReplaced);
  EXPECT_NE(certs.current()->certPem(), first->certPem());
  // A broken file keeps what was served.
  std::ofstream(dir / "tls.key") << "garbage";
  EXPECT_FALSE(certs.refresh(clock_.now()));
  EXPECT_NE(certs.current(), nullptr);
}

}  // namespace
}  // namespace attune::cli
