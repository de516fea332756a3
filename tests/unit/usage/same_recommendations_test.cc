// The controller and `attune recommend` read usage through one pipeline (usage/usage_history.h):
// fed the same series, every strategy recommends the same for every container, although the
// controller reads the history in hourly increments and the scan reads it at once.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "api/policy/policy_defaults.h"
#include "cli/recommend_scan.h"
#include "controller/policy_pass.h"
#include "controller/workload_recommendations.h"
#include "recommend/recommendation.h"
#include "safety/resize_record.h"

namespace attune {
namespace {

using namespace attune::literals;
using metrics::ContainerId;
using metrics::ContainerSeries;
using std::chrono::hours;
using std::chrono::minutes;

const Time kNow = Time(std::chrono::seconds(1714521600)) + hours(24 * 8);  // on the 5m grid
const Duration kWindow = hours(24 * 7);
const Duration kStep = minutes(5);
const api::WorkloadRef kWeb{"shop", "Deployment", "web"};
const std::vector<std::string> kPods{"web-a", "web-b"};
const std::vector<std::string> kContainers{"app", "worker"};
const std::vector<std::string> kStrategies{"adaptive", "attune", "cruisekube", "vpa", "krr"};

api::ResourceValues currentOf(const std::string& pod, const std::string& container) {
  if (container == "app") {
    return pod == "web-a" ? api::ResourceValues{500_m, 1000_m, 256_Mi, 512_Mi}
                          : api::ResourceValues{400_m, std::nullopt, 384_Mi, 512_Mi};
  }
  return {200_m, 400_m, 128_Mi, std::nullopt};
}

// Every series over [kNow − kWindow, kNow]; answers only what a query's range covers, as a
// real backend does, so an incremental reader sees each sample once.
class SeriesSource final : public metrics::MetricsSource {
 public:
  SeriesSource() {
    int salt = 0;
    for (const std::string& pod : kPods) {
      for (const std::string& container : kContainers) {
        const ContainerId id{"shop", pod, container};
        ContainerSeries cpu{.id = id}, psi{.id = id}, memory{.id = id};
        ++salt;
        for (Time t = kNow - kWindow; t <= kNow; t += kStep) {
          const double i = static_cast<double>((t - (kNow - kWindow)) / kStep);
          const double daily = 1 + std::sin(i * 2 * M_PI / 288);  // one cycle a day
          const double noise = std::fmod(i * 0.618 * salt, 1.0);
          cpu.points.push_back({t, 0.05 * salt * (daily + noise)});
          if (container == "app") psi.points.push_back({t, 0.1 * noise});
          memory.points.push_back({t, (64.0 + 16 * salt * daily + 8 * noise) * (1 << 20)});
        }
        cpu_.push_back(std::move(cpu));
        if (!psi.points.empty()) psi_.push_back(std::move(psi));
        memory_.push_back(std::move(memory));
      }
    }
    ooms_.push_back({{"shop", "web-b", "app"}, kNow - hours(30), 700_Mi});
  }

  Result<std::vector<ContainerSeries>> cpuUsage(const metrics::Scope&,
                                                const metrics::Range& r) override {
    return within(cpu_, r);
  }
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const metrics::Scope&,
                                                          const metrics::Range& r) override {
    return within(psi_, r);
  }
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const metrics::Scope&,
                                                        const metrics::Range& r) override {
    return within(memory_, r);
  }
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const metrics::Scope&,
                                                        const metrics::Range&) override {
    return std::vector<ContainerSeries>{};
  }
  Result<std::vector<metrics::OomKill>> oomKills(const metrics::Scope&,
                                                 const metrics::Range& r) override {
    std::vector<metrics::OomKill> out;
    for (const auto& k : ooms_) {
      if (k.time >= r.start && k.time <= r.end) out.push_back(k);
    }
    return out;
  }
  Result<std::vector<metrics::RestartCount>> restartCounts(const metrics::Scope&, Time) override {
    return std::vector<metrics::RestartCount>{};
  }
  Result<std::vector<metrics::ContainerResourceValues>> resources(const metrics::Scope&,
                                                                  Time) override {
    std::vector<metrics::ContainerResourceValues> out;
    for (const std::string& pod : kPods) {
      for (const std::string& c : kContainers) out.push_back({currentOf(pod, c), {"shop", pod, c}});
    }
    return out;
  }
  Result<std::vector<metrics::PodOwner>> podOwners(const metrics::Scope&, Time) override {
    std::vector<metrics::PodOwner> out;
    for (const std::string& pod : kPods) out.push_back({"shop", pod, kWeb});
    return out;
  }
  Result<std::vector<metrics::NodeSeries>> nodeLoad(const metrics::Range&) override {
    return std::vector<metrics::NodeSeries>{};
  }
  Result<std::vector<metrics::NodeCapacity>> nodeCapacity(Time) override {
    return std::vector<metrics::NodeCapacity>{};
  }

 private:
  static std::vector<ContainerSeries> within(const std::vector<ContainerSeries>& all,
                                             const metrics::Range& r) {
    std::vector<ContainerSeries> out;
    for (const auto& s : all) {
      ContainerSeries part{.id = s.id};
      for (const auto& p : s.points) {
        if (p.time >= r.start && p.time <= r.end) part.points.push_back(p);
      }
      if (!part.points.empty()) out.push_back(std::move(part));
    }
    return out;
  }

  std::vector<ContainerSeries> cpu_, psi_, memory_;
  std::vector<metrics::OomKill> ooms_;
};

