// checkScenario(): the rules that span fields or objects of a decoded scenario.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "sim/engine/cron_schedule.h"
#include "sim/scenario/scenario_decoders.h"

namespace attune::sim::internal {
namespace {

// At most this many ticks in one run (ten years of minutes): a guard against a typo such as
// tick: 1ms over days, not a limit of the engine.
constexpr std::int64_t kMaxTicks = 10LL * 366 * 24 * 60;

// A DNS-1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric, at most
// `max` characters.
bool isDnsLabel(std::string_view s, std::size_t max = 63) {
  if (s.empty() || s.size() > max) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

void checkName(YamlReader& r, std::string_view name, const std::string& path,
               std::size_t max = 63) {
  if (!name.empty() && !isDnsLabel(name, max)) {
    r.error(path,
            "must be a DNS-1123 label (lower-case letters, digits and '-', starting and "
            "ending with a letter or digit, at most " +
                std::to_string(max) + " characters), got \"" + std::string(name) + "\"");
  }
}

void checkRun(YamlReader& r, const Scenario& s) {
  checkName(r, s.name, "metadata.name");
  if (s.tick <= Duration::zero()) r.error("spec.tick", "must be positive");
  if (s.duration <= Duration::zero()) r.error("spec.duration", "must be positive");
  if (s.tick > Duration::zero() && s.duration > Duration::zero()) {
    if (s.tick > s.duration) r.error("spec.tick", "must not be longer than spec.duration");
    if (s.duration / s.tick > kMaxTicks) {
      r.error("spec.tick", "gives more than " + std::to_string(kMaxTicks) +
                               " ticks over spec.duration; use a longer tick");
    }
  }
  const KubeletOptions& k = s.kubelet;
  if (k.notReadyAboveThrottleRatio &&
      (*k.notReadyAboveThrottleRatio < 0 || *k.notReadyAboveThrottleRatio > 1)) {
    r.error("spec.kubelet.notReadyAboveThrottleRatio", "must be in [0, 1]");
  }
  if (k.cfsPeriod <= Duration::zero()) r.error("spec.kubelet.cfsPeriod", "must be positive");
  if (k.startupDuration < Duration::zero()) {
    r.error("spec.kubelet.startupDuration", "must not be negative");
  }
}

// A pool's autoscaling fields: minSize <= count <= maxSize <= 10000, only with
// spec.clusterAutoscaler; a price that is a non-negative number.
void checkNodeGroup(YamlReader& r, const Scenario& s, const NodePool& p, const std::string& path) {
  if (!(p.pricePerHour >= 0) || !std::isfinite(p.pricePerHour)) {
    r.error(path + ".pricePerHour", "must be a non-negative number");
  }
  for (const auto& [field, value] : {std::pair{"minSize", p.minSize}, {"maxSize", p.maxSize}}) {
    if (value && !s.clusterAutoscaler) {
      r.error(path + "." + field,
              "needs spec.clusterAutoscaler: without it every pool keeps its count");
    }
  }
  if (p.minSize && (*p.minSize < 0 || *p.minSize > p.count)) {
    r.error(path + ".minSize", "must be in [0, count]");
  }
  if (p.maxSize && (*p.maxSize < p.count || *p.maxSize > 10000)) {
    r.error(path + ".maxSize", "must be in [count, 10000]");
  }
}

void checkClusterAutoscaler(YamlReader& r, const Scenario& s) {
  if (!s.clusterAutoscaler) return;
  const ClusterAutoscalerOptions& o = *s.clusterAutoscaler;
  const std::string path = "spec.clusterAutoscaler";
  if (!(o.scaleDownUtilizationThreshold > 0 && o.scaleDownUtilizationThreshold <= 1)) {
    r.error(path + ".scaleDownUtilizationThreshold", "must be in (0, 1]");
  }
  if (o.scaleDownUnneededTime < Duration::zero()) {
    r.error(path + ".scaleDownUnneededTime", "must not be negative");
  }
  if (o.scaleDownDelayAfterAdd < Duration::zero()) {
    r.error(path + ".scaleDownDelayAfterAdd", "must not be negative");
  }
  if (o.provisioningDelay < Duration::zero()) {
    r.error(path + ".provisioningDelay", "must not be negative");
  }
  if (o.maxEmptyBulkDelete < 1) r.error(path + ".maxEmptyBulkDelete", "must be at least 1");
}

void checkNodePools(YamlReader& r, const Scenario& s) {
  if (s.nodePools.empty()) r.error("spec.nodePools", "at least one node pool is required");
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < s.nodePools.size(); ++i) {
    const NodePool& p = s.nodePools[i];
    const std::string path = "spec.nodePools[" + std::to_string(i) + "]";
    checkName(r, p.name, path + ".name", 50);
    if (!p.name.empty() && !names.insert(p.name).second) {
      r.error(path + ".name", "duplicate node pool \"" + p.name + "\"");
    }
    if (p.count < 0 || p.count > 10000) r.error(path + ".count", "must be in [0, 10000]");
    if (p.cpu <= Millicores(0)) r.error(path + ".cpu", "must be positive");
    if (p.memory <= Bytes(0)) r.error(path + ".memory", "must be positive");
    if (p.pods < 1) r.error(path + ".pods", "must be at least 1");
    if (p.allocatableCpu && p.cpu > Millicores(0) && *p.allocatableCpu > p.cpu) {
      r.error(path + ".allocatable.cpu", "must not exceed the capacity (cpu)");
    }
    if (p.allocatableMemory && p.memory > Bytes(0) && *p.allocatableMemory > p.memory) {
      r.error(path + ".allocatable.memory", "must not exceed the capacity (memory)");
    }
    if (p.allocatablePods && (*p.allocatablePods < 0 || *p.allocatablePods > p.pods)) {
      r.error(path + ".allocatable.pods", "must be in [0, pods]");
    }
    checkNodeGroup(r, s, p, path);
  }
}

void checkResources(YamlReader& r, const api::ResourceRequirements& res, const std::string& path) {
  for (std::string_view name : {"cpu", "memory"}) {
    const Quantity* request = res.requests.find(name);
    const Quantity* limit = res.limits.find(name);
    if (request && limit && *limit < *request) {
      r.error(path + ".requests." + std::string(name),
              "must be less than or equal to the " + std::string(name) + " limit");
    }
  }
}

void checkWorkload(YamlReader& r, const WorkloadScenario& w) {
  using enum api::WorkloadKind;
  const std::string& path = w.fieldPath;
  const bool batch = w.kind == kJob || w.kind == kCronJob;
  checkName(r, w.namespace_, path + ".namespace");
  checkName(r, w.name, path + ".name", w.kind == kCronJob ? 52 : 63);
  if (w.replicas) {
    if (w.kind != kDeployment && w.kind != kStatefulSet) {
      r.error(path + ".replicas", "only Deployments and StatefulSets have replicas");
    } else if (*w.replicas < 0) {
      r.error(path + ".replicas", "must not be negative");
    }
  }
  if (!w.restartPolicy.empty() && batch == (w.restartPolicy == "Always")) {
    r.error(path + ".restartPolicy",
            batch ? "must be OnFailure or Never for a " + std::string(api::kindName(w.kind))
                  : "must be Always for a " + std::string(api::kindName(w.kind)));
  }
  for (auto [field, set] : {std::pair{"completions", w.completions.has_value()},
                            std::pair{"parallelism", w.parallelism.has_value()},
                            std::pair{"backoffLimit", w.backoffLimit.has_value()}}) {
    if (set && !batch) {
      r.error(path + "." + field, "only Jobs and CronJobs have " + std::string(field));
    }
  }
  for (auto [field, value] :
       {std::pair{"completions", w.completions}, std::pair{"parallelism", w.parallelism},
        std::pair{"backoffLimit", w.backoffLimit}}) {
    if (value && *value < 0) r.error(path + "." + field, "must not be negative");
  }
  if (w.kind == kCronJob) {
    if (w.schedule.empty()) {
      r.error(path + ".schedule", "required for a CronJob");
    } else if (auto s = CronSchedule::parse(w.schedule); !s) {
      r.error(path + ".schedule", s.error().message);
    }
  } else {
    if (!w.schedule.empty()) r.error(path + ".schedule", "only CronJobs have a schedule");
    if (w.concurrencyPolicy != "Allow") {
      r.error(path + ".concurrencyPolicy", "only CronJobs have a concurrencyPolicy");
    }
    if (w.suspend) r.error(path + ".suspend", "only CronJobs can be suspended here");
  }
  if (w.containers.empty()) r.error(path + ".containers", "at least one container is required");
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < w.containers.size(); ++i) {
    const ContainerScenario& c = w.containers[i];
    const std::string cpath = path + ".containers[" + std::to_string(i) + "]";
    checkName(r, c.name, cpath + ".name");
    if (!c.name.empty() && !names.insert(c.name).second) {
      r.error(cpath + ".name", "duplicate container \"" + c.name + "\"");
    }
    checkResources(r, c.resources, cpath);
    checkModel(r, c.model, cpath + ".model");
  }
}

// Unique (kind, namespace, name) across the workloads, and the namespaces they use.
void checkWorkloads(YamlReader& r, const Scenario& s) {
  std::set<std::tuple<api::WorkloadKind, std::string, std::string>> seen;
  for (const WorkloadScenario& w : s.workloads) {
    checkWorkload(r, w);
    if (!w.name.empty() && !seen.emplace(w.kind, w.namespace_, w.name).second) {
      r.error(w.fieldPath + ".name", "duplicate " + std::string(api::kindName(w.kind)) + " \"" +
                                         w.namespace_ + "/" + w.name + "\"");
    }
  }
  for (const TraceWorkloads& t : s.traces) {
    checkName(r, t.namespace_, t.fieldPath + ".namespace");
    if (t.limit && *t.limit < 1) r.error(t.fieldPath + ".limit", "must be at least 1");
  }
}

template <typename T>
void checkObjects(YamlReader& r, const std::vector<T>& objects, const std::string& path,
                  std::string_view what) {
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const api::ObjectMeta& meta = objects[i].metadata;
    const std::string item = path + "[" + std::to_string(i) + "]";
    checkName(r, meta.namespace_, item + ".namespace");
    checkName(r, meta.name, item + ".name");
    if (!seen.emplace(meta.namespace_, meta.name).second) {
      r.error(item + ".name",
              "duplicate " + std::string(what) + " \"" + meta.namespace_ + "/" + meta.name + "\"");
    }
  }
}

