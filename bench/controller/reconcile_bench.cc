// One reconcile pass of the controller core over 10,000 pods and 1,000 AttunePolicies in the
// simulator, single-threaded. Target: <= 1 s per pass.
//
// The cluster: 1,000 Deployments of 10 replicas in 100 namespaces on 200 nodes, each with its
// own policy (Auto mode, one day of history), run for two simulated hours so that every policy
// has usage data. Three passes are timed: the first (each policy reads its whole history window
// from the simulator's MetricsSource and the cluster is listed), then a steady pass a minute
// later (only the new minute is read), then one that makes resizes.
//
// Baseline, measured in the same run: listing the 10,000 pods once through the same ClusterApi
// (what any controller pass must at least do); the ratio is the pass's cost in pod LISTs. Also
// the pass's pod reads alone (a ClusterSnapshot and every Deployment's pods), listed against
// read in place from a synced kube::CachedClusterApi over the same cluster.
//
// Flags: --policies=N (default 1000; 10 pods per policy), --warmup-hours=N (default 2).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "controller/cluster_snapshot.h"
#include "controller/controller.h"
#include "core/clock.h"
#include "kube/cached_cluster_api.h"
#include "metrics/exposition/registry.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"

namespace {

using namespace attune;

constexpr int kReplicas = 10;
constexpr int kNamespaces = 100;

std::string scenarioYaml(int policies, int warmupHours) {
  std::string yaml =
      "apiVersion: sim.attune.io/v1alpha1\nkind: Scenario\nmetadata: {name: reconcile-bench}\n"
      "spec:\n  seed: 7\n  start: \"2026-01-05T00:00:00Z\"\n  duration: " +
      std::to_string(warmupHours + 1) +
      "h\n  tick: 60s\n  nodePools: [{name: node, count: " + std::to_string(policies / 5) +
      ", cpu: \"32\", memory: 128Gi}]\n  workloads:\n";
  for (int i = 0; i < policies; ++i) {
    yaml += "  - kind: Deployment\n    namespace: ns-" + std::to_string(i % kNamespaces) +
            "\n    name: app-" + std::to_string(i) +
            "\n    replicas: " + std::to_string(kReplicas) +
            "\n    containers:\n    - name: app\n      requests: {cpu: 500m, memory: 512Mi}\n"
            "      model: {kind: diurnal, cpuCores: 120m, memoryBytes: 200Mi, amplitude: 0.4}\n";
  }
  yaml += "  policies:\n";
  for (int i = 0; i < policies; ++i) {
    yaml += "  - apiVersion: attune.io/v1alpha1\n    kind: AttunePolicy\n    metadata: {name: p-" +
            std::to_string(i) + ", namespace: ns-" + std::to_string(i % kNamespaces) +
            "}\n    spec:\n      targetRef: {kind: Deployment, name: app-" + std::to_string(i) +
            "}\n      metricsSource: {historyWindow: 24h, minimumDataPoints: 12, queryStep: 1m}\n"
            "      updateStrategy: {type: Auto, maxConcurrentResizes: 2}\n";
  }
  return yaml;
}

int flag(int argc, char** argv, std::string_view name, int fallback) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=') {
      return std::atoi(argv[i] + name.size() + 1);
    }
  }
  return fallback;
}

