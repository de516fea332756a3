// No credential reaches the operator's log, even at debug level. `attune controller` runs
// against `attune sim serve` and a real Prometheus, with every credential it can hold:
//  - the kubeconfig's bearer token (the simulator asks for it on every request);
//  - a Prometheus bearer token file (--prometheus-bearer-token-file);
//  - a basic-auth password in the Prometheus URL's userinfo (Prometheus without a web config
//    ignores both, so the passes still read metrics);
//  - the webhook's serving key, read from --webhook-cert-dir, with the webhook called over TLS;
//  - a per-policy bearer token, read from the Secret a second policy's
//    spec.metricsSource.prometheus.bearerTokenSecret names (sent to the same Prometheus, which
//    ignores it).
// The controller reconciles both policies, answers an AdmissionReview and stops; then its whole
// debug log is searched for each secret: the whole value and every base64 line of the key.
// The same run checks that the running operator exports every metric the shipped Grafana
// dashboard and alerts use (deploy/components/monitoring/), and that `kubectl get
// attunepolicies -A -o wide` shows every printer column filled.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/time.h"
#include "http/http_client.h"
#include "http/tls_server.h"
#include "integration/e2e/sim_cluster.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::at;

std::string scenarioYaml(Time start) {
  return "apiVersion: sim.attune.io/v1alpha1\n"
         "kind: Scenario\n"
         "metadata: {name: secrets}\n"
         "spec:\n"
         "  seed: 5\n"
         "  start: \"" +
         formatRfc3339(start) +
         "\"\n"
         "  duration: 2h\n"
         "  tick: 1s\n"
         "  nodePools:\n"
         "  - {name: general, count: 1, cpu: \"4\", memory: 16Gi}\n"
         "  namespaces: [apps]\n"
         "  workloads:\n"
         "  - kind: Deployment\n"
         "    namespace: apps\n"
         "    name: web\n"
         "    replicas: 2\n"
         "    containers:\n"
         "    - name: app\n"
         "      requests: {cpu: \"1\", memory: 1Gi}\n"
         "      limits: {cpu: \"2\", memory: 2Gi}\n"
         "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}\n"
         "  - kind: Deployment\n"
         "    namespace: apps\n"
         "    name: api\n"
         "    replicas: 1\n"
         "    containers:\n"
         "    - name: app\n"
         "      requests: {cpu: \"1\", memory: 1Gi}\n"
         "      model: {kind: steady, cpuCores: 200m, memoryBytes: 200Mi, noise: 0}\n";
}

constexpr std::string_view kPolicy = R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: web, namespace: apps}
spec:
  targetRef: {kind: Deployment, name: web}
  metricsSource: {historyWindow: 10m, queryStep: 10s, rateWindow: 30s, minimumDataPoints: 6}
  updateStrategy: {type: Recommend}
)";

// A policy reading its own Prometheus with a bearer token from a Secret (ADDRESS and TOKEN
// replaced).
constexpr std::string_view kTokenPolicy = R"(apiVersion: v1
kind: Secret
metadata: {name: prom-token, namespace: apps}
type: Opaque
stringData: {token: TOKEN}
---
apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: api, namespace: apps}
spec:
  targetRef: {kind: Deployment, name: api}
  metricsSource:
    historyWindow: 10m
    queryStep: 10s
    rateWindow: 30s
    minimumDataPoints: 6
    prometheus:
      address: ADDRESS
      bearerTokenSecret: {name: prom-token, key: token}
  updateStrategy: {type: Recommend}
)";

// The strings that must not appear: the secret itself and, for a PEM text, each base64 line.
std::vector<std::string> needles(const std::string& secret) {
  std::vector<std::string> out{secret};
  if (secret.find("-----BEGIN") == std::string::npos) return out;
  std::size_t start = 0;
  while (start < secret.size()) {
    std::size_t end = secret.find('\n', start);
    if (end == std::string::npos) end = secret.size();
    const std::string line = secret.substr(start, end - start);
    if (!line.starts_with("-----") && line.size() >= 16) out.push_back(line);
    start = end + 1;
  }
  return out;
}