api::AttunePolicy policy() {
  api::AttunePolicy p;
  p.metadata.namespace_ = "shop";
  p.metadata.name = "web";
  p.spec.targetRef.kind = api::TargetKind::kDeployment;
  p.spec.targetRef.name = "web";
  p.spec.metricsSource.historyWindow = kWindow;
  p.spec.metricsSource.queryStep = kStep;
  api::applyDefaults(p);
  return p;
}

std::vector<api::Pod> pods() {
  std::vector<api::Pod> out;
  for (const std::string& name : kPods) {
    api::Pod pod;
    pod.metadata.namespace_ = "shop";
    pod.metadata.name = name;
    pod.spec.nodeName = "node-1";
    pod.status.phase = "Running";
    for (const std::string& c : kContainers) {
      pod.spec.containers.push_back(
          {.name = c, .resources = safety::withResourceValues({}, currentOf(name, c))});
    }
    out.push_back(std::move(pod));
  }
  return out;
}

// The controller's path: the policy's state, refreshed every hour over the last six hours,
// then the targets' recommendations.
std::vector<controller::RecommendedWorkload> controllerPath(metrics::MetricsSource& source,
                                                            const std::string& strategy,
                                                            const std::vector<api::Pod>& all) {
  const api::AttunePolicy p = policy();
  auto state = controller::PolicyState::create(p, strategy, 1);
  EXPECT_TRUE(state) << state.error().toString();
  controller::TargetWorkload target{.ref = kWeb, .replicas = 2, .updatedReplicas = 2};
  for (const api::Pod& pod : all) target.pods.push_back(&pod);
  const usage::WorkloadOf workloadOf = [](const ContainerId&) -> std::optional<api::WorkloadRef> {
    return kWeb;
  };
  for (Time t = kNow - hours(6); t <= kNow; t += hours(1)) {
    EXPECT_TRUE((*state)->usage.refresh(source, {{"shop"}, {}}, t, workloadOf));
  }
  return controller::recommendTargets({target}, (*state)->usage, *(*state)->strategy, p, kNow);
}

TEST(SameRecommendationsTest, ControllerAndRecommendCommandAgreeForEveryStrategy) {
  SeriesSource source;
  cli::ScanRequest request{.source = "test",
                           .scope = {{"shop"}, {}},
                           .at = kNow,
                           .history = kWindow,
                           .step = kStep,
                           .selector = {},
                           .strategies = kStrategies,
                           .policy = policy()};
  auto scan = cli::scanRecommendations(source, request, [](const std::string&) {});
  ASSERT_TRUE(scan) << scan.error().toString();
  ASSERT_EQ(scan->workloads.size(), 1u);
  const report::WorkloadReport& scanned = scan->workloads[0];
  ASSERT_EQ(scanned.containers.size(), kContainers.size());

  const std::vector<api::Pod> all = pods();
  for (std::size_t s = 0; s < kStrategies.size(); ++s) {
    const auto tracked = controllerPath(source, kStrategies[s], all);
    ASSERT_EQ(tracked.size(), 1u);
    ASSERT_EQ(tracked[0].containers.size(), kContainers.size());
    for (std::size_t c = 0; c < kContainers.size(); ++c) {
      const controller::RecommendedContainer& fromController = tracked[0].containers[c];
      const report::ContainerReport& fromScan = scanned.containers[c];
      const std::string what = kStrategies[s] + " " + fromScan.name;
      ASSERT_EQ(fromController.name, fromScan.name);
      EXPECT_EQ(fromController.dataPoints, fromScan.dataPoints) << what;
      EXPECT_EQ(fromController.current, fromScan.current) << what;
      const recommend::Recommendation& a = fromController.recommendation;
      const recommend::Recommendation& b = fromScan.results[s].recommendation;
      EXPECT_TRUE(a.enoughData) << what << ": " << a.reason;
      EXPECT_EQ(a.enoughData, b.enoughData) << what;
      EXPECT_EQ(a.reason, b.reason) << what;
      EXPECT_EQ(a.resources, b.resources) << what;
      EXPECT_EQ(a.explanation, b.explanation) << what;
    }
  }
}

