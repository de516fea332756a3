#include "rollout/startup_boost.h"

#include <algorithm>
#include <cmath>

#include "api/k8s/meta.h"
#include "api/policy/policy_defaults.h"
#include "core/quantity.h"
#include "rollout/prechecks.h"
#include "safety/resize_record.h"

namespace attune::rollout {
namespace {

bool resizes(const api::AttunePolicy& policy) {
  const auto mode = policy.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode);
  return !policy.spec.paused.value_or(false) && mode != api::UpdateMode::kObserve &&
         mode != api::UpdateMode::kRecommend;
}

bool resizePending(const api::Pod& pod) {
  return api::findCondition(pod.status.conditions, api::kPodResizePending) != nullptr ||
         api::findCondition(pod.status.conditions, api::kPodResizeInProgress) != nullptr;
}

const api::Node* nodeOf(const api::Pod& pod, std::span<const api::Node> nodes) {
  for (const api::Node& n : nodes) {
    if (n.metadata.name == pod.spec.nodeName) return &n;
  }
  return nullptr;
}

std::optional<std::string> annotation(const api::Pod& pod, const std::string& key) {
  auto it = pod.metadata.annotations.find(key);
  if (it == pod.metadata.annotations.end()) return std::nullopt;
  return it->second;
}

std::string cpuText(const std::optional<Millicores>& m) { return m ? formatCpu(*m) : ""; }

ResourceChange cpuChange(const std::string& container, const api::ResourceValues& from,
                         const api::ResourceValues& to) {
  return {.container = container,
          .resource = api::ResizedResource::kCpu,
          .from = cpuText(from.cpuRequest),
          .to = cpuText(to.cpuRequest),
          .limitFrom = cpuText(from.cpuLimit),
          .limitTo = cpuText(to.cpuLimit)};
}

std::string describe(const std::vector<ResourceChange>& changes) {
  std::string out;
  for (const ResourceChange& c : changes) {
    if (!out.empty()) out += ", ";
    out += c.container + ": cpu " + c.from + " -> " + c.to;
  }
  return out;
}

api::ResourceValues cpuTarget(Millicores request) {
  api::ResourceValues v;
  v.cpuRequest = request;
  return v;
}

// The boost of one pod, or nothing when no container would get more CPU.
void planBoost(const api::AttunePolicy& policy, const BoostWorkload& w, const api::Pod& pod,
               const api::Node* node, double multiplier, Time now, Plan& plan,
               std::set<std::string>& handled) {
  const auto mode = policy.spec.cpu.controlledValues.value_or(api::kDefaultControlledValues);
  const bool guaranteed = api::computeQosClass(pod.spec) == api::QosClass::kGuaranteed;
  const Millicores maxAllowed = policy.spec.cpu.maxAllowed.value_or(api::kDefaultCpuMaxAllowed);
  // The CPU the node can still give this pod: its allocatable less the pod's other requests.
  std::optional<Millicores> room;
  if (node != nullptr && node->status.allocatable.cpu) {
    Millicores boostable(0);
    for (const api::Container& c : pod.spec.containers) {
      if (!api::isExcludedContainer(policy, c.name) && w.targets.contains(c.name) &&
          c.resources.requests.cpu) {
        boostable += c.resources.requests.cpu->toMillicores();
      }
    }
    room = node->status.allocatable.cpu->toMillicores() - (podRequests(pod.spec).cpu - boostable);
  }
  StartupBoostAction action{.workload = w.ref,
                            .pod = pod.metadata.name,
                            .podResourceVersion = pod.metadata.resourceVersion,
                            .annotations = {},
                            .containers = {},
                            .changes = {},
                            .message = {}};
  for (const api::Container& c : pod.spec.containers) {
    if (api::isExcludedContainer(policy, c.name)) continue;
    auto target = w.targets.find(c.name);
    const api::ResourceValues current = safety::resourceValuesOf(c.resources);
    if (target == w.targets.end() || !target->second.cpuRequest || !current.cpuRequest) continue;
    const api::ResourceValues steady =
        deriveTarget(current, cpuTarget(*target->second.cpuRequest), mode, guaranteed);
    if (!steady.cpuRequest) continue;
    Millicores boosted(static_cast<std::int64_t>(
        std::ceil(static_cast<double>(steady.cpuRequest->value()) * multiplier)));
    boosted = std::min(boosted, maxAllowed);
    if (room) boosted = std::min(boosted, *room);
    api::ResourceValues after = deriveTarget(current, cpuTarget(boosted), mode, guaranteed);
    if (!after.cpuRequest || *after.cpuRequest <= *current.cpuRequest) continue;
    if (room) *room -= *after.cpuRequest - *current.cpuRequest;
    action.annotations[std::string(kBoostCpuRequestPrefix) + c.name] =
        formatCpu(*current.cpuRequest);
    if (current.cpuLimit && after.cpuLimit != current.cpuLimit) {
      action.annotations[std::string(kBoostCpuLimitPrefix) + c.name] = formatCpu(*current.cpuLimit);
    }
    action.containers.push_back(
        {.name = c.name, .resources = safety::withResourceValues(c.resources, after)});
    action.changes.push_back(cpuChange(c.name, current, after));
  }
  if (action.containers.empty()) return;
  action.annotations[std::string(kStartupBoostAtAnnotation)] = formatRfc3339(now);
  const Duration duration = *policy.spec.cpu.startupBoost->duration;
  action.message = "startup boost x" + policy.spec.cpu.startupBoost->multiplier + " until " +
                   formatRfc3339(now + duration) + ": " + describe(action.changes);
  plan.requeue(duration);
  handled.insert(pod.metadata.name);
  plan.actions.emplace_back(std::move(action));
}

// The end of a pod's boost.
void planEnd(const api::AttunePolicy& policy, const BoostWorkload& w, const api::Pod& pod,
             Plan& plan) {
  const auto mode = policy.spec.cpu.controlledValues.value_or(api::kDefaultControlledValues);
  const bool guaranteed = api::computeQosClass(pod.spec) == api::QosClass::kGuaranteed;
  EndStartupBoostAction action{.workload = w.ref,
                               .pod = pod.metadata.name,
                               .containers = {},
                               .changes = {},
                               .clearBoost = {},
                               .message = {}};
  for (const auto& [key, value] : pod.metadata.annotations) {
    if (key == kStartupBoostAtAnnotation || key.starts_with(kBoostCpuRequestPrefix) ||
        key.starts_with(kBoostCpuLimitPrefix)) {
      action.clearBoost[key] = std::nullopt;
    }
  }
  for (const api::Container& c : pod.spec.containers) {
    const auto recordedRequest = annotation(pod, std::string(kBoostCpuRequestPrefix) + c.name);
    if (!recordedRequest) continue;
    const api::ResourceValues current = safety::resourceValuesOf(c.resources);
    api::ResourceValues before = current;
    if (auto r = parseCpu(*recordedRequest)) before.cpuRequest = *r;
    if (auto l = annotation(pod, std::string(kBoostCpuLimitPrefix) + c.name)) {
      if (auto parsed = parseCpu(*l)) before.cpuLimit = *parsed;
    }
    api::ResourceValues after = before;
    auto target = w.targets.find(c.name);
    if (target != w.targets.end() && target->second.cpuRequest && before.cpuRequest) {
      after = deriveTarget(before, cpuTarget(*target->second.cpuRequest), mode, guaranteed);
    }
    // Memory is the pod's own: only the CPU returns.
    after.memoryRequest = current.memoryRequest;
    after.memoryLimit = current.memoryLimit;
    if (after == current) continue;
    action.containers.push_back(
        {.name = c.name, .resources = safety::withResourceValues(c.resources, after)});
    action.changes.push_back(cpuChange(c.name, current, after));
  }
  action.message = action.changes.empty() ? "startup boost ended"
                                          : "startup boost ended: " + describe(action.changes);
  plan.actions.emplace_back(std::move(action));
}

}  // namespace

