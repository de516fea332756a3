// A reconcile runs its due policies in groups of whole namespaces (ControllerOptions::passGroup,
// and passGroupSamples for the samples their usage reads bring), whose usage is read a group
// ahead. Each pass is finished as soon as it is prepared, and the pods it unpacked are freed
// before the next pass reads its own (ControllerOptions::releasePods, kube::PodInformer::
// releaseUnpacked). Grouped or not, the controller takes the same actions at the same times,
// and the pod cache holds no unpacked pod after a reconcile. Under ASan a pod pointer kept past
// its pass would be a use after free.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/cached_cluster_api.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string>& kNamespaces = kFourNamespaces;
constexpr std::size_t kReplicas = 3;

// The simulation's metrics, with copies for SharedUsageReads::prefetch's threads: every copy
// reads the same simulation, one call at a time (the simulation is not stepped meanwhile).
class CopyableMetrics final : public metrics::MetricsSource {
 public:
  struct Shared {
    metrics::MetricsSource& real;
    std::mutex mutex;
    std::atomic<int> copies = 0;
    std::atomic<int> readsOnCopies = 0;
  };
  explicit CopyableMetrics(std::shared_ptr<Shared> shared, bool copy = false)
      : shared_(std::move(shared)), copy_(copy) {}

  Result<std::vector<metrics::ContainerSeries>> cpuUsage(const metrics::Scope& s,
                                                         const metrics::Range& r) override {
    return locked([&] { return shared_->real.cpuUsage(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> cpuPressureWaiting(
      const metrics::Scope& s, const metrics::Range& r) override {
    return locked([&] { return shared_->real.cpuPressureWaiting(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> memoryWorkingSet(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return locked([&] { return shared_->real.memoryWorkingSet(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> cpuThrottleRatio(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return locked([&] { return shared_->real.cpuThrottleRatio(s, r); });
  }
  Result<std::vector<metrics::OomKill>> oomKills(const metrics::Scope& s,
                                                 const metrics::Range& r) override {
    return locked([&] { return shared_->real.oomKills(s, r); });
  }
  Result<std::vector<metrics::RestartCount>> restartCounts(const metrics::Scope& s,
                                                           Time at) override {
    return locked([&] { return shared_->real.restartCounts(s, at); });
  }
  Result<std::vector<metrics::ContainerResourceValues>> resources(const metrics::Scope& s,
                                                                  Time at) override {
    return locked([&] { return shared_->real.resources(s, at); });
  }
  Result<std::vector<metrics::PodOwner>> podOwners(const metrics::Scope& s, Time at) override {
    return locked([&] { return shared_->real.podOwners(s, at); });
  }
  Result<std::vector<metrics::NodeSeries>> nodeLoad(const metrics::Range& r) override {
    return locked([&] { return shared_->real.nodeLoad(r); });
  }
  Result<std::vector<metrics::NodeCapacity>> nodeCapacity(Time at) override {
    return locked([&] { return shared_->real.nodeCapacity(at); });
  }
  std::unique_ptr<metrics::MetricsSource> parallelCopy() const override {
    ++shared_->copies;
    return std::make_unique<CopyableMetrics>(shared_, true);
  }

 private:
  template <typename Call>
  auto locked(Call call) -> decltype(call()) {
    std::lock_guard lock(shared_->mutex);
    if (copy_) ++shared_->readsOnCopies;
    return call();
  }

  std::shared_ptr<Shared> shared_;
  bool copy_;
};

struct Outcome {
  // Every action: its kind, pod and time.
  std::vector<std::string> actions;
  std::size_t passes = 0;        // policies reconciled, over every call
  std::size_t releases = 0;      // releasePods calls
  std::size_t mostUnpacked = 0;  // unpacked pods held after a reconcile, at most
  // The groups of each reconcile that ran every policy, in order.
  std::vector<std::size_t> groups;
  int copies = 0;         // metrics source copies made for prefetching
  int readsOnCopies = 0;  // and the reads made through them
};

// `parallel` > 1: usage reads prefetched (ControllerOptions::parallelUsageReads) through copies
// of the metrics source, a group read ahead.
Outcome run(std::size_t passGroup, std::size_t passGroupSamples = 1'000'000,
            std::size_t parallel = 1) {
  Outcome out;
  // The cache's own clock only schedules full relists: it stays put (the watch is followed).
  SimulatedClock cacheClock(*parseRfc3339("2025-01-01T00:00:00Z"));
  kube::CachedClusterApi* cache = nullptr;
  HarnessOptions options;
  options.controller.passGroup = passGroup;
  options.controller.passGroupSamples = passGroupSamples;
  options.controller.parallelUsageReads = parallel;
  options.controller.releasePods = [&] {
    ++out.releases;
    cache->pods().releaseUnpacked();
  };
  options.wrapApi = [&](api::ClusterApi& cluster) {
    auto cached = std::make_unique<kube::CachedClusterApi>(cluster, cacheClock);
    cache = cached.get();
    return cached;
  };
  ScenarioHarness h(fourNamespaces(static_cast<int>(kReplicas)), options);
  EXPECT_TRUE(h.usable());
  if (!h.usable() || cache == nullptr) return out;
  auto shared = std::shared_ptr<CopyableMetrics::Shared>(
      new CopyableMetrics::Shared{.real = h.sim().metrics()});
  CopyableMetrics metrics(shared);
  if (parallel > 1) h.restartController(&metrics);
  const Time end = h.now() + 3h;
  while (h.now() < end) {
    EXPECT_TRUE(h.sim().step().has_value());
    EXPECT_TRUE(cache->sync().has_value());
    EXPECT_TRUE(h.controller().reconcileDue().has_value());
    if (h.controller().reconciledLastCall() == 0) continue;
    out.passes += h.controller().reconciledLastCall();
    out.mostUnpacked = std::max(out.mostUnpacked, cache->pods().unpackedCount());
    if (h.controller().reconciledLastCall() == kNamespaces.size()) {
      out.groups.push_back(h.controller().groupsLastCall());
    }
  }
  out.copies = shared->copies;
  out.readsOnCopies = shared->readsOnCopies;
  for (const ActionRecord& a : h.actions()) {
    out.actions.push_back(std::string(toString(a.kind)) + " " + a.workload.ns + "/" + a.pod + " " +
                          a.container + " " + a.detail + " " + formatRfc3339(a.time));
  }
  return out;
}

TEST(PassGroupsTest, GroupsOfOneNamespaceActAsOneReconcileAndEachPassFreesItsPods) {
  const Outcome whole = run(/*passGroup=*/256);
  const Outcome grouped = run(/*passGroup=*/1);
  ASSERT_FALSE(whole.actions.empty()) << "the scenario resized nothing: it tests nothing";
  EXPECT_EQ(grouped.actions, whole.actions);
  // Four namespaces in one group, or one group per namespace, in every reconcile.
  ASSERT_FALSE(whole.groups.empty());
  EXPECT_EQ(whole.groups, std::vector<std::size_t>(whole.groups.size(), 1));
  EXPECT_EQ(grouped.groups, std::vector<std::size_t>(grouped.groups.size(), kNamespaces.size()));
  // Either way each pass frees the pods it read, and none is held after a reconcile.
  EXPECT_EQ(whole.releases, whole.passes);
  EXPECT_EQ(grouped.releases, grouped.passes);
  EXPECT_EQ(whole.mostUnpacked, 0u);
  EXPECT_EQ(grouped.mostUnpacked, 0u);
}

// Reads made in the background a group ahead, on two threads: the same actions, the pods of
// each group freed as before (a reading or pod kept past its group would be a use after free).
TEST(PassGroupsTest, UsageReadsMadeAGroupAheadChangeNothing) {
  const Outcome whole = run(/*passGroup=*/256);
  const Outcome ahead = run(/*passGroup=*/1, 1'000'000, /*parallel=*/2);
  ASSERT_FALSE(whole.actions.empty()) << "the scenario resized nothing: it tests nothing";
  EXPECT_EQ(ahead.actions, whole.actions);
  EXPECT_GT(ahead.copies, 0);
  EXPECT_GT(ahead.readsOnCopies, 0);
  EXPECT_EQ(ahead.mostUnpacked, 0u);
}

TEST(PassGroupsTest, ANamespaceWhoseReadsReachTheSampleBudgetClosesItsGroup) {
  // The first pass reads each namespace's history window (kReplicas pods × its steps); steady
  // passes read a step or two per pod.
  const Outcome whole = run(/*passGroup=*/256);
  const Outcome oneNamespace = run(/*passGroup=*/256, /*passGroupSamples=*/1);
  const Outcome firstPassOnly = run(/*passGroup=*/256, /*passGroupSamples=*/3 * kReplicas);
  EXPECT_EQ(oneNamespace.actions, whole.actions);
  EXPECT_EQ(firstPassOnly.actions, whole.actions);
  ASSERT_GE(whole.groups.size(), 2u);
  EXPECT_EQ(whole.groups, std::vector<std::size_t>(whole.groups.size(), 1));
  // Every namespace's reads reach a budget of 1: one group per namespace in every reconcile.
  EXPECT_EQ(oneNamespace.groups,
            std::vector<std::size_t>(oneNamespace.groups.size(), kNamespaces.size()));
  // A budget of 3 steps a pod: the first pass's reads (a whole history window) close a group
  // after each namespace; a later pass's (a step or two) after two or three.
  ASSERT_EQ(firstPassOnly.groups.size(), whole.groups.size());
  EXPECT_EQ(firstPassOnly.groups.front(), kNamespaces.size());
  for (std::size_t i = 1; i < firstPassOnly.groups.size(); ++i) {
    EXPECT_LT(firstPassOnly.groups[i], kNamespaces.size()) << "reconcile " << i;
  }
}

}  // namespace
}  // namespace attune::controller::testing
