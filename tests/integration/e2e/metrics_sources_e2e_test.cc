// Per-policy metrics sources end to end, with two real Prometheus servers scraping the same
// `attune sim serve` at once (and a third for the wrong-CA case):
//  - the flag's Prometheus (plain HTTP): the default of a policy without metricsSource.prometheus;
//  - a second one behind TLS and basic authentication (Prometheus's own --web.config.file), its
//    CA given to the operator with --prometheus-ca-file, reached by a policy whose
//    spec.metricsSource.prometheus names its https address and carries an
//    "Authorization: Basic ..." header;
//  - a third behind TLS with a certificate no configured CA signs.
// Both healthy policies get recommendations; the policy with a wrong password and the one
// whose server's certificate is not trusted fail closed (Ready=False, PrometheusUnavailable, the
// reason in the message; no resize although they run in Auto mode); a policy whose
// bearerTokenSecret does not exist yet fails closed the same way, recovers once the Secret is
// created, and moves to a new pooled client when the token is rotated (the old one dropped).
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/time.h"
#include "http/http_client.h"
#include "integration/e2e/sim_cluster.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::at;

constexpr const char* kWorkloads[] = {"flag", "secure", "token", "wrongpw", "wrongca"};

std::string scenarioYaml(Time start) {
  std::string yaml =
      "apiVersion: sim.attune.io/v1alpha1\n"
      "kind: Scenario\n"
      "metadata: {name: metrics-sources}\n"
      "spec:\n"
      "  seed: 9\n"
      "  start: \"" +
      formatRfc3339(start) +
      "\"\n"
      "  duration: 2h\n"
      "  tick: 1s\n"
      "  nodePools:\n"
      "  - {name: general, count: 1, cpu: \"8\", memory: 32Gi}\n"
      "  namespaces: [apps]\n"
      "  workloads:\n";
  for (const char* name : kWorkloads) {
    yaml += std::string("  - kind: Deployment\n    namespace: apps\n    name: ") + name +
            "\n    replicas: 1\n    containers:\n    - name: app\n"
            "      requests: {cpu: \"1\", memory: 1Gi}\n"
            "      limits: {cpu: \"2\", memory: 2Gi}\n"
            "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}\n";
  }
  return yaml;
}

// A policy on the Deployment of the same name; `prometheus` is the YAML flow mapping of
// spec.metricsSource.prometheus, or "" for none.
std::string policyYaml(const std::string& name, const std::string& mode,
                       const std::string& prometheus) {
  std::string yaml =
      "apiVersion: attune.io/v1alpha1\nkind: AttunePolicy\nmetadata: {name: " + name +
      ", namespace: apps}\nspec:\n  targetRef: {kind: Deployment, name: " + name +
      "}\n  metricsSource:\n    historyWindow: 10m\n    queryStep: 10s\n"
      "    rateWindow: 30s\n    minimumDataPoints: 6\n";
  if (!prometheus.empty()) yaml += "    prometheus: " + prometheus + "\n";
  yaml += "  updateStrategy: {type: " + mode + "}\n";
  return yaml;
}

std::string basicHeader(const std::string& user, const std::string& password) {
  // base64 by the coreutils tool, as a user would make it.
  const auto run = testing::runCommand("printf '%s' '" + user + ":" + password + "' | base64 -w0");
  return "Basic " + run.out;
}

json readyCondition(const json& policy) {
  const json conditions = at(policy, {"status", "conditions"});
  if (!conditions.is_array()) return json();
  for (const json& c : conditions) {
    if (c.value("type", "") == "Ready") return c;
  }
  return json();
}

// Its workload has a recommendation from usage data (status.recommendations also lists
// workloads still without data, "no usage data yet").
bool hasRecommendations(const json& policy) {
  return at(policy, {"status", "workloads", "withRecommendations"}) == 1;
}

