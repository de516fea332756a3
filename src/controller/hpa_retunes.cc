#include "controller/hpa_retunes.h"

#include <map>
#include <optional>

#include "hpa/retune.h"
#include "safety/resize_record.h"

namespace attune::controller {
namespace {

api::ResizedResource resourceOf(const api::MetricSpec& m) {
  const std::string& name = m.resource ? m.resource->name : m.containerResource->name;
  return name == "memory" ? api::ResizedResource::kMemory : api::ResizedResource::kCpu;
}

rollout::HpaRetuneAction actionOf(const api::WorkloadRef& workload, hpa::Retune r, bool restore) {
  rollout::HpaRetuneAction a{.workload = workload,
                             .hpa = {},
                             .changes = {},
                             .restore = restore,
                             .clamped = r.clamped,
                             .message = std::move(r.message)};
  for (const hpa::MetricRetune& c : r.changes) {
    a.changes.push_back({c.metric, resourceOf(r.hpa.spec.metrics[c.index]), c.from, c.to});
  }
  a.hpa = std::move(r.hpa);
  return a;
}

hpa::ContainerRequests specRequests(const api::Pod& pod) {
  hpa::ContainerRequests out;
  for (const api::Container& c : pod.spec.containers) {
    out[c.name] = safety::resourceValuesOf(c.resources);
  }
  return out;
}

void apply(hpa::ContainerRequests& requests, std::span<const api::ContainerResize> resizes) {
  for (const api::ContainerResize& c : resizes) {
    auto it = requests.find(c.name);
    if (it != requests.end()) it->second = safety::resourceValuesOf(c.resources);
  }
}

// The workload's pods: their requests at the original sizing and after the plan.
std::vector<hpa::PodRequests> podRequests(const TargetWorkload& t, const rollout::Plan& plan) {
  std::map<std::string, std::span<const api::ContainerResize>, std::less<>> planned;
  for (const rollout::Action& action : plan.actions) {
    if (const auto* r = std::get_if<rollout::ResizeAction>(&action)) {
      if (r->workload == t.ref) planned[r->pod] = r->containers;
    } else if (const auto* v = std::get_if<rollout::RevertAction>(&action)) {
      if (v->workload == t.ref) planned[v->pod] = v->restore;
    } else if (const auto* s = std::get_if<rollout::RestoreAction>(&action)) {
      if (s->workload == t.ref) planned[s->pod] = s->restore;
    }
  }
  std::vector<hpa::PodRequests> out;
  for (const api::Pod* pod : t.pods) {
    if (pod->metadata.deletionTimestamp) continue;
    hpa::PodRequests p{.original = specRequests(*pod), .planned = {}};
    p.planned = p.original;
    if (auto record = safety::decodeResizeRecord(*pod); record && *record) {
      for (const safety::ContainerRecord& c : (*record)->containers) {
        auto it = p.original.find(c.name);
        if (it == p.original.end()) continue;
        it->second.cpuRequest = c.original.cpuRequest;
        it->second.memoryRequest = c.original.memoryRequest;
      }
    }
    if (auto it = planned.find(pod->metadata.name); it != planned.end()) {
      apply(p.planned, it->second);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

bool retunesHpa(const api::HorizontalPodAutoscaler& h) {
  if (!hpa::autoTuneEnabled(h.metadata)) return false;
  for (const api::MetricSpec& m : h.spec.metrics) {
    if (hpa::metricKey(m).empty()) continue;
    const api::MetricValue& t = m.resource ? m.resource->target : m.containerResource->target;
    if (t.type == "Utilization") return true;
  }
  return false;
}

std::vector<api::HorizontalPodAutoscaler> hpasLeftAlone(
    std::span<const api::HorizontalPodAutoscaler> hpas) {
  std::vector<api::HorizontalPodAutoscaler> out;
  for (const api::HorizontalPodAutoscaler& h : hpas) {
    if (!retunesHpa(h)) out.push_back(h);
  }
  return out;
}

void planHpaRetunes(std::span<const TargetWorkload> targets,
                    std::span<const api::HorizontalPodAutoscaler> hpas, const std::string& policy,
                    bool restore, rollout::Plan& plan) {
  std::vector<rollout::HpaRetuneAction> retunes;
  for (const TargetWorkload& t : targets) {
    for (const api::HorizontalPodAutoscaler& h : hpas) {
      if (!hpa::scales(h, t.ref)) continue;
      const std::optional<std::string> owner = hpa::retunedBy(h.metadata);
      if (owner && *owner != policy) continue;
      // An HPA that opted out again while it carries the originals gets them back.
      const bool back = restore || !retunesHpa(h);
      if (back && !owner) continue;
      hpa::Retune r =
          hpa::retune(h, {.pods = podRequests(t, plan), .policy = policy, .restore = back});
      if (r.changed) retunes.push_back(actionOf(t.ref, std::move(r), back));
    }
  }
  for (auto& r : retunes) plan.actions.emplace_back(std::move(r));
}

std::optional<rollout::HpaRetuneAction> restoreOrphanedHpa(const api::HorizontalPodAutoscaler& h) {
  const std::optional<std::string> owner = hpa::retunedBy(h.metadata);
  hpa::Retune r = hpa::retune(h, {.pods = {}, .policy = owner.value_or(""), .restore = true});
  if (!r.changed) return std::nullopt;
  const api::ScaleTargetRef& ref = h.spec.scaleTargetRef;
  return actionOf({h.metadata.namespace_, ref.kind, ref.name}, std::move(r), true);
}

}  // namespace attune::controller
