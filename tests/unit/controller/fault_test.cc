// The controller against a flaky API server: a sim::FaultClusterApi between the controller and
// the simulated cluster fails 10-20 % of the controller's requests with every fault kind
// (conflicts, timeouts, 429, 5xx, dropped and expired watches, writes applied whose response is
// lost). Checked after every tick, over several seeds:
//   - a pod that carries a resize record is at its recorded originals or at its target, and the
//     originals are the resources it had before (never overwritten with resized values);
//   - a pod never leaves its pre-resize resources without a record, except when the observation
//     of its resize ended (declared safe);
//   - while a resize is under observation the pod moves only back to its originals (no second,
//     different resize), and its record is never replaced;
//   - the controller keeps working: the resizes still happen, and reverts restore the originals;
//   - without metrics no resize reaches the cluster.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/units.h"
#include "safety/resize_record.h"
#include "scenario_harness.h"
#include "sim/faults/fault_cluster_api.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

constexpr std::array<std::uint64_t, 4> kSeeds = {1, 2, 3, 4};

// Harness options putting a FaultClusterApi (failing `rate` of the requests with `kinds`) in front
// of the controller; `faults` is set to it once the harness is built.
HarnessOptions withFaults(double rate, std::uint64_t seed, sim::FaultClusterApi*& faults,
                          std::set<sim::FaultKind> kinds = sim::allFaultKinds()) {
  HarnessOptions options;
  options.tolerateReconcileErrors = true;
  options.wrapApi = [rate, seed, kinds, &faults](api::ClusterApi& cluster) {
    auto api = std::make_unique<sim::FaultClusterApi>(
        cluster, sim::FaultOptions{.rate = rate, .seed = seed, .kinds = kinds});
    faults = api.get();
    return std::unique_ptr<api::ClusterApi>(std::move(api));
  };
  return options;
}

// Checks the invariants in this file's header on the pods of one workload (container "app"),
// each time check() is called; violations are test failures naming the pod and the time.
class ResizeInvariants {
 public:
  ResizeInvariants(ScenarioHarness& h, std::string workload)
      : h_(h), workload_(std::move(workload)) {}

  void check() {
    for (const api::Pod& pod : h_.pods("apps", workload_)) checkPod(pod);
  }
  // Whether `pod` was ever seen carrying a record.
  bool everRecorded(const std::string& pod) const { return recorded_.contains(pod); }
  // The resources `pod` had before any resize.
  api::ResourceValues initial(const std::string& pod) const { return initial_.at(pod); }

 private:
  struct Seen {
    api::ResourceValues settled;  // the resources outside any observation
    api::ResourceValues spec;     // at the last check
    std::optional<safety::ResizeRecord> record;
    std::size_t endings = 0;  // kSafe / kViolationKept actions so far
  };

  std::size_t endings(const std::string& pod) const {
    std::size_t n = 0;
    for (const ActionRecord& a : h_.actions()) {
      if (a.pod == pod && (a.kind == Kind::kSafe || a.kind == Kind::kViolationKept)) ++n;
    }
    return n;
  }

  void checkPod(const api::Pod& pod) {
    const std::string& name = pod.metadata.name;
    const std::string at = " (pod " + name + " at " + formatRfc3339(h_.now()) + ")";
    const api::ResourceValues spec = specResources(pod, "app");
    auto decoded = safety::decodeResizeRecord(pod);
    ASSERT_TRUE(decoded.has_value()) << decoded.error().toString() << at;
    const std::optional<safety::ResizeRecord>& record = *decoded;
    auto it = seen_.find(name);
    if (it == seen_.end()) {
      EXPECT_FALSE(record) << "a new pod carries a record" << at;
      initial_[name] = spec;
      seen_[name] = {.settled = spec, .spec = spec, .record = std::nullopt, .endings = 0};
      return;
    }
    Seen& s = it->second;
    const std::size_t ended = endings(name);
    if (record) {
      recorded_.insert(name);
      const safety::ContainerRecord* c = record->find("app");
      ASSERT_NE(c, nullptr) << at;
      EXPECT_EQ(c->original, s.settled)
          << "the recorded originals " << describe(c->original)
          << " are not the resources before the resize " << describe(s.settled) << at;
      EXPECT_TRUE(spec == c->original || spec == c->target)
          << "a pod under observation is at " << describe(spec) << ", neither its originals "
          << describe(c->original) << " nor its target " << describe(c->target) << at;
      if (s.record) {
        EXPECT_EQ(*record, *s.record) << "the record was replaced during the observation" << at;
        const safety::ContainerRecord* before = s.record->find("app");
        if (before != nullptr && s.spec == before->target && spec != s.spec) {
          EXPECT_EQ(spec, before->original)
              << "a pod under observation was resized again, not back to its originals" << at;
        }
      }
    } else if (spec != s.settled) {
      EXPECT_GT(ended, s.endings) << "resized from " << describe(s.settled) << " to "
                                  << describe(spec) << " without a resize record" << at;
      s.settled = spec;
    }
    s.spec = spec;
    s.record = record;
    s.endings = ended;
  }

