// PodDisruptionBudgets through ApiServer::handle, as kubectl and client-go send them: create,
// get, list as a Table, the status the disruption controller writes, PUT of the spec, delete,
// and the eviction subresource's answers (201, or 429 TooManyRequests with a DisruptionBudget
// cause, the pod kept).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario_codec.h"
#include "sim/serve/api_server.h"

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

constexpr const char* kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  seed: 1
  start: "2026-01-05T00:00:00Z"
  duration: 24h
  tick: 60s
  nodePools: [{name: node, count: 2, cpu: "8", memory: 32Gi}]
  workloads:
  - kind: Deployment
    namespace: shop
    name: web
    replicas: 3
    containers:
    - name: app
      requests: {cpu: 100m, memory: 128Mi}
      model: {kind: steady, cpuCores: 50m, memoryBytes: 64Mi}
)";

std::string budget(const std::string& minAvailable) {
  return R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web"},)"
         R"("spec":{"minAvailable":)" +
         minAvailable + R"(,"selector":{"matchLabels":{"app.kubernetes.io/name":"web"}}}})";
}

class BudgetRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DecodedScenario decoded = decodeScenario(kScenario, {});
    ASSERT_TRUE(decoded.scenario);
    auto simulation = Simulation::create(*decoded.scenario);
    ASSERT_TRUE(simulation) << simulation.error().toString();
    host_ = std::make_unique<SimHost>(std::move(*simulation), wall_, std::chrono::seconds(1));
    step(3);  // pods scheduled, started and Ready
    api_ = std::make_unique<ApiServer>(*host_, ApiServerOptions{});
  }

  void step(int times) {
    for (int i = 0; i < times; ++i) {
      ASSERT_TRUE(host_->withSimulation([](Simulation& s) { return s.step(); }));
    }
  }

  HttpResponse call(std::string method, std::string target, std::string body = {},
                    std::string accept = "application/json") {
    HttpRequest request;
    request.method = std::move(method);
    request.target = target;
    request.path = target;
    request.body = std::move(body);
    request.headers["content-type"] = "application/json";
    request.headers["accept"] = std::move(accept);
    return api_->handle(request);
  }

  Json json(const HttpResponse& r) { return Json::parse(r.body, nullptr, false); }

  std::string firstPod() {
    return json(call("GET", "/api/v1/namespaces/shop/pods"))["items"][0]["metadata"]["name"];
  }

  HttpResponse evict(const std::string& pod) {
    return call(
        "POST", "/api/v1/namespaces/shop/pods/" + pod + "/eviction",
        R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + pod + R"("}})");
  }

  static constexpr const char* kBudgets = "/apis/policy/v1/namespaces/shop/poddisruptionbudgets";

  SimulatedClock wall_{Time{}};
  std::unique_ptr<SimHost> host_;
  std::unique_ptr<ApiServer> api_;
};

