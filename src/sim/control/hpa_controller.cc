#include "sim/control/hpa_controller.h"

#include <algorithm>
#include <vector>

#include "sim/control/conditions.h"
#include "sim/control/owned_pods.h"

namespace attune::sim {
namespace {

// The target's scale subresource, as far as the HPA reads it.
struct Scale {
  std::int32_t specReplicas = 1;
  api::LabelSelector selector;
};

template <typename T>
std::optional<Scale> scaleOf(const ObjectStore<T>& store, std::string_view ns,
                             std::string_view name) {
  const T* w = store.find(ns, name);
  if (w == nullptr) return std::nullopt;
  return Scale{w->spec.replicas.value_or(1), w->spec.selector};
}

Result<Scale> readScale(const ClusterState& state, std::string_view ns,
                        const api::ScaleTargetRef& ref) {
  std::optional<Scale> scale;
  if (ref.kind == "Deployment") {
    scale = scaleOf(state.deployments, ns, ref.name);
  } else if (ref.kind == "StatefulSet") {
    scale = scaleOf(state.statefulSets, ns, ref.name);
  } else if (ref.kind == "ReplicaSet") {
    scale = scaleOf(state.replicaSets, ns, ref.name);
  } else {
    return fail(ErrorCode::kNotFound, "no scale subresource for kind " + ref.kind);
  }
  if (!scale) return fail(ErrorCode::kNotFound, ref.kind + " \"" + ref.name + "\" not found");
  return *scale;
}

template <typename T>
Result<void> writeReplicas(ObjectStore<T>& store, std::string_view ns, std::string_view name,
                           std::int32_t replicas) {
  auto written = store.modify(ns, name, "", [&](T& w) {
    if (w.spec.replicas == replicas) return Change::kNone;
    w.spec.replicas = replicas;
    return Change::kSpec;
  });
  if (!written) return std::unexpected(written.error());
  return {};
}

Result<void> writeScale(ClusterState& state, std::string_view ns, const api::ScaleTargetRef& ref,
                        std::int32_t replicas) {
  if (ref.kind == "Deployment") return writeReplicas(state.deployments, ns, ref.name, replicas);
  if (ref.kind == "StatefulSet") return writeReplicas(state.statefulSets, ns, ref.name, replicas);
  return writeReplicas(state.replicaSets, ns, ref.name, replicas);
}

api::Condition condition(std::string type, bool status, std::string reason, std::string message) {
  return api::Condition{std::move(type), status ? "True" : "False", std::move(reason),
                        std::move(message)};
}

Quantity milliQuantity(std::int64_t milli) {
  return Quantity::fromNanos(static_cast<__int128>(milli) * 1'000'000, QuantityFormat::kDecimalSI);
}

// The metrics the HPA scales on: spec.metrics, or cpu at 80 % when there are none.
std::vector<api::MetricSpec> metricsOf(const api::HpaSpec& spec) {
  if (!spec.metrics.empty()) return spec.metrics;
  api::MetricSpec cpu;
  cpu.type = "Resource";
  cpu.resource = api::ResourceMetricSource{"cpu", {"Utilization", {}, {}, 80}};
  return {cpu};
}

// One metric's proposal, or why it is invalid (the ScalingActive condition it sets).
struct MetricOutcome {
  std::optional<ResourceProposal> proposal;
  api::MetricSpec status;  // empty when invalid
  api::Condition invalid;
};

MetricOutcome evaluate(const api::MetricSpec& metric, std::int32_t current,
                       const std::vector<const api::Pod*>& pods, const PodUsageByName& usage,
                       const Tolerances& tolerances, const ReadinessWindows& readiness, Time now) {
  MetricOutcome out;
  const bool container = metric.type == "ContainerResource";
  const std::string reason = "FailedGet" + metric.type + "Metric";
  const api::MetricValue* target = nullptr;
  ResourceMetricQuery query;
  if (container && metric.containerResource) {
    query.resource = metric.containerResource->name;
    query.container = metric.containerResource->container;
    target = &metric.containerResource->target;
  } else if (metric.type == "Resource" && metric.resource) {
    query.resource = metric.resource->name;
    target = &metric.resource->target;
  }
  if (target == nullptr) {
    const bool known = metric.type == "Pods" || metric.type == "Object" ||
                       metric.type == "External" || metric.type == "Resource" || container;
    out.invalid = known ? condition("ScalingActive", false, reason,
                                    "the HPA was unable to compute the replica count: no " +
                                        metric.type + " metrics in the simulated cluster")
                        : condition("ScalingActive", false, "InvalidMetricSourceType",
                                    "the HPA was unable to compute the replica count: unknown "
                                    "metric source type \"" +
                                        metric.type + "\"");
    return out;
  }
  if (target->averageUtilization) {
    query.targetUtilization = *target->averageUtilization;
  } else if (target->averageValue) {
    query.targetAverageMilli = static_cast<std::int64_t>(target->averageValue->nanos() / 1'000'000);
  }
  if (query.targetUtilization <= 0 && query.targetAverageMilli <= 0) {
    out.invalid = condition("ScalingActive", false, reason,
                            "the HPA was unable to compute the replica count: invalid resource "
                            "metric source: neither a utilization target nor a value target was "
                            "set");
    return out;
  }
  auto proposal = resourceReplicas(query, current, pods, usage, tolerances, readiness, now);
  if (!proposal) {
    out.invalid =
        condition("ScalingActive", false, reason,
                  "the HPA was unable to compute the replica count: " + proposal.error().message);
    return out;
  }
  api::MetricValue value;
  if (query.targetUtilization > 0) value.averageUtilization = proposal->utilization;
  value.averageValue = milliQuantity(proposal->averageMilli);
  out.status.type = metric.type;
  if (container) {
    out.status.containerResource =
        api::ContainerResourceMetricSource{query.resource, query.container, value};
  } else {
    out.status.resource = api::ResourceMetricSource{query.resource, value};
  }
  out.proposal = *proposal;
  return out;
}

Tolerances tolerancesOf(const api::HpaSpec& spec, double tolerance) {
  Tolerances t{tolerance, tolerance};
  if (!spec.behavior) return t;
  auto asDouble = [](const Quantity& q) { return static_cast<double>(q.nanos()) / 1e9; };
  if (spec.behavior->scaleDown && spec.behavior->scaleDown->tolerance) {
    t.scaleDown = asDouble(*spec.behavior->scaleDown->tolerance);
  }
  if (spec.behavior->scaleUp && spec.behavior->scaleUp->tolerance) {
    t.scaleUp = asDouble(*spec.behavior->scaleUp->tolerance);
  }
  return t;
}

void recordRescale(ClusterState& state, const api::HorizontalPodAutoscaler& hpa,
                   std::int32_t replicas, const std::string& reason, Time now) {
  api::Event event;
  event.metadata.namespace_ = hpa.metadata.namespace_;
  event.metadata.generateName = hpa.metadata.name + ".";
  event.involvedObject = {"autoscaling/v2",
                          "HorizontalPodAutoscaler",
                          hpa.metadata.namespace_,
                          hpa.metadata.name,
                          hpa.metadata.uid,
                          {},
                          {}};
  event.reason = "SuccessfulRescale";
  event.message = "New size: " + std::to_string(replicas) + "; reason: " + reason;
  event.type = "Normal";
  event.sourceComponent = "horizontal-pod-autoscaler";
  event.reportingComponent = "horizontal-pod-autoscaler";
  event.firstTimestamp = now;
  event.lastTimestamp = now;
  event.count = 1;
  (void)state.events.create(std::move(event));
}

}  // namespace

bool HpaController::due(const ClusterState& state, Time now) const {
  if (lastSync_ && now < *lastSync_ + options_.syncPeriod) return false;
  bool any = false;
  state.hpas.forEach([&](const api::HorizontalPodAutoscaler&) { any = true; });
  return any;
}

void HpaController::tick(ClusterState& state, Time now, const PodUsageReader& readUsage) {
  if (!due(state, now)) return;
  sync(state, now, readUsage ? readUsage() : PodUsageByName{});
}

void HpaController::sync(ClusterState& state, Time now, const PodUsageByName& usage) {
  lastSync_ = now;
  std::vector<api::HorizontalPodAutoscaler> hpas;
  state.hpas.forEach([&](const api::HorizontalPodAutoscaler& h) { hpas.push_back(h); });
  for (const auto& hpa : hpas) reconcile(state, hpa, now, usage);
}

void HpaController::reconcile(ClusterState& state, const api::HorizontalPodAutoscaler& hpa,
                              Time now, const PodUsageByName& usage) {
  const std::string& ns = hpa.metadata.namespace_;
  const api::HpaSpec& spec = hpa.spec;
  api::HpaStatus status = hpa.status;
  status.observedGeneration = hpa.metadata.generation;
  status.currentMetrics.clear();
  auto finish = [&] { writeStatus(state.hpas, hpa, status); };

  auto scale = readScale(state, ns, spec.scaleTargetRef);
  if (!scale) {
    setCondition(status.conditions,
                 condition("AbleToScale", false, "FailedGetScale",
                           "the HPA controller was unable to get the target's current scale: " +
                               scale.error().message),
                 now);
    return finish();
  }
  setCondition(status.conditions,
               condition("AbleToScale", true, "SucceededGetScale",
                         "the HPA controller was able to get the target's current scale"),
               now);
  HpaScalingMemory& memory = memory_[ns + "/" + hpa.metadata.name + "/" + hpa.metadata.uid];
  const std::int32_t current = scale->specReplicas;
  if (memory.recommendations.empty()) memory.recommendations.push_back({current, now});
  const std::int32_t minReplicas = spec.minReplicas.value_or(1);

  std::int32_t desired = 0;
  std::string reason;
  bool rescale = true;
  if (current == 0 && minReplicas != 0) {
    rescale = false;
    setCondition(status.conditions,
                 condition("ScalingActive", false, "ScalingDisabled",
                           "scaling is disabled since the replica count of the target is zero"),
                 now);
  } else if (current > spec.maxReplicas) {
    reason = "Current number of replicas above Spec.MaxReplicas";
    desired = spec.maxReplicas;
  } else if (current < minReplicas) {
    reason = "Current number of replicas below Spec.MinReplicas";
    desired = minReplicas;
  } else {
    std::vector<const api::Pod*> pods;
    state.pods.forEachInNamespace(ns, [&](const api::Pod& p) {
      if (api::selectorMatches(scale->selector, p.metadata.labels)) pods.push_back(&p);
    });
    const Tolerances tolerances = tolerancesOf(spec, options_.tolerance);
    std::vector<api::MetricSpec> metrics = metricsOf(spec);
    status.currentMetrics.assign(metrics.size(), api::MetricSpec{});
    std::int32_t proposed = 0;
    std::string proposer;
    std::size_t invalid = 0;
    std::optional<api::Condition> firstInvalid;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      MetricOutcome m =
          evaluate(metrics[i], current, pods, usage, tolerances, options_.readiness, now);
      if (!m.proposal) {
        if (!firstInvalid) firstInvalid = m.invalid;
        ++invalid;
        continue;
      }
      status.currentMetrics[i] = m.status;
      if (proposed == 0 || m.proposal->replicas > proposed) {
        proposed = m.proposal->replicas;
        proposer = metrics[i].type == "ContainerResource"
                       ? metrics[i].containerResource->name + " container resource"
                       : metrics[i].resource->name + " resource";
        if (metrics[i].type == "Resource" || metrics[i].type == "ContainerResource") {
          const api::MetricValue& t = metrics[i].type == "Resource"
                                          ? metrics[i].resource->target
                                          : metrics[i].containerResource->target;
          if (t.averageUtilization) proposer += " utilization (percentage of request)";
        }
      }
    }
    pods.clear();  // the pointers are not used past the first write
    if (invalid >= metrics.size() || (invalid > 0 && proposed < current)) {
      setCondition(status.conditions, *firstInvalid, now);
      status.currentReplicas = current;
      return finish();
    }
    setCondition(
        status.conditions,
        condition("ScalingActive", true, "ValidMetricFound",
                  "the HPA was able to successfully calculate a replica count from " + proposer),
        now);
    desired = proposed;
    if (desired > current) reason = proposer + " above target";
    if (desired < current) reason = "All metrics below target";
    NormalizedReplicas normalized =
        normalizeReplicas(spec, memory, current, desired, minReplicas, now);
    setCondition(status.conditions, std::move(normalized.ableToScale), now);
    setCondition(status.conditions, std::move(normalized.scalingLimited), now);
    desired = normalized.replicas;
    rescale = desired != current;
  }

  if (rescale) {
    if (auto ok = writeScale(state, ns, spec.scaleTargetRef, desired); !ok) {
      setCondition(status.conditions,
                   condition("AbleToScale", false, "FailedUpdateScale",
                             "the HPA controller was unable to update the target scale: " +
                                 ok.error().message),
                   now);
      status.currentReplicas = current;
      return finish();
    }
    setCondition(status.conditions,
                 condition("AbleToScale", true, "SucceededRescale",
                           "the HPA controller was able to update the target scale to " +
                               std::to_string(desired)),
                 now);
    recordRescale(state, hpa, desired, reason, now);
    recordScaleEvent(spec, memory, current, desired, now);
    status.lastScaleTime = now;
  } else {
    desired = current;
  }
  status.currentReplicas = current;
  status.desiredReplicas = desired;
  finish();
}

}  // namespace attune::sim
