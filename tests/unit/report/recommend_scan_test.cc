// The `attune recommend` pipeline (src/cli/recommend_scan.h) over a small in-test source:
// grouping pods into workloads, aggregation across pods, current resources and replicas.
#include "cli/recommend_scan.h"

#include "api/policy/policy_defaults.h"
#include "usage/pod_aggregation.h"

#include <gtest/gtest.h>

#include <map>

namespace attune::cli {
namespace {

using namespace attune::literals;
using metrics::ContainerId;
using metrics::ContainerSeries;
using std::chrono::minutes;

const Time kT0 = Time(std::chrono::seconds(1714521600));  // 2024-05-01T00:00:00Z

// Answers from fixed vectors, filtered by scope; records every call.
class FixedSource final : public metrics::MetricsSource {
 public:
  struct Data {
    std::vector<ContainerSeries> cpu;
    std::vector<ContainerSeries> psi;
    std::vector<ContainerSeries> memory;
    std::vector<metrics::OomKill> oomKills;
    std::vector<metrics::ContainerResourceValues> resources;
    std::vector<metrics::PodOwner> owners;
  };
  Data data;
  std::map<std::string, int> calls;
  std::optional<Error> failure;

  template <typename T>
  Result<std::vector<T>> answer(const std::string& name, const metrics::Scope& scope,
                                const std::vector<T>& all) {
    ++calls[name];
    if (failure) return std::unexpected(*failure);
    std::vector<T> out;
    for (const T& v : all) {
      if (scope.contains(nsOf(v))) out.push_back(v);
    }
    return out;
  }
  static const std::string& nsOf(const ContainerSeries& v) { return v.id.ns; }
  static const std::string& nsOf(const metrics::OomKill& v) { return v.id.ns; }
  static const std::string& nsOf(const metrics::ContainerResourceValues& v) { return v.id.ns; }
  static const std::string& nsOf(const metrics::PodOwner& v) { return v.ns; }

  Result<std::vector<ContainerSeries>> cpuUsage(const metrics::Scope& s,
                                                const metrics::Range&) override {
    return answer("cpu", s, data.cpu);
  }
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const metrics::Scope& s,
                                                          const metrics::Range&) override {
    return answer("psi", s, data.psi);
  }
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const metrics::Scope& s,
                                                        const metrics::Range&) override {
    return answer("memory", s, data.memory);
  }
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const metrics::Scope&,
                                                        const metrics::Range&) override {
    return std::vector<ContainerSeries>{};
  }
  Result<std::vector<metrics::OomKill>> oomKills(const metrics::Scope& s,
                                                 const metrics::Range&) override {
    return answer("oom", s, data.oomKills);
  }
  Result<std::vector<metrics::RestartCount>> restartCounts(const metrics::Scope&, Time) override {
    return std::vector<metrics::RestartCount>{};
  }
  Result<std::vector<metrics::ContainerResourceValues>> resources(const metrics::Scope& s,
                                                                  Time) override {
    return answer("resources", s, data.resources);
  }
  Result<std::vector<metrics::PodOwner>> podOwners(const metrics::Scope& s, Time) override {
    return answer("owners", s, data.owners);
  }
  Result<std::vector<metrics::NodeSeries>> nodeLoad(const metrics::Range&) override {
    return std::vector<metrics::NodeSeries>{};
  }
  Result<std::vector<metrics::NodeCapacity>> nodeCapacity(Time) override {
    return std::vector<metrics::NodeCapacity>{};
  }
};

// Constant `value` every 5 minutes from kT0 (288 points: the whole UTC day of kT0).
ContainerSeries constant(ContainerId id, double value, int points = 288) {
  ContainerSeries s{.id = id};
  for (int i = 0; i < points; ++i) s.points.push_back({kT0 + minutes(5 * i), value});
  return s;
}

