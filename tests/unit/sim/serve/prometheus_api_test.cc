// The simulator's Prometheus query API (/prometheus): it recognises every query the operator's
// Prometheus backend writes, refuses any other PromQL, and the backend reading through it gets
// what SimMetricsSource returns when asked directly.
#include "sim/serve/prometheus_api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "metrics/prometheus/prometheus_source.h"
#include "metrics/prometheus/promql.h"
#include "sim/scenario/scenario_codec.h"
#include "sim/serve/api_server.h"

namespace attune::sim::serve {
namespace {

using Kind = OperatorQuery::Kind;
namespace promql = metrics::promql;

TEST(OperatorQueryTest, RecognisesEveryQueryOfThePrometheusBackendWithItsScopeAndWindow) {
  struct Case {
    Kind kind;
    bool perContainer;  // carries the exclusions
    bool windowed;
  };
  const Case cases[] = {
      {Kind::kCpuUsage, true, true},          {Kind::kCpuPressureWaiting, true, true},
      {Kind::kMemoryWorkingSet, true, false}, {Kind::kCpuThrottleRatio, true, true},
      {Kind::kOomKills, true, true},          {Kind::kRestartCounts, true, false},
      {Kind::kResources, true, false},        {Kind::kOwners, false, false},
  };
  const std::vector<promql::QueryScope> scopes = {
      {"shop", {}},
      {"team \"a\"\\b", {"a.b|c", "istio-proxy", "q\"x"}},
      {std::nullopt, {"sidecar"}},
      {std::nullopt, {}},
  };
  for (const auto& q : scopes) {
    for (const Case& c : cases) {
      for (Duration window :
           {Duration(std::chrono::minutes(5)), Duration(std::chrono::seconds(90))}) {
        std::string text;
        switch (c.kind) {
          case Kind::kCpuUsage:
            text = promql::cpuUsage(q, window);
            break;
          case Kind::kCpuPressureWaiting:
            text = promql::cpuPressureWaiting(q, window);
            break;
          case Kind::kMemoryWorkingSet:
            text = promql::memoryWorkingSet(q);
            break;
          case Kind::kCpuThrottleRatio:
            text = promql::cpuThrottleRatio(q, window);
            break;
          case Kind::kOomKills:
            text = promql::oomKills(q, window);
            break;
          case Kind::kRestartCounts:
            text = promql::restartCounts(q);
            break;
          case Kind::kResources:
            text = promql::resources(q);
            break;
          default:
            text = promql::owners(q);
            break;
        }
        auto got = recognizeOperatorQuery(text);
        ASSERT_TRUE(got) << text << ": " << got.error().toString();
        EXPECT_EQ(got->kind, c.kind) << text;
        EXPECT_EQ(got->scope.namespaces,
                  q.ns ? std::vector<std::string>{*q.ns} : std::vector<std::string>{})
            << text;
        EXPECT_EQ(got->scope.excludedContainers,
                  c.perContainer ? q.excludedContainers : std::vector<std::string>{})
            << text;
        if (c.windowed) {
          EXPECT_EQ(got->window, window) << text;
        }
      }
    }
  }
  auto load = recognizeOperatorQuery(promql::nodeLoad());
  ASSERT_TRUE(load);
  EXPECT_EQ(load->kind, Kind::kNodeLoad);
  auto capacity = recognizeOperatorQuery(promql::nodeCapacity());
  ASSERT_TRUE(capacity);
  EXPECT_EQ(capacity->kind, Kind::kNodeCapacity);
}

TEST(OperatorQueryTest, RefusesAnyOtherPromqlNamingIt) {
  const std::string usage = promql::cpuUsage({"shop", {}}, std::chrono::minutes(5));
  for (const std::string& text :
       {std::string("up"), usage + " > 0", usage.substr(0, usage.size() - 1),
        std::string("sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total"
                    "{container!=\"\",namespace=\"shop\"}[300s]))"),
        std::string()}) {
    auto got = recognizeOperatorQuery(text);
    ASSERT_FALSE(got) << text;
    EXPECT_EQ(got.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(got.error().message.find("not one of them: " + text), std::string::npos)
        << got.error().message;
  }
}

constexpr const char* kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  seed: 3
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
      limits: {cpu: 200m}
      model: {kind: steady, cpuCores: 400m, memoryBytes: 64Mi}
    - name: istio-proxy
      requests: {cpu: 50m, memory: 64Mi}
      model: {kind: steady, cpuCores: 20m, memoryBytes: 32Mi}
  - kind: Deployment
    namespace: jobs
    name: leaky
    replicas: 2
    containers:
    - name: worker
      requests: {cpu: 100m, memory: 64Mi}
      limits: {memory: 96Mi}
      model: {kind: steady, cpuCores: 50m, memoryBytes: 128Mi}
)";

// Sends the backend's requests to ApiServer::handle, as the HTTP server would.
class HandlerTransport final : public http::HttpTransport {
 public:
  explicit HandlerTransport(ApiServer& api) : api_(api) {}
  Result<http::HttpResponse> send(const http::HttpRequest& request) override {
    HttpRequest r;
    r.method = std::string(http::methodName(request.method));
    const std::size_t path = request.url.find('/', request.url.find("//") + 2);
    r.target = request.url.substr(path);
    const std::size_t q = r.target.find('?');
    r.path = r.target.substr(0, q);
    if (q != std::string::npos) r.query = http::server::parseQuery(r.target.substr(q + 1));
    r.headers["content-type"] = request.contentType;
    r.body = request.body;
    ++requests;
    HttpResponse answer = api_.handle(r);
    lastBody = answer.body;
    return http::HttpResponse{answer.status, std::move(answer.body), {}};
  }
  int requests = 0;
  std::string lastBody;