// The log lines about passes (for a failure message).
std::string passLines(const std::string& log) {
  std::string out;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(start, end - start);
    if (line.find("pass") != std::string::npos || line.find("dropped") != std::string::npos ||
        line.find("\"level\":\"warn\"") != std::string::npos ||
        line.find("\"level\":\"error\"") != std::string::npos) {
      out += line.substr(0, 300) + "\n";
    }
    start = end + 1;
  }
  return out.size() > 6000 ? out.substr(out.size() - 6000) : out;
}

TEST(MetricsSourcesEndToEnd, EachPolicyReadsItsOwnPrometheus) {
  if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
  SystemClock clock;
  auto started = testing::SimCluster::start(scenarioYaml(clock.now()));
  ASSERT_TRUE(started.has_value()) << started.error().toString();
  testing::SimCluster& cluster = **started;

  const std::string password = "prom-basic-pw-4Kx9Lm2Qw7";
  auto secure = cluster.startPrometheus({.tls = true, .username = "attune", .password = password});
  ASSERT_TRUE(secure.has_value()) << secure.error().toString();
  auto untrusted = cluster.startPrometheus({.tls = true, .username = {}, .password = {}});
  ASSERT_TRUE(untrusted.has_value()) << untrusted.error().toString();
  const std::string secureAddress = (*secure)->address();

  const int metricsPort = testing::freeLocalPort();
  auto controller = cluster.spawn(
      cluster.controllerArgv(metricsPort, {"--prometheus-ca-file", (*secure)->caFile().string(),
                                           "--log-level", "debug"}),
      "controller.log");
  ASSERT_TRUE(controller->running());

  const std::string policies =
      policyYaml("flag", "Recommend", "") + "---\n" +
      policyYaml("secure", "Recommend",
                 "{address: \"" + secureAddress + "\", headers: {Authorization: \"" +
                     basicHeader("attune", password) + "\"}}") +
      "---\n" +
      policyYaml("token", "Recommend",
                 "{address: \"" + cluster.prometheusAddress() +
                     "\", bearerTokenSecret: {name: prom-token, key: token}}") +
      "---\n" +
      policyYaml("wrongpw", "Auto",
                 "{address: \"" + secureAddress + "\", headers: {Authorization: \"" +
                     basicHeader("attune", "not-the-password") + "\"}}") +
      "---\n" + policyYaml("wrongca", "Auto", "{address: \"" + (*untrusted)->address() + "\"}");
  cluster.write("policies.yaml", policies);
  ASSERT_EQ(cluster.kubectl("apply -f " + cluster.path("policies.yaml")).exitCode, 0);

  // Both healthy sources produce recommendations.
  EXPECT_TRUE(cluster.waitFor(3min, [&] {
    return hasRecommendations(cluster.getJson("attunepolicy -n apps flag")) &&
           hasRecommendations(cluster.getJson("attunepolicy -n apps secure"));
  })) << cluster.log("controller.log");

  // The secure policy's reads went to the second server: its own request counter says so.
  http::HttpClientOptions secureClient;
  secureClient.caFile = (*secure)->caFile();
  secureClient.basicAuth = http::BasicAuth{"attune", password};
  http::CurlHttpClient client(secureClient);
  auto scraped = client.send({.method = http::HttpRequest::Method::kGet,
                              .url = secureAddress + "/metrics",
                              .body = {},
                              .contentType = {}});
  ASSERT_TRUE(scraped && scraped->status == 200) << (scraped ? scraped->body : "no answer");
  const std::regex rangeQueries(
      R"re(prometheus_http_requests_total\{code="200",handler="/api/v1/query_range"\} (\d+))re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(scraped->body, m, rangeQueries)) << scraped->body.substr(0, 3000);
  EXPECT_GT(std::stoi(m[1]), 0);

  // The failing sources: closed, each with its reason.
  auto reasonOf = [&](const std::string& name) {
    const json ready = readyCondition(cluster.getJson("attunepolicy -n apps " + name));
    return ready.value("reason", "") + ": " + ready.value("message", "");
  };
  for (const auto& [name, why] : std::vector<std::pair<std::string, std::string>>{
           {"wrongpw", "HTTP 401"},
           {"wrongca", "certificate"},
           {"token", "cannot read Secret apps/prom-token"}}) {
    EXPECT_TRUE(cluster.waitFor(1min,
                                [&] {
                                  const std::string r = reasonOf(name);
                                  return r.starts_with("PrometheusUnavailable: ") &&
                                         r.find(why) != std::string::npos;
                                }))
        << name << ": " << reasonOf(name);
    EXPECT_FALSE(hasRecommendations(cluster.getJson("attunepolicy -n apps " + name)))
        << name << ": " << cluster.getJson("attunepolicy -n apps " + name)["status"].dump(1);
  }
  // Auto mode, yet no resize: every pod of the failing policies keeps its requests.
  const json pods = cluster.getJson("pods -n apps");
  ASSERT_TRUE(pods.contains("items"));
  int checked = 0;
  for (const json& pod : pods["items"]) {
    const std::string name = at(pod, {"metadata", "name"}).get<std::string>();
    if (!name.starts_with("wrongpw-") && !name.starts_with("wrongca-")) continue;
    EXPECT_EQ(at(pod, {"spec", "containers", 0, "resources", "requests", "cpu"}), "1") << name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);

  // The Secret appears: the token policy recovers from the next pass on.
  cluster.write("secret.yaml",
                "apiVersion: v1\nkind: Secret\nmetadata: {name: prom-token, namespace: apps}\n"
                "type: Opaque\nstringData: {token: policy-token-Hq5Zr8Vt3Wn6}\n");
  ASSERT_EQ(cluster.kubectl("apply -f " + cluster.path("secret.yaml")).exitCode, 0);
  EXPECT_TRUE(cluster.waitFor(2min, [&] {
    return hasRecommendations(cluster.getJson("attunepolicy -n apps token"));
  })) << reasonOf("token");
  EXPECT_EQ(reasonOf("secure").rfind("PrometheusUnavailable", 0), std::string::npos)
      << reasonOf("secure");

  // A rotated token: the next pass reads it and uses a new client; the old token's client is
  // dropped after the first full pass without it (the only pooled client that can go unused).
  ASSERT_EQ(cluster.log("controller.log").find("dropped unused Prometheus clients"),
            std::string::npos);
  cluster.write("secret.yaml",
                "apiVersion: v1\nkind: Secret\nmetadata: {name: prom-token, namespace: apps}\n"
                "type: Opaque\nstringData: {token: rotated-token-Jd4Fs7Kp2Lq9}\n");
  ASSERT_EQ(cluster.kubectl("apply -f " + cluster.path("secret.yaml")).exitCode, 0);
  EXPECT_TRUE(cluster.waitFor(
      1min,
      [&] {
        return cluster.log("controller.log").find("dropped unused Prometheus clients") !=
               std::string::npos;
      }))
      << passLines(cluster.log("controller.log"))
      << cluster.kubectl("get secret -n apps prom-token -o json").out;
  EXPECT_TRUE(hasRecommendations(cluster.getJson("attunepolicy -n apps token")));
  EXPECT_EQ(reasonOf("token").rfind("PrometheusUnavailable", 0), std::string::npos)
      << reasonOf("token");

  int exitCode = -1;
  EXPECT_TRUE(controller->terminate(30s, &exitCode));
  const std::string log = cluster.log("controller.log");
  EXPECT_EQ(log.find(password), std::string::npos);
  EXPECT_EQ(log.find("policy-token-Hq5Zr8Vt3Wn6"), std::string::npos);
  EXPECT_EQ(log.find("rotated-token-Jd4Fs7Kp2Lq9"), std::string::npos);
}

}  // namespace
}  // namespace attune