  ScenarioHarness& h_;
  std::string workload_;
  std::map<std::string, Seen> seen_;
  std::map<std::string, api::ResourceValues> initial_;
  std::set<std::string> recorded_;
};

// What happened, for failure messages: the pods, the controller's actions, the pod writes.
std::string trace(ScenarioHarness& h, const sim::FaultClusterApi& faults,
                  std::string_view workload) {
  std::string out;
  for (const api::Pod& pod : h.pods("apps", workload)) {
    out += pod.metadata.name + ": spec " + describe(specResources(pod, "app")) + ", status " +
           describe(statusResources(pod, "app")) + ", annotations";
    for (const auto& [k, v] : pod.metadata.annotations) out += " " + k + "=" + v;
    out += ", conditions";
    for (const api::Condition& c : pod.status.conditions) {
      out += " " + c.type + "=" + c.status + (c.reason.empty() ? "" : "/" + c.reason);
    }
    out += "\n";
  }
  for (const ActionRecord& a : h.actions()) {
    out += formatRfc3339(a.time) + " " + std::string(toString(a.kind)) + " " + a.pod + " " +
           a.reason + " " + a.detail + "\n";
  }
  for (const auto& r : h.policy("apps", workload).status.recommendations) {
    for (const auto& c : r.containers) {
      out +=
          "recommendation " + c.name + " " + describe(c.recommended) + " (" + c.rationale + ")\n";
    }
  }
  for (const api::Condition& c : h.policy("apps", workload).status.conditions) {
    out += "condition " + c.type + "=" + c.status + " " + c.reason + " " + c.message + "\n";
  }
  for (const api::ResizeHistoryEntry& e : h.policy("apps", workload).status.resizeHistory) {
    out += "history " + (e.timestamp ? formatRfc3339(*e.timestamp) : std::string("-")) + " " +
           e.pod + " " + (e.result ? std::string(api::toString(*e.result)) : std::string("-")) +
           " " + e.reason + "\n";
  }
  for (const auto& w : faults.writes()) {
    if (w.method != "resizePod" && w.method != "patchPodAnnotations") continue;
    out += w.method + " " + w.name + " fault " + std::string(sim::toString(w.fault)) +
           (w.appliedByInner ? " applied\n" : " not applied\n");
  }
  return out;
}

// Fault counts summed over the runs of a test.
struct FaultTally {
  std::uint64_t requests = 0;
  std::uint64_t injected = 0;
  std::map<sim::FaultKind, std::uint64_t> byKind;

  void add(const sim::FaultClusterApi& faults) {
    const auto& injector = faults.injector();
    requests += injector.requests();
    injected += injector.injected();
    for (sim::FaultKind f : sim::allFaultKinds()) byKind[f] += injector.injected(f);
  }
  // At least 10 % of the controller's requests failed (about `rate`), with each of `kinds`.
  void expectInjected(double rate, std::initializer_list<sim::FaultKind> kinds) const {
    ASSERT_GT(requests, 500u);
    const double observed = static_cast<double>(injected) / static_cast<double>(requests);
    EXPECT_GE(observed, 0.1);
    EXPECT_NEAR(observed, rate, 0.03);
    for (sim::FaultKind f : kinds) EXPECT_GT(byKind.at(f), 0u) << sim::toString(f);
  }
};

std::string overProvisioned(int replicas) {
  return scenarioYaml(workloadYaml({.name = "web", .replicas = replicas}),
                      policyYaml({.name = "web", .target = "web"}));
}

