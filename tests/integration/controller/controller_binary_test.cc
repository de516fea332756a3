// Two `attune controller` processes against `attune sim serve --tls` (through the kubeconfig it
// writes, with a known bearer token) and an unreachable Prometheus: one holds the Lease, both
// answer /healthz and /readyz, /metrics has attune_ series; SIGTERM to the leader exits 0 and
// the standby holds the lease within the lease duration; neither process's logs contain the
// token, the CA or any PEM text, and every JSON log line parses.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api/k8s/admission.h"
#include "api/k8s/base64.h"
#include "api/k8s/encode.h"
#include "core/clock.h"
#include "http/http_client.h"
#include "kube/http_cluster_api.h"
#include "kube/kubeconfig.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::string_view kToken = "controller-it-token-3f9c2a7d51e84b06";
constexpr std::string_view kLeaseNamespace = "platform";  // a namespace the demo has
constexpr auto kPoll = milliseconds(100);
constexpr auto kLeaseDuration = seconds(3);

class ControllerBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto kubeconfig = dir_.path() / "kubeconfig";
    const int port = testing::freeLocalPort();
    server_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{ATTUNE_BINARY, "sim", "serve", "--listen",
                                 "127.0.0.1:" + std::to_string(port), "--tls", "--kubeconfig-out",
                                 kubeconfig.string(), "--tick-interval", "1s", "--token",
                                 std::string(kToken)},
        dir_.path() / "serve.log");
    ASSERT_TRUE(waitFor(seconds(30), [&] {
      if (!std::filesystem::exists(kubeconfig)) return false;
      auto config = kube::loadKubeconfig(kubeconfig);
      if (!config) return false;
      auto api = std::make_unique<kube::HttpClusterApi>(*config, clock_);
      if (!api->listNodes({})) return false;
      config_ = *config;
      api_ = std::move(api);
      return true;
    })) << testing::readFile(dir_.path() / "serve.log");
    kubeconfig_ = kubeconfig.string();
  }

  // Polls `done` every kPoll until it is true (returns true) or `timeout` has passed.
  bool waitFor(Duration timeout, const std::function<bool()>& done) {
    const Time deadline = clock_.now() + timeout;
    while (clock_.now() < deadline) {
      if (done()) return true;
      clock_.sleepFor(kPoll);
    }
    return done();
  }

  std::unique_ptr<testing::ChildProcess> startController(const std::string& identity,
                                                         int metricsPort) {
    return std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{
            ATTUNE_BINARY, "controller", "--kubeconfig", kubeconfig_,
            // Nothing listens there: passes fail closed, the process keeps running.
            "--prometheus-url", "http://127.0.0.1:" + std::to_string(testing::freeLocalPort()),
            "--metrics-address", "127.0.0.1:" + std::to_string(metricsPort),
            "--leader-election-namespace", std::string(kLeaseNamespace), "--identity", identity,
            "--lease-duration", "3s", "--renew-deadline", "2s", "--retry-period", "500ms",
            "--reconcile-interval", "2s", "--log-format", "json", "--log-level", "debug"},
        dir_.path() / (identity + ".log"));
  }

  // GET http://127.0.0.1:port/path: (status, body); status 0 when nothing answered.
  std::pair<long, std::string> get(int port, const std::string& path) {
    http::CurlHttpClient client({});
    auto response = client.send(
        {.url = "http://127.0.0.1:" + std::to_string(port) + path, .timeout = seconds(5)});
    if (!response) return {0, response.error().message};
    return {response->status, response->body};
  }

  std::string holder() {
    auto lease = api_->getLease(kLeaseNamespace, "attune-leader");
    return lease ? lease->spec.holderIdentity : std::string();
  }

  SystemClock clock_;
  testing::TempDir dir_;
  std::unique_ptr<testing::ChildProcess> server_;
  std::string kubeconfig_;
  kube::ClusterConfig config_;
  std::unique_ptr<kube::HttpClusterApi> api_;
};

