// One continuous node-optimisation pass (rollout::optimiseNodes, CruiseKube's Phase 2) over
// 1,000 nodes with 30 running pods each, and, as the baseline measured in the same run, one LIST
// of those 30,000 pods: api::decodePodList of the PodList body the API server would send. Prints
// both times and the ratio (the pass's cost in pod LISTs: a reconcile must list the pods anyway).
//
// The cluster, per node (deterministic; the pods are pod_json.h's realistic pods, varied):
//   1 pod of an optimised DaemonSet (never evicted), 1 pod of a DaemonSet without a policy;
//   4 pods of other Deployments without node optimisation: they only reserve their requests;
//  24 optimised pods of 2,400 workloads of 10 replicas (one replica per node): a third size one
//     container ("app"), a third two ("app", "proxy"), a third two and keep an unsized
//     "log-shipper" sidecar; every tenth workload is a StatefulSet (Medium), one in ten ranked
//     High, one in ten NoEviction, the rest Low; one pod in twenty is not evictable this pass.
// Nodes have 16 CPU and 64 GiB allocatable, except every 25th (8 CPU, 14 GiB): those cannot hold
// their pods' demand, so the pass evicts (memory first, then CPU).
//
// What is timed is the pure pass over its input, as the controller hands it over. Building that
// input (controller::optimiseNodes) needs every policy's prepared PolicyPass — usage read from a
// metrics source, recommendations — and is part of the controller pass reconcile_bench times.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/k8s/decode.h"
#include "bench/support/mean_time_reporter.h"
#include "core/quantity.h"
#include "rollout/node_optimisation.h"
#include "support/pod_json.h"

namespace {

using namespace attune;
using Json = nlohmann::json;

constexpr int kNodes = 1000;
constexpr int kPodsPerNode = 30;
constexpr int kPods = kNodes * kPodsPerNode;
constexpr int kOptimisedSlot = 6;  // slots 6..29 of a node hold optimised workload pods
constexpr int kReplicas = 10;
constexpr int kWorkloads = kNodes * (kPodsPerNode - kOptimisedSlot) / kReplicas;
constexpr int kSmallNodeEvery = 25;
constexpr int kNamespaces = 13;
constexpr std::int64_t kMi = 1024 * 1024;
constexpr const char* kOurs = "BM_OptimiseNodes";
constexpr const char* kBaseline = "BM_ListPods";

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "node_optimisation_bench: %s\n", why.c_str());
  std::abort();
}

std::string nodeName(int node) { return "node-" + std::to_string(node); }

// What occupies slot `slot` of a node.
enum class Slot { kOptimisedDaemonSet, kDaemonSet, kOther, kOptimised };
Slot slotOf(int slot) {
  if (slot == 0) return Slot::kOptimisedDaemonSet;
  if (slot == 1) return Slot::kDaemonSet;
  return slot < kOptimisedSlot ? Slot::kOther : Slot::kOptimised;
}

struct Placement {
  int workload;
  int replica;
};
Placement placementOf(int node, int slot) {
  const int g = node * (kPodsPerNode - kOptimisedSlot) + slot - kOptimisedSlot;
  return {g % kWorkloads, g / kWorkloads};
}

bool isStatefulSet(int workload) { return workload % 10 == 0; }

// The containers an optimised workload's pods keep, and how many of them are sized.
int containersKept(int workload) { return workload % 3 == 0 ? 1 : workload % 3 == 1 ? 2 : 3; }
int containersSized(int workload) { return workload % 3 == 0 ? 1 : 2; }

// Keeps the first `count` containers of `pod` (and their statuses).
void keepContainers(Json& pod, int count) {
  pod["spec"]["containers"].erase(pod["spec"]["containers"].begin() + count,
                                  pod["spec"]["containers"].end());
  Json& statuses = pod["status"]["containerStatuses"];
  statuses.erase(statuses.begin() + count, statuses.end());
}

void ownedBy(Json& pod, const char* kind, const std::string& name) {
  pod["metadata"]["ownerReferences"][0]["kind"] = kind;
  pod["metadata"]["ownerReferences"][0]["name"] = name;
}