std::set<std::string> planStartupBoost(const api::AttunePolicy& policy,
                                       std::span<const BoostWorkload> workloads,
                                       std::span<const api::Node> nodes, Time now, Plan& plan) {
  std::set<std::string> handled;
  const auto& boost = policy.spec.cpu.startupBoost;
  // A plain double (0 when unset or unparsable): g++ -O3 cannot see that an optional read below
  // is guarded by `configured`, and warns.
  const double multiplier = boost ? api::parseDecimal(boost->multiplier).value_or(0.0) : 0.0;
  const bool configured = boost && boost->duration && multiplier > 1;
  for (const BoostWorkload& w : workloads) {
    for (const api::Pod* pod : w.pods) {
      if (pod->metadata.deletionTimestamp) continue;
      if (auto at = annotation(*pod, std::string(kStartupBoostAtAnnotation))) {
        handled.insert(pod->metadata.name);
        const auto since = parseRfc3339(*at);
        if (configured && since && now < *since + *boost->duration) {
          plan.requeue(*since + *boost->duration - now);
          continue;
        }
        planEnd(policy, w, *pod, plan);
        continue;
      }
      if (!configured || !resizes(policy) || pod->status.phase != "Running" ||
          safety::hasResizeRecord(*pod) || resizePending(*pod) ||
          !pod->metadata.creationTimestamp ||
          now - *pod->metadata.creationTimestamp >= *boost->duration) {
        continue;
      }
      planBoost(policy, w, *pod, nodeOf(*pod, nodes), multiplier, now, plan, handled);
    }
  }
  return handled;
}

}  // namespace attune::rollout
