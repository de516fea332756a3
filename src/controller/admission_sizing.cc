#include "controller/admission_sizing.h"

#include <algorithm>
#include <set>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "recommend/cruisekube_strategy.h"

namespace attune::controller {
namespace {

template <typename Amount>
Amount bounded(Amount v, const api::ResourcePolicy<Amount>& p) {
  if (p.minAllowed && v < *p.minAllowed) v = *p.minAllowed;
  if (p.maxAllowed && v > *p.maxAllowed) v = *p.maxAllowed;
  return v;
}

template <typename Amount>
bool controlsLimits(const api::ResourcePolicy<Amount>& p) {
  return p.controlledValues.value_or(api::ControlledValues::kRequestsOnly) ==
         api::ControlledValues::kRequestsAndLimits;
}

bool sizesAtAdmission(const api::AttunePolicy& policy) {
  return policy.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode) ==
             api::UpdateMode::kAuto &&
         !policy.spec.paused.value_or(api::kDefaultPaused);
}

}  // namespace

WorkloadSizing cruisekubeSizing(const std::vector<RecommendedWorkload>& workloads,
                                const usage::UsageHistory& history, const api::AttunePolicy& policy,
                                Time now) {
  WorkloadSizing out;
  if (!sizesAtAdmission(policy)) return out;
  const int minimum =
      policy.spec.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints);
  const api::CpuPolicy& cpu = policy.spec.cpu;
  const api::MemoryPolicy& memory = policy.spec.memory;
  for (const RecommendedWorkload& workload : workloads) {
    std::vector<webhook::ContainerSizing> containers;
    for (const RecommendedContainer& c : workload.containers) {
      if (c.dataPoints < minimum) continue;
      const usage::ContainerUsage* tracked = history.find(workload.ref, c.name);
      if (tracked == nullptr) continue;
      auto demand = recommend::cruisekubeDemand(tracked->stats(), now);
      if (!demand) continue;
      webhook::ContainerSizing s{
          .container = c.name,
          .cpuRequest = bounded(demand->cpuBase + demand->cpuHeadroom, cpu),
          .memoryRequest = bounded(demand->memoryBase + demand->memoryHeadroom, memory),
          .memoryLimit = std::nullopt,
          .removeCpuLimit = controlsLimits(cpu)};
      if (controlsLimits(memory)) s.memoryLimit = bounded(demand->memoryLimit, memory);
      containers.push_back(std::move(s));
    }
    if (!containers.empty()) out.emplace(workload.ref, std::move(containers));
  }
  return out;
}

WorkloadSizing recommendationSizing(const std::vector<RecommendedWorkload>& workloads,
                                    const api::AttunePolicy& policy) {
  WorkloadSizing out;
  if (!sizesAtAdmission(policy)) return out;
  const bool cpuLimits = controlsLimits(policy.spec.cpu);
  const bool memoryLimits = controlsLimits(policy.spec.memory);
  for (const RecommendedWorkload& workload : workloads) {
    std::vector<webhook::ContainerSizing> containers;
    for (const RecommendedContainer& c : workload.containers) {
      const recommend::Recommendation& r = c.recommendation;
      if (!r.enoughData || !r.resources.cpuRequest || !r.resources.memoryRequest) continue;
      webhook::ContainerSizing s{.container = c.name,
                                 .cpuRequest = r.resources.cpuRequest,
                                 .memoryRequest = r.resources.memoryRequest,
                                 .memoryLimit = std::nullopt,
                                 .removeCpuLimit = cpuLimits && !r.resources.cpuLimit};
      if (memoryLimits) s.memoryLimit = r.resources.memoryLimit;
      containers.push_back(std::move(s));
    }
    if (!containers.empty()) out.emplace(workload.ref, std::move(containers));
  }
  return out;
}

WorkloadSizing keepingRecreatedWorkloads(WorkloadSizing next, const WorkloadSizing& previous,
                                         const std::vector<TargetWorkload>& targets,
                                         const std::vector<RecommendedWorkload>& recommended,
                                         const api::AttunePolicy& policy) {
  if (!sizesAtAdmission(policy) || previous.empty()) return next;
  std::set<api::WorkloadRef> withRecommendation;
  for (const RecommendedWorkload& w : recommended) withRecommendation.insert(w.ref);
  for (const TargetWorkload& t : targets) {
    if (next.contains(t.ref) || withRecommendation.contains(t.ref)) continue;
    if (auto it = previous.find(t.ref); it != previous.end()) next.emplace(t.ref, it->second);
  }
  return next;
}

WorkloadSizing AdmissionSizing::publishedBy(std::string_view policy) const {
  std::lock_guard lock(mutex_);
  auto it = byPolicy_.find(policy);
  return it == byPolicy_.end() ? WorkloadSizing{} : it->second;
}

void AdmissionSizing::publish(const std::string& policy, WorkloadSizing sizing) {
  std::lock_guard lock(mutex_);
  if (sizing.empty()) {
    byPolicy_.erase(policy);
  } else {
    byPolicy_[policy] = std::move(sizing);
  }
  rebuild();
}

void AdmissionSizing::withdraw(std::string_view policy) {
  std::lock_guard lock(mutex_);
  if (auto it = byPolicy_.find(policy); it != byPolicy_.end()) {
    byPolicy_.erase(it);
    rebuild();
  }
}

void AdmissionSizing::rebuild() {
  auto merged = std::make_shared<WorkloadSizing>();
  for (const auto& [policy, sizing] : byPolicy_) {
    for (const auto& [ref, containers] : sizing) merged->try_emplace(ref, containers);
  }
  snapshot_ = std::move(merged);
}

std::optional<std::vector<webhook::ContainerSizing>> AdmissionSizing::lookup(
    const api::WorkloadRef& workload) const {
  std::shared_ptr<const WorkloadSizing> snapshot;
  {
    std::lock_guard lock(mutex_);
    snapshot = snapshot_;
  }
  auto it = snapshot->find(workload);
  if (it == snapshot->end()) return std::nullopt;
  return it->second;
}

std::size_t AdmissionSizing::size() const {
  std::lock_guard lock(mutex_);
  return snapshot_->size();
}

}  // namespace attune::controller