 private:
  ApiServer& api_;
};

class PrometheusApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DecodedScenario decoded = decodeScenario(kScenario, {});
    ASSERT_TRUE(decoded.scenario);
    auto simulation = Simulation::create(*decoded.scenario);
    ASSERT_TRUE(simulation) << simulation.error().toString();
    host_ = std::make_unique<SimHost>(std::move(*simulation), wall_, std::chrono::seconds(1));
    ASSERT_TRUE(
        host_->withSimulation([](Simulation& s) { return s.runFor(std::chrono::hours(2)); }));
    api_ = std::make_unique<ApiServer>(*host_, ApiServerOptions{});
    auto transport = std::make_unique<HandlerTransport>(*api_);
    transport_ = transport.get();
    metrics::PrometheusOptions options;
    options.client.address = "http://sim/prometheus";
    options.client.retries = 0;
    backend_ = std::make_unique<metrics::PrometheusSource>(options, std::move(transport), wall_);
    now_ = host_->inspect([](Simulation& s) { return s.clock().now(); });
  }

  // SimMetricsSource with the windows the backend asks for at `step`.
  template <typename Fn>
  auto direct(Duration step, Fn&& fn) {
    return host_->inspect([&](Simulation& s) {
      SimMetricsOptions options;
      options.minRateWindow = std::max(step, Duration(std::chrono::minutes(2)));
      options.throttleWindow = std::max(step, Duration(std::chrono::minutes(5)));
      SimMetricsSource source(s.recorder(), s.state(), options);
      return fn(source);
    });
  }

  SimulatedClock wall_{Time{}};
  std::unique_ptr<SimHost> host_;
  std::unique_ptr<ApiServer> api_;
  HandlerTransport* transport_ = nullptr;
  std::unique_ptr<metrics::PrometheusSource> backend_;
  Time now_;
};