TEST_F(ControllerBinary, OneLeaderProbesMetricsHandoverOnSigtermAndNoSecretsInLogs) {
  const int portA = testing::freeLocalPort();
  const int portB = testing::freeLocalPort();
  auto a = startController("replica-a", portA);
  auto b = startController("replica-b", portB);
  auto logs = [&] {
    return "--- a:\n" + testing::readFile(dir_.path() / "replica-a.log") + "--- b:\n" +
           testing::readFile(dir_.path() / "replica-b.log");
  };
  ASSERT_TRUE(waitFor(seconds(30), [&] {
    const std::string h = holder();
    return (h == "replica-a" || h == "replica-b") && get(portA, "/readyz").first == 200 &&
           get(portB, "/readyz").first == 200;
  })) << logs();
  ASSERT_TRUE(a->running() && b->running()) << logs();

  // Exactly one holds the lease; its /metrics says so and carries the controller's series.
  const std::string leaderId = holder();
  const bool aLeads = leaderId == "replica-a";
  testing::ChildProcess& leader = aLeads ? *a : *b;
  const int leaderPort = aLeads ? portA : portB;
  const int standbyPort = aLeads ? portB : portA;
  const std::string standbyId = aLeads ? "replica-b" : "replica-a";
  for (int port : {portA, portB}) {
    EXPECT_EQ(get(port, "/healthz").first, 200);
    EXPECT_EQ(get(port, "/readyz").second, "ok\n");
  }
  ASSERT_TRUE(waitFor(seconds(20), [&] {
    return get(leaderPort, "/metrics").second.find("attune_reconcile_duration_seconds_count") !=
           std::string::npos;
  })) << logs();
  const std::string leaderMetrics = get(leaderPort, "/metrics").second;
  EXPECT_NE(leaderMetrics.find("\nattune_leader{lease=\"attune-leader\"} 1\n"), std::string::npos)
      << leaderMetrics;
  EXPECT_NE(leaderMetrics.find("\nattune_metrics_backend_up 0\n"), std::string::npos);
  EXPECT_NE(
      get(standbyPort, "/metrics").second.find("\nattune_leader{lease=\"attune-leader\"} 0\n"),
      std::string::npos);
  EXPECT_EQ(holder(), leaderId);
  // Prometheus is unreachable: no pod was resized.
  EXPECT_EQ(get(leaderPort, "/metrics").second.find("result=\"applied\""), std::string::npos);

  // SIGTERM: the leader finishes its pass, releases the lease and exits 0; the standby takes
  // the lease well within the lease duration.
  int leaderExit = -1;
  ASSERT_TRUE(leader.terminate(seconds(20), &leaderExit)) << logs();
  EXPECT_EQ(leaderExit, 0) << logs();
  const Time exited = clock_.now();
  ASSERT_TRUE(waitFor(kLeaseDuration + seconds(2), [&] { return holder() == standbyId; }))
      << logs();
  EXPECT_LE(clock_.now() - exited, kLeaseDuration);
  ASSERT_TRUE(waitFor(seconds(10), [&] {
    return get(standbyPort, "/metrics")
               .second.find("\nattune_leader{lease=\"attune-leader\"} 1\n") != std::string::npos;
  }));

  testing::ChildProcess& standby = aLeads ? *b : *a;
  int standbyExit = -1;
  ASSERT_TRUE(standby.terminate(seconds(20), &standbyExit)) << logs();
  EXPECT_EQ(standbyExit, 0) << logs();
  EXPECT_EQ(holder(), "");  // released on the way out

  // The logs of the whole run: no credential, every line JSON.
  ASSERT_FALSE(config_.http.bearerToken.empty());
  ASSERT_FALSE(config_.http.caData.empty());
  std::vector<std::string> caLines;
  std::istringstream ca(config_.http.caData);
  for (std::string line; std::getline(ca, line);) {
    if (line.size() >= 16 && !line.starts_with("-----")) caLines.push_back(line);
  }
  ASSERT_FALSE(caLines.empty());
  for (const char* name : {"replica-a.log", "replica-b.log"}) {
    const std::string log = testing::readFile(dir_.path() / name);
    EXPECT_NE(log.find("became leader"), std::string::npos) << name;
    EXPECT_EQ(log.find(kToken), std::string::npos) << name;
    EXPECT_EQ(log.find(config_.http.bearerToken), std::string::npos) << name;
    EXPECT_EQ(log.find("BEGIN"), std::string::npos) << name;
    EXPECT_EQ(log.find("PRIVATE KEY"), std::string::npos) << name;
    for (const std::string& line : caLines) EXPECT_EQ(log.find(line), std::string::npos) << name;
    std::istringstream lines(log);
    int parsed = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty()) continue;
      const auto j = nlohmann::json::parse(line, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << name << ": " << line;
      EXPECT_TRUE(j.contains("ts") && j.contains("level") && j.contains("msg")) << line;
      ++parsed;
    }
    EXPECT_GT(parsed, 3) << name;
  }
}