double secondsSince(Clock& wall, Time start) {
  return std::chrono::duration<double>(wall.now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int policies = flag(argc, argv, "--policies", 1000);
  const int warmupHours = flag(argc, argv, "--warmup-hours", 2);
  SystemClock wall;

  auto decoded = sim::decodeScenario(scenarioYaml(policies, warmupHours));
  if (!decoded.scenario) {
    std::fprintf(stderr, "scenario: %s\n", decoded.errors.front().error.toString().c_str());
    return 1;
  }
  auto created = sim::Simulation::create(*decoded.scenario);
  if (!created) {
    std::fprintf(stderr, "simulation: %s\n", created.error().toString().c_str());
    return 1;
  }
  sim::Simulation& s = **created;
  Time start = wall.now();
  if (auto ok = s.runFor(std::chrono::hours(warmupHours)); !ok) {
    std::fprintf(stderr, "warm-up: %s\n", ok.error().toString().c_str());
    return 1;
  }
  auto pods = s.api().listPods({});
  std::printf("cluster: %zu pods, %d policies, %d h of usage (warm-up took %.1f s)\n",
              pods ? pods->items.size() : 0, policies, warmupHours, secondsSince(wall, start));

  // Baseline: one LIST of every pod through the ClusterApi.
  start = wall.now();
  constexpr int kLists = 5;
  std::size_t listed = 0;
  for (int i = 0; i < kLists; ++i) listed += s.api().listPods({})->items.size();
  const double list = secondsSince(wall, start) / kLists;
  const double podCount = static_cast<double>(listed / kLists);

  // The pass's pod reads alone: a snapshot and the pods of every Deployment, listed (as over
  // any ClusterApi without a cache) and read in place from the pod informer (as the operator's
  // CachedClusterApi serves them), in the same run.
  {
    kube::CachedClusterApi cached(s.api(), s.clock());
    if (auto ok = cached.sync(); !ok) {
      std::fprintf(stderr, "cache: %s\n", ok.error().toString().c_str());
      return 1;
    }
    const std::set<api::TargetKind> kinds = {api::TargetKind::kDeployment};
    // The pods of the first `due` Deployments (all of them when due < 0).
    const auto read = [&](api::ClusterApi& api, int due) {
      auto snapshot = controller::ClusterSnapshot::take(api, {}, kinds);
      if (!snapshot) {
        std::fprintf(stderr, "snapshot: %s\n", snapshot.error().toString().c_str());
        std::exit(1);
      }
      std::size_t n = 0;
      for (const auto& d : snapshot->deployments()) {
        if (due-- == 0) break;
        n += snapshot->podsOf({d->metadata.namespace_, "Deployment", d->metadata.name}).size();
      }
      return n;
    };
    for (const int due : {-1, 1}) {
      Time t = wall.now();
      const std::size_t listedPods = read(s.api(), due);
      const double listedSeconds = secondsSince(wall, t);
      t = wall.now();
      const std::size_t viewedPods = read(cached, due);
      const double viewedSeconds = secondsSince(wall, t);
      std::printf(
          "pod reads of a pass over %s (snapshot + their pods): listed %.4f s (%zu pods), read in "
          "place %.4f s (%zu pods); ratio %.1fx\n",
          due < 0 ? "every policy" : "one due policy", listedSeconds, listedPods, viewedSeconds,
          viewedPods, listedSeconds / viewedSeconds);
    }
  }

  metrics::Registry registry;
  controller::Controller controller(s.api(), s.metrics(), s.clock(), registry);
  int resized = 0;
  controller.setObserver([&](const controller::ActionRecord& a) {
    if (a.kind == controller::ActionRecord::Kind::kResized) ++resized;
  });
  const auto pass = [&](const char* what) {
    resized = 0;
    const Time t = wall.now();
    if (auto ok = controller.reconcileAll(); !ok) {
      std::fprintf(stderr, "reconcile: %s\n", ok.error().toString().c_str());
      std::exit(1);
    }
    const double seconds = secondsSince(wall, t);
    std::printf("%-34s %8.3f s  %10.0f pods/s  %6.1f× a pod LIST  %5d resizes  %s\n", what, seconds,
                podCount / seconds, seconds / list, resized,
                seconds <= 1.0 ? "(target <= 1 s: met)" : "(target <= 1 s: MISSED)");
  };
  std::printf("baseline: LIST of %.0f pods %.3f s\n", podCount, list);
  pass("first pass (reads history)");
  (void)s.step();
  pass("steady pass (one new minute)");
  (void)s.runFor(std::chrono::minutes(10));
  pass("pass after 10 more minutes");
  return 0;
}