// The pod in `slot` of `node`, as the API server would list it.
Json podJson(int node, int slot) {
  Json pod = testing::realisticPod(node * kPodsPerNode + slot);
  pod["spec"]["nodeName"] = nodeName(node);
  Json& meta = pod["metadata"];
  switch (slotOf(slot)) {
    case Slot::kOptimisedDaemonSet:
      meta["namespace"] = "monitoring";
      meta["name"] = "node-exporter-" + std::to_string(node);
      ownedBy(pod, "DaemonSet", "node-exporter");
      keepContainers(pod, 1);
      break;
    case Slot::kDaemonSet:
      meta["namespace"] = "logging";
      meta["name"] = "log-agent-" + std::to_string(node);
      ownedBy(pod, "DaemonSet", "log-agent");
      break;
    case Slot::kOther:
      break;  // realisticPod's own Deployment, all three containers
    case Slot::kOptimised: {
      const auto [w, replica] = placementOf(node, slot);
      const std::string app = "app-" + std::to_string(w);
      meta["namespace"] = "team-" + std::to_string(w % kNamespaces);
      if (isStatefulSet(w)) {
        meta["name"] = app + "-" + std::to_string(replica);
        ownedBy(pod, "StatefulSet", app);
      } else {
        meta["name"] = app + "-7d9f8c6b5-" + std::to_string(replica);
        ownedBy(pod, "ReplicaSet", app + "-7d9f8c6b5");
      }
      keepContainers(pod, containersKept(w));
      break;
    }
  }
  return pod;
}

// A container's CruiseKube demand, varied by workload; sidecars need a quarter of the app.
recommend::CruisekubeDemand demandOf(int workload, int container) {
  const std::int64_t scale = container == 0 ? 4 : 1;
  const Bytes memoryBase((128 + workload * 29 % 512) * kMi * scale / 4);
  const Bytes memoryHeadroom((16 + workload * 41 % 256) * kMi * scale / 4);
  return {.cpuBase = Millicores((80 + workload * 37 % 300) * scale / 4),
          .cpuHeadroom = Millicores((20 + workload * 53 % 400) * scale / 4),
          .memoryBase = memoryBase,
          .memoryHeadroom = memoryHeadroom,
          .memoryLimit = Bytes(2 * (memoryBase.value() + memoryHeadroom.value()))};
}

api::EvictionRanking rankingOf(int workload) {
  if (isStatefulSet(workload)) return api::EvictionRanking::kMedium;
  if (workload % 10 == 1) return api::EvictionRanking::kHigh;
  if (workload % 10 == 2) return api::EvictionRanking::kNoEviction;
  return api::EvictionRanking::kLow;
}

api::Node node(int index) {
  const bool small = index % kSmallNodeEvery == 0;
  api::Node n;
  n.metadata.name = nodeName(index);
  n.status.allocatable.cpu = Quantity::fromMillicores(Millicores(small ? 8000 : 16000));
  n.status.allocatable.memory = Quantity::fromBytes(Bytes((small ? 14 : 64) * 1024 * kMi));
  n.status.capacity = n.status.allocatable;
  return n;
}

// One policy per namespace (every other one bounds its requests) and one for the DaemonSet.
std::vector<api::AttunePolicy> policies() {
  std::vector<api::AttunePolicy> out(kNamespaces + 1);
  for (std::size_t i = 0; i < out.size(); i += 2) {
    out[i].spec.cpu.minAllowed = Millicores(50);
    out[i].spec.memory.maxAllowed = Bytes(4 * 1024 * kMi);
  }
  return out;
}

struct Cluster {
  std::string listJson;  // the PodList body of every pod
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;  // decoded from listJson, pod (node, slot) at node × 30 + slot
  std::vector<api::AttunePolicy> policies;
  rollout::NodeOptimisationInput input;
  std::size_t sizedContainers = 0;
};

rollout::OptimisedPod optimised(const Cluster& c, int node, int slot) {
  const api::Pod& pod = c.pods[static_cast<std::size_t>(node * kPodsPerNode + slot)];
  if (slotOf(slot) == Slot::kOptimisedDaemonSet) {
    return {
        .pod = &pod,
        .workload = api::workloadRef(api::WorkloadKind::kDaemonSet, "monitoring", "node-exporter"),
        .workloadKind = api::TargetKind::kDaemonSet,
        .ranking = api::EvictionRanking::kLow,
        .evictable = true,
        .containers = {{.name = "app", .demand = demandOf(node % 7, 1)}},
        .policy = &c.policies.back()};
  }
  const auto [w, replica] = placementOf(node, slot);
  rollout::OptimisedPod p{
      .pod = &pod,
      .workload = api::workloadRef(
          isStatefulSet(w) ? api::WorkloadKind::kStatefulSet : api::WorkloadKind::kDeployment,
          pod.metadata.namespace_, "app-" + std::to_string(w)),
      .workloadKind =
          isStatefulSet(w) ? api::TargetKind::kStatefulSet : api::TargetKind::kDeployment,
      .ranking = rankingOf(w),
      .evictable = (w + replica) % 20 != 0,
      .containers = {},
      .policy = &c.policies[static_cast<std::size_t>(w % kNamespaces)]};
  for (int i = 0; i < containersSized(w); ++i) {
    p.containers.push_back(
        {.name = pod.spec.containers[static_cast<std::size_t>(i)].name, .demand = demandOf(w, i)});
  }
  return p;
}