TEST(SecretsEndToEnd, NoCredentialReachesTheDebugLog) {
  if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
  SystemClock clock;
  auto started = testing::SimCluster::start(scenarioYaml(clock.now()));
  ASSERT_TRUE(started.has_value()) << started.error().toString();
  testing::SimCluster& cluster = **started;

  // The kubeconfig's token, as the simulator wrote it.
  std::smatch m;
  std::ifstream kubeconfigFile(cluster.kubeconfig());
  const std::string kubeconfig((std::istreambuf_iterator<char>(kubeconfigFile)),
                               std::istreambuf_iterator<char>());
  const std::regex tokenLine(R"(token:\s*"?([A-Za-z0-9._\-]+))");
  ASSERT_TRUE(std::regex_search(kubeconfig, m, tokenLine)) << kubeconfig;
  const std::string kubeToken = m[1];

  const std::string promToken = "prom-bearer-7f3a9c1e5b2d4f6a8c0e";
  cluster.write("prometheus-token", promToken + "\n");
  const std::string password = "basic-pw-Zq8xK2mV9rT4";
  std::string promUrl = cluster.prometheusAddress();
  promUrl.insert(promUrl.find("://") + 3, "attune:" + password + "@");

  // The webhook's serving certificate and key, from files.
  const auto certDir = std::filesystem::path(cluster.path("webhook-certs"));
  std::filesystem::create_directories(certDir);
  auto ca = http::server::generateCertificateAuthority("secrets-ca", 24h * 30, clock.now());
  ASSERT_TRUE(ca) << ca.error().toString();
  auto serving = http::server::generateServingCertificate(
      *ca, {.commonName = "127.0.0.1", .ipAddresses = {"127.0.0.1"}, .validity = 24h * 10},
      clock.now());
  ASSERT_TRUE(serving) << serving.error().toString();
  std::ofstream(certDir / "tls.crt") << serving->certPem;
  std::ofstream(certDir / "tls.key") << serving->keyPem;

  const int webhookPort = testing::freeLocalPort();
  const int metricsPort = testing::freeLocalPort();
  std::vector<std::string> argv =
      cluster.controllerArgv(metricsPort, {"--log-level", "debug", "--prometheus-bearer-token-file",
                                           cluster.path("prometheus-token"), "--webhook-address",
                                           "127.0.0.1:" + std::to_string(webhookPort),
                                           "--webhook-cert-dir", certDir.string()});
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--prometheus-url") argv[i + 1] = promUrl;
  }
  auto controller = cluster.spawn(argv, "controller.log");
  ASSERT_TRUE(controller->running());

  cluster.write("policy.yaml", std::string(kPolicy));
  ASSERT_EQ(cluster.kubectl("apply -f " + cluster.path("policy.yaml")).exitCode, 0);
  const std::string policyToken = "policy-bearer-Rk7Tn2Wq9Ys4Xv6Bz1";
  std::string tokenPolicy(kTokenPolicy);
  tokenPolicy.replace(tokenPolicy.find("TOKEN"), 5, policyToken);
  tokenPolicy.replace(tokenPolicy.find("ADDRESS"), 7, cluster.prometheusAddress());
  cluster.write("token-policy.yaml", tokenPolicy);
  ASSERT_EQ(cluster.kubectl("apply -f " + cluster.path("token-policy.yaml")).exitCode, 0);
  // A pass that read metrics through the authenticated URL: recommendations in the status.
  EXPECT_TRUE(cluster.waitFor(3min, [&] {
    const json policy = cluster.getJson("attunepolicy -n apps web");
    const json recs = at(policy, {"status", "recommendations"});
    return recs.is_array() && !recs.empty();
  })) << cluster.log("controller.log");
  // The token policy's passes read its own source with the Secret's token: it recommends too.
  EXPECT_TRUE(cluster.waitFor(3min, [&] {
    const json policy = cluster.getJson("attunepolicy -n apps api");
    return at(policy, {"status", "workloads", "withRecommendations"}) == 1;
  })) << cluster.getJson("attunepolicy -n apps api").dump();

  // `kubectl get attunepolicies -A -o wide` shows every printer column filled (the public
  // operator's columns: Type, Workloads, Recs, Resized, Ready, Age, CPU Saved, Mem Saved).
  EXPECT_TRUE(cluster.waitFor(3min, [&] {
    const json policy = cluster.getJson("attunepolicy -n apps web");
    return at(policy, {"status", "workloads", "withRecommendations"}) == 1;
  })) << cluster.getJson("attunepolicy -n apps web").dump();
  const auto table = cluster.kubectl("get attunepolicies -A -o wide");
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("NAMESPACE   NAME   TYPE        WORKLOADS   RECS   RESIZED   READY"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("CPU SAVED   MEM SAVED"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("apps        web    Recommend   1           1      0         True"),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("<none>"), std::string::npos) << table.out;

  // An AdmissionReview over TLS, trusting the CA of the files.
  http::CurlHttpClient client({.caData = ca->certPem});
  const json pods = cluster.getJson("pods -n apps");
  ASSERT_FALSE(at(pods, {"items", 0}).is_null());
  const json review = {{"apiVersion", "admission.k8s.io/v1"},
                       {"kind", "AdmissionReview"},
                       {"request",
                        {{"uid", "0d8c6b7e-0000-4000-8000-000000000001"},
                         {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                         {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
                         {"namespace", "apps"},
                         {"operation", "CREATE"},
                         {"object", at(pods, {"items", 0})}}}};
  bool answered = false;
  EXPECT_TRUE(cluster.waitFor(30s, [&] {
    auto response =
        client.send({.method = http::HttpRequest::Method::kPost,
                     .url = "https://127.0.0.1:" + std::to_string(webhookPort) + "/mutate-pods",
                     .body = review.dump(),
                     .contentType = "application/json"});
    answered = response && response->status == 200 &&
               response->body.find("0d8c6b7e-0000-4000-8000-000000000001") != std::string::npos;
    return answered;
  }));

  // Every attune_* metric the dashboard and the alerts query is a family the operator exports.
  auto scraped = client.send({.method = http::HttpRequest::Method::kGet,
                              .url = "http://127.0.0.1:" + std::to_string(metricsPort) + "/metrics",
                              .body = {},
                              .contentType = {}});
  ASSERT_TRUE(scraped && scraped->status == 200);
  const std::regex family(R"(# TYPE (attune_[a-z_]+) )");
  std::set<std::string> exported;
  for (std::sregex_iterator it(scraped->body.begin(), scraped->body.end(), family), end; it != end;
       ++it) {
    exported.insert((*it)[1]);
  }
  const std::regex used(R"(\b(attune_[a-z_]+))");
  for (const char* file : {"deploy/components/monitoring/dashboards/attune.json",
                           "deploy/components/monitoring/prometheusrule.yaml"}) {
    std::ifstream in(testing::sourceDir() / file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty()) << file;
    for (std::sregex_iterator it(text.begin(), text.end(), used), end; it != end; ++it) {
      std::string name = (*it)[1];
      for (const char* suffix : {"_bucket", "_count", "_sum"}) {
        if (name.ends_with(suffix) && !exported.contains(name)) {
          name.resize(name.size() - std::string_view(suffix).size());
        }
      }
      EXPECT_TRUE(exported.contains(name)) << file << " uses " << name << ", not exported";
    }
  }

  int exitCode = -1;
  EXPECT_TRUE(controller->terminate(30s, &exitCode));
  const std::string log = cluster.log("controller.log");
  // The log is the full debug log of a run that did the work, not an empty file.
  ASSERT_NE(log.find("\"level\":\"debug\""), std::string::npos) << log.substr(0, 2000);
  for (const auto& [name, secret] : std::vector<std::pair<std::string, std::string>>{
           {"kubeconfig token", kubeToken},
           {"Prometheus bearer token", promToken},
           {"Prometheus basic-auth password", password},
           {"per-policy bearer token", policyToken},
           {"webhook serving key", serving->keyPem}}) {
    for (const std::string& needle : needles(secret)) {
      EXPECT_EQ(log.find(needle), std::string::npos) << name << " in the log: " << needle;
    }
  }
}

}  // namespace
}  // namespace attune