// Requests 500m / 512Mi for a steady 200m / 200Mi: every pod ends at about 300m / 300Mi.
TEST(FaultTest, TheControllerKeepsResizingAnOverProvisionedDeployment) {
  int reconcileErrors = 0;
  FaultTally tally;
  for (std::uint64_t seed : kSeeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    sim::FaultClusterApi* faults = nullptr;
    ScenarioHarness h(overProvisioned(4), withFaults(0.15, seed, faults));
    ASSERT_TRUE(h.usable());
    ASSERT_NE(faults, nullptr);
    ResizeInvariants invariants(h, "web");
    const auto settled = [&] {
      invariants.check();
      for (const api::Pod& pod : h.pods("apps", "web")) {
        if (hasAnnotationPrefix(pod.metadata, "attune.io/")) return false;
        if (!near(specResources(pod, "app").memoryRequest, 300_Mi, 0.05)) return false;
      }
      return true;
    };
    ASSERT_TRUE(h.runUntil(settled, 4h)) << "not every pod was resized\n"
                                         << trace(h, *faults, "web");
    // Kept running: nothing moves any more, whatever fails.
    h.runUntil(
        [&] {
          invariants.check();
          return false;
        },
        1h);
    for (const api::Pod& pod : h.pods("apps", "web")) {
      EXPECT_TRUE(near(specResources(pod, "app").cpuRequest, 300_m, 0.05)) << pod.metadata.name;
      EXPECT_EQ(statusResources(pod, "app"), specResources(pod, "app")) << "applied";
    }
    tally.add(*faults);
    reconcileErrors += h.reconcileErrors();
  }
  // Every kind the controller's requests can meet (it does not watch).
  tally.expectInjected(
      0.15, {sim::FaultKind::kTimeout, sim::FaultKind::kThrottled, sim::FaultKind::kServerError,
             sim::FaultKind::kResponseLost, sim::FaultKind::kConflict});
  EXPECT_GT(reconcileErrors, 0) << "failed passes do not stop the later ones";
}

// A resize whose response is lost keeps its record: the pod is observed (and, here, declared
// safe) like any other, and is never resized a second time on the strength of the lost answer.
TEST(FaultTest, ALostResizeResponseNeverLosesTheOriginalsNorResizesTwice) {
  for (std::uint64_t seed : kSeeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    sim::FaultClusterApi* faults = nullptr;
    // Only lost responses, on 20 % of the writes: the hardest case for the record.
    ScenarioHarness h(overProvisioned(4),
                      withFaults(0.2, seed, faults, {sim::FaultKind::kResponseLost}));
    ASSERT_TRUE(h.usable());
    ResizeInvariants invariants(h, "web");
    h.runUntil(
        [&] {
          invariants.check();
          return false;
        },
        2h);
    // Each pod reached its target by exactly one resize that changed it (a repeated request for
    // the same target is not a second resize).
    for (const api::Pod& pod : h.pods("apps", "web")) {
      const std::string& name = pod.metadata.name;
      std::set<std::string> targets;
      for (const auto& w : faults->writes()) {
        if (w.method != "resizePod" || w.name != name || !w.appliedByInner) continue;
        targets.insert(describe(safety::resourceValuesOf(w.resize.at(0).resources)));
      }
      EXPECT_EQ(targets.size(), 1u) << name << " was resized to several targets";
      EXPECT_TRUE(invariants.everRecorded(name)) << name;
      EXPECT_TRUE(near(specResources(pod, "app").memoryRequest, 300_Mi, 0.05)) << name;
    }
    EXPECT_GT(faults->injector().injected(sim::FaultKind::kResponseLost), 0u);
  }
}