// autoscaling/v2's bounds on behavior: windows in [0, 3600] s, policy values > 0, periods in
// [1, 1800] s, tolerance >= 0.
void checkScalingRules(YamlReader& r, const std::optional<api::HpaScalingRules>& rules,
                       const std::string& path) {
  if (!rules) return;
  if (rules->stabilizationWindowSeconds &&
      (*rules->stabilizationWindowSeconds < 0 || *rules->stabilizationWindowSeconds > 3600)) {
    r.error(path + ".stabilizationWindowSeconds", "must be in [0, 3600]");
  }
  for (std::size_t i = 0; i < rules->policies.size(); ++i) {
    const api::HpaScalingPolicy& p = rules->policies[i];
    const std::string item = path + ".policies[" + std::to_string(i) + "]";
    if (p.value <= 0) r.error(item + ".value", "must be greater than 0");
    if (p.periodSeconds < 1 || p.periodSeconds > 1800) {
      r.error(item + ".periodSeconds", "must be in [1, 1800]");
    }
  }
  if (rules->tolerance && rules->tolerance->nanos() < 0) {
    r.error(path + ".tolerance", "must not be negative");
  }
}

void checkHpas(YamlReader& r, const Scenario& s) {
  checkObjects(r, s.hpas, "spec.hpas", "HPA");
  for (std::size_t i = 0; i < s.hpas.size(); ++i) {
    const api::HorizontalPodAutoscaler& hpa = s.hpas[i];
    const std::string path = "spec.hpas[" + std::to_string(i) + "]";
    const api::ScaleTargetRef& ref = hpa.spec.scaleTargetRef;
    const bool found = std::any_of(s.workloads.begin(), s.workloads.end(), [&](const auto& w) {
      return w.namespace_ == hpa.metadata.namespace_ && w.name == ref.name &&
             api::kindName(w.kind) == ref.kind;
    });
    if (!ref.name.empty() && !found) {
      r.error(path + ".scaleTargetRef", "no " + ref.kind + " \"" + ref.name + "\" in namespace \"" +
                                            hpa.metadata.namespace_ + "\" among spec.workloads");
    }
    if (hpa.spec.maxReplicas < 1) r.error(path + ".maxReplicas", "must be at least 1");
    if (hpa.spec.minReplicas &&
        (*hpa.spec.minReplicas < 1 || *hpa.spec.minReplicas > hpa.spec.maxReplicas)) {
      r.error(path + ".minReplicas", "must be in [1, maxReplicas]");
    }
    if (hpa.spec.behavior) {
      checkScalingRules(r, hpa.spec.behavior->scaleUp, path + ".behavior.scaleUp");
      checkScalingRules(r, hpa.spec.behavior->scaleDown, path + ".behavior.scaleDown");
    }
  }
}