void expectSameSeries(const Result<std::vector<metrics::ContainerSeries>>& viaApi,
                      const Result<std::vector<metrics::ContainerSeries>>& direct,
                      std::string_view what) {
  ASSERT_TRUE(viaApi) << what << ": " << viaApi.error().toString();
  ASSERT_TRUE(direct) << what;
  std::vector<metrics::ContainerSeries> nonEmpty;
  for (const auto& s : *direct) {
    if (!s.points.empty()) nonEmpty.push_back(s);
  }
  ASSERT_EQ(viaApi->size(), nonEmpty.size()) << what;
  ASSERT_FALSE(nonEmpty.empty()) << what;
  for (std::size_t i = 0; i < nonEmpty.size(); ++i) {
    EXPECT_EQ((*viaApi)[i].id, nonEmpty[i].id) << what;
    ASSERT_EQ((*viaApi)[i].points.size(), nonEmpty[i].points.size()) << what;
    for (std::size_t p = 0; p < nonEmpty[i].points.size(); ++p) {
      EXPECT_EQ((*viaApi)[i].points[p].time, nonEmpty[i].points[p].time) << what;
      EXPECT_EQ((*viaApi)[i].points[p].value, nonEmpty[i].points[p].value) << what;
    }
  }
}

TEST_F(PrometheusApiTest, TheBackendReadsWhatTheSimulatorsMetricsSourceReturns) {
  const metrics::Scope scope{{"shop", "jobs"}, {"istio-proxy"}};
  for (Duration step : {Duration(std::chrono::minutes(5)), Duration(std::chrono::minutes(1))}) {
    const metrics::Range range{now_ - std::chrono::minutes(90), now_, step};
    expectSameSeries(backend_->cpuUsage(scope, range),
                     direct(step, [&](auto& s) { return s.cpuUsage(scope, range); }), "cpu");
    expectSameSeries(backend_->memoryWorkingSet(scope, range),
                     direct(step, [&](auto& s) { return s.memoryWorkingSet(scope, range); }),
                     "memory");
    expectSameSeries(backend_->cpuThrottleRatio(scope, range),
                     direct(step, [&](auto& s) { return s.cpuThrottleRatio(scope, range); }),
                     "throttle");
  }
  const metrics::Range range{now_ - std::chrono::minutes(90), now_, std::chrono::minutes(5)};
  // The excluded sidecar is neither read nor returned.
  auto usage = backend_->cpuUsage(scope, range);
  ASSERT_TRUE(usage);
  for (const auto& s : *usage) EXPECT_NE(s.id.container, "istio-proxy");

  // OOM kills: the leaky workload's, each at the end of its step, as the backend places them.
  auto kills = backend_->oomKills(scope, range);
  ASSERT_TRUE(kills) << kills.error().toString();
  auto exact = direct(range.step, [&](auto& s) { return s.oomKills(scope, range); });
  ASSERT_TRUE(exact);
  ASSERT_FALSE(exact->empty());
  std::set<std::pair<metrics::ContainerId, Time>> steps;
  for (const auto& k : *exact) {
    const auto n = (k.time - range.start + range.step - Duration(1)) / range.step;
    steps.insert({k.id, range.start + n * range.step});
  }
  ASSERT_EQ(kills->size(), steps.size());
  for (const auto& k : *kills) {
    EXPECT_EQ(k.id.ns, "jobs");
    EXPECT_TRUE(steps.contains({k.id, k.time})) << toString(k.id);
    EXPECT_GT(k.memoryAtKill, Bytes(0));
  }

  // Instant queries: restarts, requests and limits, owners, node capacity.
  auto restarts = backend_->restartCounts(scope, now_);
  auto restartsDirect = direct(range.step, [&](auto& s) { return s.restartCounts(scope, now_); });
  ASSERT_TRUE(restarts && restartsDirect);
  ASSERT_EQ(restarts->size(), restartsDirect->size());
  bool restarted = false;
  for (std::size_t i = 0; i < restarts->size(); ++i) {
    EXPECT_EQ((*restarts)[i].id, (*restartsDirect)[i].id);
    EXPECT_EQ((*restarts)[i].restarts, (*restartsDirect)[i].restarts);
    restarted = restarted || (*restarts)[i].restarts > 0;
  }
  EXPECT_TRUE(restarted);
  auto resources = backend_->resources(scope, now_);
  auto resourcesDirect = direct(range.step, [&](auto& s) { return s.resources(scope, now_); });
  ASSERT_TRUE(resources && resourcesDirect);
  ASSERT_EQ(resources->size(), resourcesDirect->size());
  for (std::size_t i = 0; i < resources->size(); ++i) {
    EXPECT_EQ((*resources)[i].id, (*resourcesDirect)[i].id);
    EXPECT_EQ(static_cast<const api::ResourceValues&>((*resources)[i]),
              static_cast<const api::ResourceValues&>((*resourcesDirect)[i]));
  }
  auto owners = backend_->podOwners(scope, now_);
  auto ownersDirect = direct(range.step, [&](auto& s) { return s.podOwners(scope, now_); });
  ASSERT_TRUE(owners && ownersDirect);
  ASSERT_EQ(owners->size(), ownersDirect->size());
  for (std::size_t i = 0; i < owners->size(); ++i) {
    EXPECT_EQ((*owners)[i].pod, (*ownersDirect)[i].pod);
    EXPECT_EQ((*owners)[i].workload, (*ownersDirect)[i].workload);
  }
  auto capacity = backend_->nodeCapacity(now_);
  auto capacityDirect = direct(range.step, [&](auto& s) { return s.nodeCapacity(now_); });
  ASSERT_TRUE(capacity && capacityDirect);
  ASSERT_EQ(capacity->size(), 2u);
  for (std::size_t i = 0; i < capacity->size(); ++i) {
    EXPECT_EQ((*capacity)[i].node, (*capacityDirect)[i].node);
    EXPECT_EQ((*capacity)[i].cpu, (*capacityDirect)[i].cpu);
    EXPECT_EQ((*capacity)[i].memory, (*capacityDirect)[i].memory);
  }
}