// A pass reusing cached recommendations (the controller's RecommendationCache) gives what a
// pass computing them gives, in the status too; the rationale's text is made once and shared.
TEST(SameRecommendationsTest, CachedRecommendationsAndTheirStatusMatchComputedOnes) {
  SeriesSource source;
  const std::vector<api::Pod> all = pods();
  const api::AttunePolicy p = policy();
  for (const std::string& strategy : kStrategies) {
    auto state = controller::PolicyState::create(p, strategy, 1);
    ASSERT_TRUE(state) << state.error().toString();
    controller::TargetWorkload target{.ref = kWeb, .replicas = 2, .updatedReplicas = 2};
    for (const api::Pod& pod : all) target.pods.push_back(&pod);
    const usage::WorkloadOf workloadOf = [](const ContainerId&) -> std::optional<api::WorkloadRef> {
      return kWeb;
    };
    for (Time t = kNow - hours(6); t <= kNow; t += hours(1)) {
      ASSERT_TRUE((*state)->usage.refresh(source, {{"shop"}, {}}, t, workloadOf));
    }
    const auto& usage = (*state)->usage;
    const recommend::Strategy& strategyOf = *(*state)->strategy;
    controller::RecommendationCache cache;
    const auto computed = controller::recommendTargets({target}, usage, strategyOf, p, kNow);
    const auto first = controller::recommendTargets({target}, usage, strategyOf, p, kNow, &cache);
    const auto second = controller::recommendTargets({target}, usage, strategyOf, p, kNow, &cache);
    ASSERT_EQ(computed.size(), 1u);
    ASSERT_EQ(first.size(), 1u);
    ASSERT_EQ(second.size(), 1u);
    ASSERT_EQ(second[0].containers.size(), kContainers.size());
    for (std::size_t c = 0; c < kContainers.size(); ++c) {
      const std::string what = strategy + " " + kContainers[c];
      const controller::RecommendedContainer& a = computed[0].containers[c];
      const controller::RecommendedContainer& b = second[0].containers[c];
      EXPECT_TRUE(a.recommendation.enoughData) << what;
      EXPECT_EQ(a.recommendation.resources, b.recommendation.resources) << what;
      EXPECT_EQ(a.recommendation.enoughData, b.recommendation.enoughData) << what;
      EXPECT_EQ(a.recommendation.reason, b.recommendation.reason) << what;
      EXPECT_FALSE(a.recommendation.explanation.empty()) << what;
      EXPECT_TRUE(b.recommendation.explanation.empty()) << what;  // kept as its text
      EXPECT_EQ(a.explanationText, nullptr) << what;  // no cache: made when the status is
      ASSERT_NE(b.explanationText, nullptr) << what;
      EXPECT_EQ(*b.explanationText, recommend::explanationText(a.recommendation)) << what;
      EXPECT_EQ(b.explanationText, first[0].containers[c].explanationText) << what;  // shared
    }
    EXPECT_EQ(controller::toStatus(computed[0], p, kNow), controller::toStatus(second[0], p, kNow))
        << strategy;
  }
}

// VPA keeps its decaying histograms as its own per-container state, in both paths.
TEST(SameRecommendationsTest, VpaReadsItsOwnStateInBothPaths) {
  SeriesSource source;
  const std::vector<api::Pod> all = pods();
  const auto tracked = controllerPath(source, "vpa", all);
  ASSERT_EQ(tracked.size(), 1u);
  const std::string text = recommend::explanationText(tracked[0].containers[0].recommendation);
  EXPECT_NE(text.find("decaying histogram"), std::string::npos) << text;
}

}  // namespace
}  // namespace attune