// policy/v1 validation (api::validatePdbSpec).
void checkPodDisruptionBudgets(YamlReader& r, const Scenario& s) {
  checkObjects(r, s.podDisruptionBudgets, "spec.podDisruptionBudgets", "PodDisruptionBudget");
  for (std::size_t i = 0; i < s.podDisruptionBudgets.size(); ++i) {
    const std::string path = "spec.podDisruptionBudgets[" + std::to_string(i) + "]";
    for (const Error& e : api::validatePdbSpec(s.podDisruptionBudgets[i].spec)) {
      r.error(joinPath(path, e.field.empty() ? "maxUnavailable" : e.field), e.message);
    }
  }
}

}  // namespace

void checkScenario(YamlReader& r, const Scenario& scenario) {
  checkRun(r, scenario);
  checkNodePools(r, scenario);
  checkClusterAutoscaler(r, scenario);
  for (std::size_t i = 0; i < scenario.namespaces.size(); ++i) {
    checkName(r, scenario.namespaces[i], "spec.namespaces[" + std::to_string(i) + "]");
  }
  checkWorkloads(r, scenario);
  checkObjects(r, scenario.limitRanges, "spec.limitRanges", "LimitRange");
  checkObjects(r, scenario.resourceQuotas, "spec.resourceQuotas", "ResourceQuota");
  checkHpas(r, scenario);
  checkPodDisruptionBudgets(r, scenario);
}

}  // namespace attune::sim::internal