TEST_F(PrometheusApiTest, AnswersOtherQueriesAndBadParametersWithPrometheusErrors) {
  const auto post = [&](std::string_view endpoint, std::string body) {
    HttpRequest r;
    r.method = "POST";
    r.path = r.target = "/prometheus" + std::string(endpoint);
    r.headers["content-type"] = "application/x-www-form-urlencoded";
    r.body = std::move(body);
    return api_->handle(r);
  };
  const auto expectError = [](const HttpResponse& r, int status, std::string_view fragment) {
    EXPECT_EQ(r.status, status) << r.body;
    const auto body = nlohmann::json::parse(r.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << r.body;
    EXPECT_EQ(body.value("status", ""), "error");
    EXPECT_NE(body.value("error", "").find(fragment), std::string::npos) << r.body;
  };
  expectError(post("/api/v1/query", "query=up"), 400, "not one of them: up");
  expectError(post("/api/v1/query", ""), 400, "missing query");
  expectError(post("/api/v1/labels", "query=up"), 404, "only /api/v1/query");
  const std::string usage =
      http::percentEncode(promql::cpuUsage({"shop", {}}, std::chrono::minutes(5)));
  expectError(post("/api/v1/query_range", "query=" + usage + "&start=abc&end=1&step=60"), 400,
              "\"start\"");
  expectError(post("/api/v1/query_range", "query=" + usage + "&start=100&end=1&step=60"), 400,
              "before start");
  expectError(post("/api/v1/query_range", "query=" + usage + "&start=1&end=100&step=0"), 400,
              "\"step\"");
  // Prometheus' bound: 11,000 steps is answered, 11,001 is refused.
  EXPECT_EQ(post("/api/v1/query_range", "query=" + usage + "&start=0&end=11000&step=1").status,
            200);
  expectError(post("/api/v1/query_range", "query=" + usage + "&start=0&end=11001&step=1"), 400,
              "exceeded maximum resolution of 11,000 points per timeseries");
  // A range query's text asked as an instant query, and the other way round.
  expectError(post("/api/v1/query", "query=" + usage), 400, "range query");
  const std::string restarts = http::percentEncode(promql::restartCounts({"shop", {}}));
  expectError(post("/api/v1/query_range", "query=" + restarts + "&start=1&end=100&step=60"), 400,
              "instant query");
}

}  // namespace
}  // namespace attune::sim::serve