ScanRequest request() {
  // The statistics count whole UTC days: with a 1-day history, the day holding `at`.
  ScanRequest r{.at = kT0 + std::chrono::hours(24) - minutes(5),
                .history = std::chrono::hours(24),
                .step = minutes(5),
                .strategies = {"krr", "attune"}};
  api::applyDefaults(r.policy);
  return r;
}

// shop: web-a and web-b of Deployment web (app: 0.2 and 0.4 cores, 100Mi and 300Mi), lonely
// (no owner, 20 points only); data: db-0 of StatefulSet db.
FixedSource cluster() {
  FixedSource s;
  const ContainerId a{"shop", "web-a", "app"}, b{"shop", "web-b", "app"};
  const ContainerId lonely{"shop", "lonely", "main"}, db{"data", "db-0", "pg"};
  s.data.cpu = {constant(a, 0.2), constant(b, 0.4), constant(lonely, 0.1, 20), constant(db, 1)};
  s.data.psi = {constant(a, 0.5)};  // web-a's adjusted CPU is 0.3, still below web-b's 0.4
  s.data.memory = {constant(a, 100 << 20), constant(b, 300 << 20), constant(lonely, 1 << 20, 20),
                   constant(db, 1 << 30)};
  s.data.resources = {{{100_m, 500_m, 128_Mi, std::nullopt}, a},
                      {{200_m, std::nullopt, 64_Mi, 512_Mi}, b},
                      {{1000_m, 2000_m, 2_Gi, 2_Gi}, db}};
  s.data.owners = {{"shop", "web-a", {"shop", "Deployment", "web"}},
                   {"shop", "web-b", {"shop", "Deployment", "web"}},
                   {"data", "db-0", {"data", "StatefulSet", "db"}}};
  s.data.oomKills = {{db, kT0 + std::chrono::hours(2), 1536_Mi}};
  return s;
}

