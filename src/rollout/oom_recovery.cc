#include "rollout/oom_recovery.h"

#include <algorithm>
#include <charconv>

#include "safety/annotations.h"

namespace attune::rollout {

namespace {

bool optedOut(const api::StringMap& annotations) {
  auto it = annotations.find(safety::kSkipAnnotation);
  return it != annotations.end() && it->second == "true";
}

std::string cooldownKey(std::string_view pod, std::string_view container) {
  return std::string(pod) + "/" + std::string(container);
}

// The container's memory limit (where the kernel killed it); 0 without one.
Bytes memoryLimitOf(const api::Pod& pod, std::string_view container) {
  const api::Container* c = pod.spec.findContainer(container);
  if (c == nullptr || !c->resources.limits.memory) return Bytes(0);
  return c->resources.limits.memory->toBytes();
}

}  // namespace

Bytes recordedOomMemory(const api::StringMap& annotations, std::string_view container) {
  auto it = annotations.find(std::string(kOomMemoryAnnotationPrefix) + std::string(container));
  if (it == annotations.end()) return Bytes(0);
  std::int64_t value = 0;
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) return Bytes(0);
  return Bytes(value);
}

std::vector<OomDecision> planOomRecovery(const OomWorkload& workload, OomCooldowns& cooldowns,
                                         Time now, const OomRecoveryOptions& options, Plan& plan) {
  std::vector<OomDecision> decisions;
  const api::StringMap& workloadAnnotations = workload.meta->annotations;
  for (const OomPod& entry : workload.pods) {
    const api::Pod& pod = *entry.pod;
    EvictAction evict{.workload = workload.ref,
                      .pod = pod.metadata.name,
                      .podUid = pod.metadata.uid,
                      .cause = std::string(kOomKilledCause)};
    for (const api::ContainerStatus& status : pod.status.containerStatuses) {
      const auto& terminated = status.lastState.terminated;
      if (!terminated || terminated->reason != kOomKilledCause || !terminated->finishedAt) {
        continue;
      }
      OomDecision decision{.pod = pod.metadata.name,
                           .container = status.name,
                           .memoryAtKill = memoryLimitOf(pod, status.name)};
      const std::string key = cooldownKey(pod.metadata.name, status.name);
      auto handled = cooldowns.find(key);
      if (entry.underObservation) {
        decision.outcome = OomDecision::Outcome::kLeftToSafetyMonitor;
        // This kill is the monitor's: remembered, so that once its revert has removed the
        // record the pod is not evicted for it as well; no cooldown starts with it.
        const Time since = handled != cooldowns.end() ? handled->second.handledAt : Time{};
        cooldowns[key] = HandledOomKill{*terminated->finishedAt, since};
      } else if (handled != cooldowns.end() &&
                 handled->second.finishedAt == *terminated->finishedAt) {
        decision.outcome = OomDecision::Outcome::kAlreadyHandled;
      } else if (handled != cooldowns.end() && now - handled->second.handledAt < options.cooldown) {
        decision.outcome = OomDecision::Outcome::kCooldown;
      } else if (!workload.memoryManaged || optedOut(workloadAnnotations) ||
                 optedOut(pod.metadata.annotations)) {
        decision.outcome = OomDecision::Outcome::kOptedOut;
      } else {
        decision.outcome = OomDecision::Outcome::kEvict;
        cooldowns[key] = {*terminated->finishedAt, now};
        const Bytes recorded = recordedOomMemory(workloadAnnotations, status.name);
        if (decision.memoryAtKill > recorded) {
          evict.workloadAnnotations[std::string(kOomMemoryAnnotationPrefix) + status.name] =
              std::to_string(decision.memoryAtKill.value());
        }
        if (evict.container.empty()) evict.container = status.name;
        evict.message += (evict.message.empty() ? "" : "; ") + status.name +
                         " OOM-killed at its memory limit " + formatMemory(decision.memoryAtKill);
      }
      decisions.push_back(decision);
    }
    if (!evict.message.empty()) {
      evict.message = "evicted for recreation with a higher memory limit: " + evict.message;
      plan.actions.emplace_back(std::move(evict));
    }
  }
  return decisions;
}

}  // namespace attune::rollout