// `attune controller --webhook-address` with the self-managed certificate: it writes its CA
// into the caBundle of both registered configurations, and serves /validate-attunepolicies
// over HTTPS to a client that trusts only that bundle (an invalid policy refused with its field
// path). (The simulated API server does not call webhooks yet: the request is sent directly.)
TEST_F(ControllerBinary, WebhooksServedWithTheSelfManagedCertificateAndCaBundlePatched) {
  http::CurlHttpClient admin(config_.http);
  for (const std::string kind : {"Mutating", "Validating"}) {
    const std::string name = kind == "Mutating" ? "attune-pod-sizing" : "attune-policy-validation";
    const nlohmann::json config = {{"apiVersion", "admissionregistration.k8s.io/v1"},
                                   {"kind", kind + "WebhookConfiguration"},
                                   {"metadata", {{"name", name}}},
                                   {"webhooks",
                                    {{{"name", "x.attune.io"},
                                      {"clientConfig", {{"url", "https://127.0.0.1/"}}},
                                      {"sideEffects", "None"},
                                      {"admissionReviewVersions", {"v1"}}}}}};
    std::string plural =
        kind == "Mutating" ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    auto created =
        admin.send({.method = http::HttpRequest::Method::kPost,
                    .url = config_.server + "/apis/admissionregistration.k8s.io/v1/" + plural,
                    .body = config.dump(),
                    .contentType = "application/json"});
    ASSERT_TRUE(created && created->status == 201) << (created ? created->body : "");
  }
  const int metricsPort = testing::freeLocalPort();
  const int webhookPort = testing::freeLocalPort();
  auto controller = std::make_unique<testing::ChildProcess>(
      std::vector<std::string>{
          ATTUNE_BINARY, "controller", "--kubeconfig", kubeconfig_, "--prometheus-url",
          "http://127.0.0.1:" + std::to_string(testing::freeLocalPort()), "--metrics-address",
          "127.0.0.1:" + std::to_string(metricsPort), "--leader-elect=false", "--webhook-address",
          "127.0.0.1:" + std::to_string(webhookPort), "--webhook-namespace", "attune-system",
          "--webhook-cert-extra-name", "127.0.0.1", "--log-format", "json"},
      dir_.path() / "webhook.log");
  std::string bundle;
  ASSERT_TRUE(waitFor(seconds(30), [&] {
    for (auto kind :
         {api::WebhookConfigurationKind::kMutating, api::WebhookConfigurationKind::kValidating}) {
      auto c = api_->getWebhookConfiguration(kind, kind == api::WebhookConfigurationKind::kMutating
                                                       ? "attune-pod-sizing"
                                                       : "attune-policy-validation");
      if (!c || c->webhooks.empty() || c->webhooks[0].caBundle.empty()) return false;
      bundle = c->webhooks[0].caBundle;
    }
    return true;
  })) << testing::readFile(dir_.path() / "webhook.log");

  http::CurlHttpClient client({.caData = *api::base64Decode(bundle)});
  const std::string invalid = R"({"apiVersion": "attune.io/v1alpha1", "kind": "AttunePolicy",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"targetRef": {"kind": "Deployment", "name": "web"},
             "cpu": {"minAllowed": "2", "maxAllowed": "1"}}})";
  auto r = client.send(
      {.method = http::HttpRequest::Method::kPost,
       .url = "https://127.0.0.1:" + std::to_string(webhookPort) + "/validate-attunepolicies",
       .body = api::encodeAdmissionReviewRequest(
           {.uid = "u",
            .kind = {"attune.io", "v1alpha1", "AttunePolicy"},
            .resource = {"attune.io", "v1alpha1", "attunepolicies"},
            .name = "web",
            .namespace_ = "shop",
            .operation = "CREATE",
            .object = invalid}),
       .contentType = "application/json"});
  ASSERT_TRUE(r) << r.error().toString() << testing::readFile(dir_.path() / "webhook.log");
  ASSERT_EQ(r->status, 200) << r->body;
  const auto review = nlohmann::json::parse(r->body);
  EXPECT_EQ(review["response"]["allowed"], false);
  EXPECT_NE(review["response"]["status"]["message"].get<std::string>().find(
                "spec.cpu.minAllowed: must be at most maxAllowed"),
            std::string::npos)
      << r->body;
  EXPECT_NE(
      get(metricsPort, "/metrics")
          .second.find(
              R"(attune_webhook_requests_total{webhook="validate-attunepolicies",outcome="denied"} 1)"),
      std::string::npos);
}

}  // namespace
}  // namespace attune