const report::WorkloadReport* find(const report::RecommendReport& r, const std::string& name) {
  for (const auto& w : r.workloads) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

Result<report::RecommendReport> scan(FixedSource& source, const ScanRequest& req,
                                     std::vector<std::string>* lines = nullptr) {
  return scanRecommendations(source, req, [lines](const std::string& line) {
    if (lines != nullptr) lines->push_back(line);
  });
}

TEST(RecommendScanTest, GroupsPodsIntoWorkloadsAndQueriesOncePerMetric) {
  FixedSource source = cluster();
  std::vector<std::string> progress;
  auto r = scan(source, request(), &progress);
  ASSERT_TRUE(r) << r.error().toString();
  ASSERT_EQ(r->workloads.size(), 3u);
  // Ordered by (namespace, kind, name); the pod without owner is its own "Pod" workload.
  EXPECT_EQ(r->workloads[0].name, "db");
  EXPECT_EQ(r->workloads[1].kind, "Deployment");
  EXPECT_EQ(r->workloads[2].kind, "Pod");
  EXPECT_EQ(r->workloads[2].name, "lonely");
  for (const char* metric : {"cpu", "psi", "memory", "oom", "resources", "owners"}) {
    EXPECT_EQ(source.calls[metric], 1) << metric;
  }
  EXPECT_FALSE(progress.empty());
  EXPECT_EQ(progress.front(), "querying cpu usage in all namespaces…");
  EXPECT_EQ(progress.back(), "3 workloads, 3 containers");
}

TEST(RecommendScanTest, MaxAggregationAcrossPodsAndCurrentIsTheMaximum) {
  FixedSource source = cluster();
  auto r = scan(source, request());
  ASSERT_TRUE(r);
  const auto* web = find(*r, "web");
  ASSERT_NE(web, nullptr);
  EXPECT_EQ(web->replicas, 2);
  ASSERT_EQ(web->containers.size(), 1u);
  const auto& app = web->containers[0];
  EXPECT_EQ(app.dataPoints, 288);  // one aggregated sample per timestamp
  EXPECT_EQ(app.current.cpuRequest, 200_m);
  EXPECT_EQ(app.current.cpuLimit, 500_m);
  EXPECT_EQ(app.current.memoryRequest, 128_Mi);
  EXPECT_EQ(app.current.memoryLimit, 512_Mi);
  ASSERT_EQ(app.results.size(), 2u);
  const auto& krr = app.results[0];
  EXPECT_EQ(krr.strategy, "krr");
  ASSERT_TRUE(krr.recommendation.enoughData) << krr.recommendation.reason;
  // krr: CPU p95 of max(0.2 × 1.5, 0.4) = 0.4 cores; memory max 300Mi × 1.15.
  EXPECT_NEAR(krr.recommendation.resources.cpuRequest->value(), 400, 400 * 0.01);
  EXPECT_NEAR(krr.recommendation.resources.memoryRequest->value(), 300.0 * 1.15 * (1 << 20),
              300.0 * 1.15 * (1 << 20) * 0.01);
}

TEST(RecommendScanTest, PsiRateIsApplied) {
  FixedSource source = cluster();
  source.data.psi = {constant({"shop", "web-a", "app"}, 2.0)};  // web-a: 0.2 × 3 = 0.6 cores
  auto r = scan(source, request());
  ASSERT_TRUE(r);
  const auto& krr = find(*r, "web")->containers[0].results[0].recommendation;
  EXPECT_NEAR(krr.resources.cpuRequest->value(), 600, 6);
}

TEST(RecommendScanTest, NotEnoughDataForAShortSeries) {
  FixedSource source = cluster();
  auto r = scan(source, request());
  ASSERT_TRUE(r);
  const auto* lonely = find(*r, "lonely");
  ASSERT_NE(lonely, nullptr);
  EXPECT_EQ(lonely->replicas, 0);  // no resources reported for it
  for (const auto& s : lonely->containers[0].results) {
    EXPECT_FALSE(s.recommendation.enoughData);
    EXPECT_EQ(s.recommendation.reason, "20 of 48 data points");
    EXPECT_FALSE(s.recommendation.resources.cpuRequest.has_value());
  }
}

TEST(RecommendScanTest, NoneAggregationKeepsEveryPodsSamples) {
  FixedSource source = cluster();
  ScanRequest req = request();
  req.policy.spec.metricsSource.podAggregation = api::PodAggregation::kNone;
  auto r = scan(source, req);
  ASSERT_TRUE(r);
  EXPECT_EQ(find(*r, "web")->containers[0].dataPoints, 2 * 288);
}

TEST(RecommendScanTest, AggregateSamplesAvgAndMax) {
  const std::vector<std::vector<stats::Sample>> pods = {
      {{kT0, 0.2, 0.5, 100}, {kT0 + minutes(5), 0.2, std::nullopt, 100}},
      {{kT0, 0.4, std::nullopt, 300}}};
  const auto avg = usage::aggregateSamples(pods, api::PodAggregation::kAvg);
  ASSERT_EQ(avg.size(), 2u);
  EXPECT_DOUBLE_EQ(avg[0].cpuCores, 0.3);
  EXPECT_DOUBLE_EQ(avg[0].memoryBytes, 200);
  // Mean adjusted CPU (0.3 + 0.4) / 2 = 0.35 = 0.3 × (1 + rate).
  EXPECT_NEAR(avg[0].cpuCores * (1 + *avg[0].psiCpuWaitingRate), 0.35, 1e-12);
  EXPECT_FALSE(avg[1].psiCpuWaitingRate.has_value());
  const auto max = usage::aggregateSamples(pods, api::PodAggregation::kMax);
  EXPECT_DOUBLE_EQ(max[0].cpuCores, 0.4);
  EXPECT_DOUBLE_EQ(max[0].memoryBytes, 300);
  EXPECT_EQ(usage::aggregateSamples(pods, api::PodAggregation::kNone).size(), 3u);
}

TEST(RecommendScanTest, NamespaceScopeAndSelector) {
  FixedSource source = cluster();
  ScanRequest req = request();
  req.scope.namespaces = {"shop"};
  req.selector = "deployment/w*";
  auto r = scan(source, req);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->workloads.size(), 1u);
  EXPECT_EQ(r->workloads[0].name, "web");

  req.scope.namespaces = {"empty"};
  req.selector.clear();
  r = scan(source, req);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->workloads.empty());
}