TEST_F(BudgetRoutesTest, ACreatedBudgetGetsItsStatusFromTheDisruptionController) {
  HttpResponse created = call("POST", kBudgets, budget("2"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(json(created)["metadata"]["generation"], 1);
  step(1);
  const Json pdb = json(call("GET", std::string(kBudgets) + "/web"));
  EXPECT_EQ(pdb["kind"], "PodDisruptionBudget");
  EXPECT_EQ(pdb["status"]["expectedPods"], 3);
  EXPECT_EQ(pdb["status"]["currentHealthy"], 3);
  EXPECT_EQ(pdb["status"]["desiredHealthy"], 2);
  EXPECT_EQ(pdb["status"]["disruptionsAllowed"], 1);
  EXPECT_EQ(pdb["status"]["observedGeneration"], 1);
}

TEST_F(BudgetRoutesTest, TheTableHasKubectlsColumns) {
  ASSERT_EQ(call("POST", kBudgets, budget("\"50%\"")).status, 201);
  step(1);
  const Json table =
      json(call("GET", kBudgets, "", "application/json;as=Table;v=v1;g=meta.k8s.io"));
  ASSERT_EQ(table["kind"], "Table") << table.dump();
  std::vector<std::string> names;
  for (const Json& c : table["columnDefinitions"]) names.push_back(c["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Min Available", "Max Unavailable",
                                             "Allowed Disruptions", "Age"}));
  const Json cells = table["rows"][0]["cells"];
  EXPECT_EQ(cells[0], "web");
  EXPECT_EQ(cells[1], "50%");
  EXPECT_EQ(cells[2], "N/A");
  EXPECT_EQ(cells[3], 1);  // 3 healthy, 2 desired
}

TEST_F(BudgetRoutesTest, AnEvictionTheBudgetRefusesIs429AndThePodStays) {
  ASSERT_EQ(call("POST", kBudgets, budget("3")).status, 201);
  step(1);
  const std::string pod = firstPod();
  HttpResponse refused = evict(pod);
  EXPECT_EQ(refused.status, 429) << refused.body;
  const Json status = json(refused);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["reason"], "TooManyRequests");
  EXPECT_EQ(status["code"], 429);
  EXPECT_EQ(status["message"], "Cannot evict pod as it would violate the pod's disruption budget.");
  ASSERT_EQ(status["details"]["causes"].size(), 1u);
  EXPECT_EQ(status["details"]["causes"][0]["reason"], "DisruptionBudget");
  EXPECT_EQ(status["details"]["causes"][0]["message"],
            "The disruption budget web needs 3 healthy pods and has 3 currently");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/shop/pods/" + pod).status, 200);
}

TEST_F(BudgetRoutesTest, AnAllowedEvictionIsRecordedInTheBudget) {
  ASSERT_EQ(call("POST", kBudgets, budget("2")).status, 201);
  step(1);
  const std::string pod = firstPod();
  HttpResponse evicted = evict(pod);
  EXPECT_EQ(evicted.status, 201) << evicted.body;
  EXPECT_EQ(call("GET", "/api/v1/namespaces/shop/pods/" + pod).status, 404);
  const Json pdb = json(call("GET", std::string(kBudgets) + "/web"));
  EXPECT_EQ(pdb["status"]["disruptionsAllowed"], 0);
  EXPECT_TRUE(pdb["status"]["disruptedPods"].contains(pod));
  EXPECT_EQ(evict(firstPod()).status, 429);
}

TEST_F(BudgetRoutesTest, AnEvictionBeforeTheControllerRanIs429WithRetryAfter) {
  ASSERT_EQ(call("POST", kBudgets, budget("1")).status, 201);
  HttpResponse refused = evict(firstPod());
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(json(refused)["details"]["retryAfterSeconds"], 10);
}

TEST_F(BudgetRoutesTest, SpecChangesAdvanceTheGenerationAndInvalidSpecsAre422) {
  ASSERT_EQ(call("POST", kBudgets, budget("2")).status, 201);
  Json pdb = json(call("GET", std::string(kBudgets) + "/web"));
  pdb["spec"]["minAvailable"] = 1;
  HttpResponse updated = call("PUT", std::string(kBudgets) + "/web", pdb.dump());
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(json(updated)["metadata"]["generation"], 2);
  pdb = json(updated);
  pdb["spec"]["maxUnavailable"] = 1;
  HttpResponse invalid = call("PUT", std::string(kBudgets) + "/web", pdb.dump());
  EXPECT_EQ(invalid.status, 422) << invalid.body;
  EXPECT_EQ(json(invalid)["details"]["causes"][0]["field"], "spec");
  EXPECT_EQ(call("DELETE", std::string(kBudgets) + "/web").status, 200);
  EXPECT_EQ(call("GET", std::string(kBudgets) + "/web").status, 404);
}

TEST_F(BudgetRoutesTest, TwoBudgetsOverAPodAre500) {
  ASSERT_EQ(call("POST", kBudgets, budget("1")).status, 201);
  Json second = Json::parse(budget("1"));
  second["metadata"]["name"] = "web-too";
  ASSERT_EQ(call("POST", kBudgets, second.dump()).status, 201);
  step(1);
  HttpResponse refused = evict(firstPod());
  EXPECT_EQ(refused.status, 500);
  EXPECT_NE(json(refused)["message"].get<std::string>().find("more than one PodDisruptionBudget"),
            std::string::npos);
}

}  // namespace
}  // namespace attune::sim::serve