Cluster buildCluster() {
  Cluster c;
  c.listJson =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"987654321","continue":""},"items":[)";
  for (int n = 0; n < kNodes; ++n) {
    c.nodes.push_back(node(n));
    for (int s = 0; s < kPodsPerNode; ++s) {
      if (n + s > 0) c.listJson += ',';
      c.listJson += podJson(n, s).dump();
    }
  }
  c.listJson += "]}";
  auto list = api::decodePodList(c.listJson);
  if (!list) die("decodePodList failed: " + list.error().toString());
  c.pods = std::move(list->items);
  c.policies = policies();
  c.input.nodes = c.nodes;
  c.input.pods = c.pods;
  for (int n = 0; n < kNodes; ++n) {
    for (int s = 0; s < kPodsPerNode; ++s) {
      if (slotOf(s) != Slot::kOptimisedDaemonSet && slotOf(s) != Slot::kOptimised) continue;
      c.input.optimised.push_back(optimised(c, n, s));
      c.sizedContainers += c.input.optimised.back().containers.size();
    }
  }
  return c;
}

const Cluster& cluster() {
  static const Cluster c = buildCluster();
  return c;
}

// Aborts unless `out` planned every node and evicted only on the small ones.
void verify(const rollout::NodeOptimisation& out) {
  if (out.nodes.size() != static_cast<std::size_t>(kNodes)) {
    die("optimiseNodes planned " + std::to_string(out.nodes.size()) + " nodes");
  }
  if (out.evictions.empty()) die("optimiseNodes evicted nothing");
  for (const rollout::NodeSummary& s : out.nodes) {
    const bool small = std::stoi(s.node.substr(s.node.find('-') + 1)) % kSmallNodeEvery == 0;
    if (s.evicted > 0 && !small) die("optimiseNodes evicted on " + s.node);
  }
}

void BM_OptimiseNodes(benchmark::State& state) {
  const Cluster& c = cluster();
  std::size_t evictions = 0;
  for (auto _ : state) {
    rollout::NodeOptimisation out = rollout::optimiseNodes(c.input);
    evictions = out.evictions.size();
    benchmark::DoNotOptimize(out);
  }
  state.counters["pods"] = static_cast<double>(c.input.optimised.size());
  state.counters["evictions"] = static_cast<double>(evictions);
}

void BM_ListPods(benchmark::State& state) {
  const std::string& json = cluster().listJson;
  for (auto _ : state) {
    auto list = api::decodePodList(json);
    if (!list || list->items.size() != static_cast<std::size_t>(kPods)) die("LIST decode failed");
    benchmark::DoNotOptimize(list);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * json.size()));
  state.counters["pods"] = kPods;
}

BENCHMARK(BM_OptimiseNodes)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_ListPods)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

void printSummary(const attune::bench::MeanTimeReporter& reporter) {
  const auto ours = reporter.meanSeconds(kOurs);
  const auto baseline = reporter.meanSeconds(kBaseline);
  if (!ours || !baseline) return;
  const Cluster& c = cluster();
  const rollout::NodeOptimisation out = rollout::optimiseNodes(c.input);
  std::printf(
      "cluster: %d nodes x %d pods = %d pods; %zu optimised (%zu sized containers); LIST body "
      "%.1f MiB\n"
      "node-optimisation pass: %.1f ms (%zu targets, %zu evictions)   LIST of the pods: %.1f ms\n"
      "ratio pass / LIST: %.2fx\n",
      kNodes, kPodsPerNode, kPods, c.input.optimised.size(), c.sizedContainers,
      static_cast<double>(c.listJson.size()) / (1024.0 * 1024.0), *ours * 1e3, out.targets.size(),
      out.evictions.size(), *baseline * 1e3, *ours / *baseline);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  verify(rollout::optimiseNodes(cluster().input));  // before any timing
  attune::bench::MeanTimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printSummary(reporter);
  benchmark::Shutdown();
  return 0;
}