TEST(RecommendScanTest, ExcludedContainersAndKnownSidecarsAreLeftOut) {
  FixedSource source = cluster();
  const ContainerId sidecar{"shop", "web-a", "istio-proxy"}, extra{"shop", "web-a", "log-shipper"};
  source.data.cpu.push_back(constant(sidecar, 0.05));
  source.data.memory.push_back(constant(sidecar, 64 << 20));
  source.data.cpu.push_back(constant(extra, 0.05));
  source.data.memory.push_back(constant(extra, 64 << 20));
  ScanRequest req = request();
  req.policy.spec.excludedContainers = {"log-shipper"};
  auto r = scan(source, req);
  ASSERT_TRUE(r);
  const auto* web = find(*r, "web");
  ASSERT_NE(web, nullptr);
  ASSERT_EQ(web->containers.size(), 1u);
  EXPECT_EQ(web->containers[0].name, "app");

  // With excludeKnownSidecars: false the sidecar is analysed; the listed container still is not.
  req.policy.spec.excludeKnownSidecars = false;
  r = scan(source, req);
  ASSERT_TRUE(r);
  web = find(*r, "web");
  ASSERT_NE(web, nullptr);
  ASSERT_EQ(web->containers.size(), 2u);
  EXPECT_EQ(web->containers[1].name, "istio-proxy");
}

TEST(RecommendScanTest, MatchesSelector) {
  const api::WorkloadRef web{"shop", "Deployment", "web-frontend"};
  EXPECT_TRUE(matchesSelector(web, ""));
  EXPECT_TRUE(matchesSelector(web, "web-*"));
  EXPECT_TRUE(matchesSelector(web, "Deployment/web-frontend"));
  EXPECT_TRUE(matchesSelector(web, "deployment/*"));
  EXPECT_FALSE(matchesSelector(web, "StatefulSet/web-*"));
  EXPECT_FALSE(matchesSelector(web, "db"));
}

TEST(RecommendScanTest, OomKillsReachTheStatistics) {
  FixedSource source = cluster();
  ScanRequest req = request();
  req.strategies = {"vpa"};
  auto r = scan(source, req);
  ASSERT_TRUE(r);
  const auto& vpa = find(*r, "db")->containers[0].results[0].recommendation;
  ASSERT_TRUE(vpa.enoughData) << vpa.reason;
  // OOM bump max(1536Mi + 100Mi, 1536Mi × 1.2) × 1.15 margin, above the 1Gi usage.
  EXPECT_GE(vpa.resources.memoryRequest->value(), static_cast<std::int64_t>(1536.0 * 1.2 * 1.15)
                                                      << 20);
}

TEST(RecommendScanTest, SourceFailureIsReturned) {
  FixedSource source = cluster();
  source.failure = Error{ErrorCode::kUnavailable, "connection refused"};
  auto r = scan(source, request());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(source.calls["psi"], 0);  // stops at the first failure
}

TEST(RecommendScanTest, HistoryMustBeWholeDays) {
  ScanRequest req = request();
  req.history = std::chrono::hours(36);
  EXPECT_FALSE(statsConfig(req));
  req.history = std::chrono::hours(48);
  auto c = statsConfig(req);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->cpu.hourOfDayQuantile, 0.95);
  EXPECT_DOUBLE_EQ(c->memory.hourOfDayQuantile, 0.99);
}

}  // namespace
}  // namespace attune::cli