// The leaky workload of safety_revert_test, leaking 10Mi a minute from 200Mi: resized to 300Mi /
// 600Mi (before the usage reaches that limit, at minute 40), OOM-killed once it does, and
// reverted to exactly the recorded originals despite the faults.
TEST(FaultTest, AnOomKillIsRevertedToTheExactOriginalsDespiteFaults) {
  FaultTally tally;
  int failedResizes = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    sim::FaultClusterApi* faults = nullptr;
    ScenarioHarness h(
        scenarioYaml(
            workloadYaml({.name = "leaky",
                          .model = "{kind: memory-leak, cpuCores: 200m, memoryBytes: 200Mi, "
                                   "leakBytesPerHour: 600Mi, noise: 0}"}),
            policyYaml({.name = "leaky",
                        .target = "leaky",
                        .updateStrategy = "{type: Auto, safetyObservationPeriod: 1h}",
                        .memory = "maxAllowed: 300Mi"})),
        withFaults(0.15, seed, faults));
    ASSERT_TRUE(h.usable());
    ResizeInvariants invariants(h, "leaky");
    h.runMinutes(1);
    invariants.check();
    const std::string name = h.pod("apps", "leaky").metadata.name;
    const api::ResourceValues original = invariants.initial(name);
    const auto resized = [&] {
      invariants.check();
      return specResources(h.pod("apps", "leaky"), "app").memoryRequest == 300_Mi;
    };
    ASSERT_TRUE(h.runUntil(resized, 35min)) << trace(h, *faults, "leaky");
    const auto reverted = [&] {
      invariants.check();
      return !h.actions(Kind::kReverted).empty();
    };
    ASSERT_TRUE(h.runUntil(reverted, 60min)) << trace(h, *faults, "leaky");
    EXPECT_EQ(h.actions(Kind::kReverted).front().reason, "oomkill");
    const auto restored = [&] {
      invariants.check();
      const api::Pod pod = h.pod("apps", "leaky");
      return !hasAnnotationPrefix(pod.metadata, "attune.io/");
    };
    ASSERT_TRUE(h.runUntil(restored, 30min)) << "the record stays after the revert\n"
                                             << trace(h, *faults, "leaky");
    const api::Pod after = h.pod("apps", "leaky");
    EXPECT_EQ(specResources(after, "app"), original)
        << describe(specResources(after, "app")) << " vs " << describe(original);
    h.run(5min);
    EXPECT_EQ(statusResources(h.pod("apps", "leaky"), "app"), original) << "applied";
    tally.add(*faults);
    for (const auto& w : faults->writes()) {
      if (w.method == "resizePod" && w.fault != sim::FaultKind::kNone) ++failedResizes;
    }
  }
  tally.expectInjected(0.15, {sim::FaultKind::kTimeout, sim::FaultKind::kThrottled,
                              sim::FaultKind::kServerError, sim::FaultKind::kResponseLost});
  EXPECT_GT(failedResizes, 0) << "no resize or revert met a fault: the scenario proves too little";
}

// As ModesTest.MissingMetricsNeverProduceAResize, with faults: recommendations are made while
// the metrics answer (inside the cooldown), then the backend fails; no resize request ever
// reaches the cluster.
TEST(FaultTest, MissingMetricsNeverProduceAResizeDespiteFaults) {
  for (std::uint64_t seed : kSeeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    sim::FaultClusterApi* faults = nullptr;
    ScenarioHarness h(
        scenarioYaml(
            workloadYaml({.name = "web",
                          .replicas = 2,
                          .workloadExtra = "    annotations: {attune.io/last-resize-time: \"" +
                                           std::string(kStart) + "\"}\n"}),
            policyYaml(
                {.name = "web", .target = "web", .updateStrategy = "{type: Auto, cooldown: 20m}"})),
        withFaults(0.2, seed, faults));
    ASSERT_TRUE(h.usable());
    ObservedMetricsSource source(h.sim().metrics());
    h.restartController(&source);
    h.runMinutes(15);
    source.fail();
    h.runMinutes(60);

    EXPECT_TRUE(h.actions(Kind::kResized).empty());
    for (const auto& w : faults->writes()) {
      EXPECT_NE(w.method, "resizePod") << "a resize was sent for " << w.name;
      if (w.method == "patchPodAnnotations") ADD_FAILURE() << "pod " << w.name << " annotated";
    }
    for (const api::Pod& pod : h.pods("apps", "web")) {
      EXPECT_EQ(specResources(pod, "app"), (api::ResourceValues{.cpuRequest = 500_m,
                                                                .cpuLimit = 1000_m,
                                                                .memoryRequest = 512_Mi,
                                                                .memoryLimit = 1_Gi}));
      EXPECT_FALSE(hasAnnotationPrefix(pod.metadata, "attune.io/"));
    }
    EXPECT_GT(faults->injector().injected(), 0u);
  }
}

}  // namespace
}  // namespace attune::controller::testing
