// What a reconcile pays to read the AttunePolicies from the operator's cache after one of them
// changed (kube::ListedInformer::shared). Every pass writes some statuses, and each write's echo
// changes the cache, so the pass after it, and the poll after it, read a new list. 10,000
// policies as passes leave them (three conditions, a recommendation, twenty resize history
// entries). The baseline, measured in the same run: a copy of every policy out of the cache
// (ListedInformer::list), which is what shared() made for each change before it handed out the
// cached objects themselves. Prints the time per read, the ratio, and checks both reads hold the
// same policies.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "kube/informer.h"
#include "sim/cluster/cluster.h"

namespace {

using namespace attune;

constexpr int kPolicies = 10000;
constexpr int kReads = 40;

api::AttunePolicy policyAt(int i, Time t0) {
  api::AttunePolicy p;
  p.metadata.namespace_ = "team-" + std::to_string(i / 50);
  p.metadata.name = "app-" + std::to_string(i);
  p.spec.targetRef = {api::TargetKind::kDeployment, p.metadata.name, std::nullopt};
  p.spec.updateStrategy.type = api::UpdateMode::kAuto;
  p.status.lastReconcileTime = t0;
  for (const char* type : {"Ready", "Resizing", "Degraded"}) {
    p.status.conditions.push_back(
        {.type = type, .status = "False", .reason = "Steady", .lastTransitionTime = t0});
  }
  api::WorkloadRecommendation recommendation{.workload = p.metadata.name};
  recommendation.containers.push_back({.name = "app", .dataPoints = 1440, .lastUpdated = t0});
  p.status.recommendations.push_back(std::move(recommendation));
  for (int h = 0; h < 20; ++h) {
    p.status.resizeHistory.push_back({.timestamp = t0 - std::chrono::minutes(5 * h),
                                      .workload = p.metadata.name,
                                      .pod = p.metadata.name + "-pod-" + std::to_string(h % 10),
                                      .container = "app",
                                      .resource = api::ResizedResource::kMemory,
                                      .from = "256Mi",
                                      .to = "192Mi",
                                      .method = api::ResizeMethod::kInPlace,
                                      .result = api::ResizeResult::kSuccess,
                                      .reason = {}});
  }
  return p;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "shared_list_bench: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace

int main() {
  SimulatedClock clock(Time(std::chrono::seconds(1'790'000'000)));
  sim::ClusterState state(clock);
  sim::Cluster cluster(state);
  for (int i = 0; i < kPolicies; ++i) {
    if (!state.attunePolicies.create(policyAt(i, clock.now()))) die("creating a policy failed");
  }
  kube::ListedInformer<api::AttunePolicy> informer(cluster, &api::ClusterApi::listAttunePolicies,
                                                   clock);
  if (!informer.sync() || informer.size() != kPolicies) die("the informer did not list them all");

  // One round: a status written (its echo recorded in the cache), then the read a pass makes,
  // held as the pass holds it until the next round.
  SystemClock wall;
  const auto round = [&](int r, auto read) {
    api::AttunePolicy written = *informer.get("team-0", "app-" + std::to_string(r % 50));
    written.status.lastReconcileTime = clock.now() + std::chrono::seconds(r);
    written.metadata.resourceVersion = std::to_string(1'000'000 + r);
    informer.recordWrite(std::move(written));
    return read();
  };
  const auto seconds = [&](auto read) {
    std::size_t held = 0;
    const Time start = wall.now();
    for (int r = 0; r < kReads; ++r) held += round(r, read);
    const std::chrono::duration<double> took = wall.now() - start;
    if (held != static_cast<std::size_t>(kPolicies) * kReads) die("a read missed policies");
    return took.count() / kReads;
  };
  std::vector<api::AttunePolicy> copied;
  const double copies = seconds([&] {
    copied = informer.list({});
    return copied.size();
  });
  api::SharedList<api::AttunePolicy> shared;
  const double sharing = seconds([&] {
    shared = informer.shared("");
    return shared->size();
  });
  for (std::size_t i = 0; i < copied.size(); ++i) {
    if (!(copied[i] == *(*shared)[i])) die("the shared list differs from the copy");
  }
  std::printf("%d policies (20 history entries each), a read after one status write\n", kPolicies);
  std::printf("baseline: every policy copied (list)   %9.3f ms\n", copies * 1e3);
  std::printf("shared: the cached objects (shared)    %9.3f ms   %.0fx faster\n", sharing * 1e3,
              copies / sharing);
  return 0;
}
