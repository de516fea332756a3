#include "api/k8s/encode_objects.h"

#include "api/k8s/encode.h"
#include "api/k8s/json_writer.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/policy_codec.h"

namespace attune::api {
namespace {

// {"apiVersion":..,"kind":..,"metadata":..}, the start of every object.
JsonObject object(const TypeMeta& meta, const ObjectMeta& metadata) {
  JsonObject out;
  out.set("apiVersion", meta.apiVersion, "kind", meta.kind, "metadata", toJson(metadata));
  return out;
}

Json toJson(const Condition& c) {
  return JsonObject()
      .put("type", c.type, "status", c.status, "reason", c.reason, "message", c.message,
           "lastTransitionTime", c.lastTransitionTime, "observedGeneration", c.observedGeneration)
      .take();
}

Json conditions(const std::vector<Condition>& items) { return jsonArray(items, toJson); }

Json toJson(const LabelSelectorRequirement& r) {
  return JsonObject().set("key", r.key, "operator", r.operator_).put("values", r.values).take();
}

Json toJson(const LabelSelector& s) {
  return JsonObject()
      .put("matchLabels", s.matchLabels, "matchExpressions", jsonArray(s.matchExpressions, toJson))
      .take();
}

Json toJson(const ContainerResizePolicy& p) {
  return JsonObject().set("resourceName", p.resourceName, "restartPolicy", p.restartPolicy).take();
}

Json toJson(const Container& c) {
  return JsonObject()
      .set("name", c.name, "resources", api::toJson(c.resources))
      .put("image", c.image, "resizePolicy", jsonArray(c.resizePolicy, toJson), "restartPolicy",
           c.restartPolicy)
      .take();
}

Json toJson(const Toleration& t) {
  return JsonObject()
      .put("key", t.key, "operator", t.operator_, "value", t.value, "effect", t.effect,
           "tolerationSeconds", t.tolerationSeconds)
      .take();
}

Json toJson(const PodSpec& s) {
  JsonObject out;
  out.set("containers", jsonArray(s.containers, toJson))
      .put("initContainers", jsonArray(s.initContainers, toJson), "nodeName", s.nodeName,
           "priority", s.priority, "priorityClassName", s.priorityClassName, "schedulerName",
           s.schedulerName, "restartPolicy", s.restartPolicy, "nodeSelector", s.nodeSelector)
      .put("tolerations", jsonArray(s.tolerations, toJson), "overhead", s.overhead);
  if (s.resources) out.set("resources", api::toJson(*s.resources));
  return out.take();
}

Json toJson(const ContainerState& s) {
  JsonObject out;
  if (s.waiting) {
    out.set("waiting",
            JsonObject().put("reason", s.waiting->reason, "message", s.waiting->message).take());
  }
  if (s.running) out.set("running", JsonObject().put("startedAt", s.running->startedAt).take());
  if (s.terminated) {
    const ContainerStateTerminated& t = *s.terminated;
    out.set("terminated", JsonObject()
                              .set("exitCode", t.exitCode)
                              .put("reason", t.reason, "message", t.message, "startedAt",
                                   t.startedAt, "finishedAt", t.finishedAt)
                              .take());
  }
  return out.take();
}

Json toJson(const ContainerStatus& s) {
  JsonObject out;
  // image and imageID: fields a kubectl describe expects on every container status.
  out.set("name", s.name, "ready", s.ready, "restartCount", s.restartCount, "state",
          toJson(s.state), "image", "", "imageID", "")
      .put("started", s.started, "lastState", toJson(s.lastState), "allocatedResources",
           s.allocatedResources);
  if (s.resources) out.set("resources", api::toJson(*s.resources));
  return out.take();
}

Json toJson(const PodStatus& s) {
  return JsonObject()
      .put("phase", s.phase, "qosClass", s.qosClass, "reason", s.reason, "message", s.message,
           "conditions", conditions(s.conditions), "observedGeneration", s.observedGeneration)
      .put("startTime", s.startTime, "containerStatuses", jsonArray(s.containerStatuses, toJson),
           "initContainerStatuses", jsonArray(s.initContainerStatuses, toJson), "resize", s.resize)
      .take();
}

Json toJson(const PodTemplateSpec& t) {
  return JsonObject().set("metadata", api::toJson(t.metadata), "spec", toJson(t.spec)).take();
}

Json toJson(const WorkloadStatus& s) {
  return JsonObject()
      .put("observedGeneration", s.observedGeneration, "replicas", s.replicas, "updatedReplicas",
           s.updatedReplicas, "readyReplicas", s.readyReplicas, "availableReplicas",
           s.availableReplicas, "currentReplicas", s.currentReplicas)
      .put("desiredNumberScheduled", s.desiredNumberScheduled, "currentNumberScheduled",
           s.currentNumberScheduled, "updatedNumberScheduled", s.updatedNumberScheduled,
           "numberReady", s.numberReady, "numberAvailable", s.numberAvailable)
      .put("conditions", conditions(s.conditions))
      .take();
}

// spec and status of the four apps/v1 kinds; `strategyKey` is "strategy" (Deployment) or
// "updateStrategy" (StatefulSet, DaemonSet); empty for a ReplicaSet.
std::string workload(const TypeMeta& meta, const Workload& w, std::string_view strategyKey) {
  JsonObject spec;
  spec.set("selector", toJson(w.spec.selector), "template", toJson(w.spec.template_))
      .put("replicas", w.spec.replicas, "paused", w.spec.paused, "minReadySeconds",
           w.spec.minReadySeconds);
  if (!strategyKey.empty()) {
    spec.put(strategyKey, JsonObject().put("type", w.spec.strategyType).take());
  }
  return object(meta, w.metadata)
      .set("spec", std::move(spec).take(), "status", toJson(w.status))
      .dump();
}

Json toJson(const JobSpec& s) {
  return JsonObject()
      .put("parallelism", s.parallelism, "completions", s.completions, "backoffLimit",
           s.backoffLimit, "activeDeadlineSeconds", s.activeDeadlineSeconds, "suspend", s.suspend)
      .set("selector", toJson(s.selector), "template", toJson(s.template_))
      .take();
}

Json toJson(const MetricValue& v) {
  return JsonObject()
      .put("type", v.type, "value", v.value, "averageValue", v.averageValue, "averageUtilization",
           v.averageUtilization)
      .take();
}

Json toJson(const MetricIdentifier& m) {
  JsonObject out;
  out.set("name", m.name);
  if (m.selector) out.set("selector", toJson(*m.selector));
  return out.take();
}

Json toJson(const ScaleTargetRef& ref) {
  return JsonObject().put("apiVersion", ref.apiVersion, "kind", ref.kind, "name", ref.name).take();
}

// A metric source; its MetricValue goes under `valueKey` ("target" in spec, "current" in status).
template <typename Source>
Json metricSource(const Source& s, std::string_view valueKey) {
  JsonObject out;
  if constexpr (requires { s.name; }) out.put("name", s.name);
  if constexpr (requires { s.container; }) out.put("container", s.container);
  if constexpr (requires { s.describedObject; }) {
    out.set("describedObject", toJson(s.describedObject));
  }
  if constexpr (requires { s.metric; }) out.set("metric", toJson(s.metric));
  return out.set(valueKey, toJson(s.target)).take();
}

// A metric source when it is set.
template <typename Source>
std::optional<Json> metricSource(const std::optional<Source>& s, std::string_view valueKey) {
  if (!s) return std::nullopt;
  return metricSource(*s, valueKey);
}

Json toJson(const MetricSpec& m, std::string_view valueKey) {
  return JsonObject()
      .put("type", m.type, "resource", metricSource(m.resource, valueKey), "containerResource",
           metricSource(m.containerResource, valueKey), "pods", metricSource(m.pods, valueKey))
      .put("object", metricSource(m.object, valueKey), "external",
           metricSource(m.external, valueKey))
      .take();
}

Json metrics(const std::vector<MetricSpec>& items, std::string_view valueKey) {
  Json out = Json::array();
  for (const MetricSpec& m : items) out.push_back(toJson(m, valueKey));
  return out;
}

Json toJson(const HpaScalingPolicy& p) {
  return JsonObject()
      .set("type", p.type, "value", p.value, "periodSeconds", p.periodSeconds)
      .take();
}

Json toJson(const HpaScalingRules& r) {
  return JsonObject()
      .put("stabilizationWindowSeconds", r.stabilizationWindowSeconds, "selectPolicy",
           r.selectPolicy, "policies", jsonArray(r.policies, toJson), "tolerance", r.tolerance)
      .take();
}

// The rules when they are set.
std::optional<Json> toJson(const std::optional<HpaScalingRules>& r) {
  if (!r) return std::nullopt;
  return toJson(*r);
}

Json toJson(const Taint& t) {
  return JsonObject().set("key", t.key, "effect", t.effect).put("value", t.value).take();
}

Json toJson(const LimitRangeItem& item) {
  return JsonObject()
      .set("type", item.type)
      .put("min", item.min, "max", item.max, "default", item.default_, "defaultRequest",
           item.defaultRequest, "maxLimitRequestRatio", item.maxLimitRequestRatio)
      .take();
}

Json toJson(const IntOrString& v) { return v.isString ? Json(v.stringValue) : Json(v.intValue); }

template <typename T>
std::optional<Json> optionalJson(const std::optional<T>& value) {
  if (!value) return std::nullopt;
  return toJson(*value);
}

Json toJson(const std::vector<DisruptedPod>& pods) {
  Json out = Json::object();
  for (const DisruptedPod& pod : pods) out[pod.name] = jsonValue(pod.at);
  return out;
}

Json toJson(const StatusCause& c) {
  return JsonObject().put("reason", c.type, "message", c.message, "field", c.field).take();
}

}  // namespace

TypeMeta typeMetaOf(const Pod&) { return {"v1", "Pod", "PodList"}; }
TypeMeta typeMetaOf(const Node&) { return {"v1", "Node", "NodeList"}; }
TypeMeta typeMetaOf(const Namespace&) { return {"v1", "Namespace", "NamespaceList"}; }
TypeMeta typeMetaOf(const Deployment&) { return {"apps/v1", "Deployment", "DeploymentList"}; }
TypeMeta typeMetaOf(const StatefulSet&) { return {"apps/v1", "StatefulSet", "StatefulSetList"}; }
TypeMeta typeMetaOf(const DaemonSet&) { return {"apps/v1", "DaemonSet", "DaemonSetList"}; }
TypeMeta typeMetaOf(const ReplicaSet&) { return {"apps/v1", "ReplicaSet", "ReplicaSetList"}; }
TypeMeta typeMetaOf(const Job&) { return {"batch/v1", "Job", "JobList"}; }
TypeMeta typeMetaOf(const CronJob&) { return {"batch/v1", "CronJob", "CronJobList"}; }
TypeMeta typeMetaOf(const LimitRange&) { return {"v1", "LimitRange", "LimitRangeList"}; }
TypeMeta typeMetaOf(const ResourceQuota&) { return {"v1", "ResourceQuota", "ResourceQuotaList"}; }
TypeMeta typeMetaOf(const HorizontalPodAutoscaler&) {
  return {"autoscaling/v2", "HorizontalPodAutoscaler", "HorizontalPodAutoscalerList"};
}
TypeMeta typeMetaOf(const PodDisruptionBudget&) {
  return {"policy/v1", "PodDisruptionBudget", "PodDisruptionBudgetList"};
}
TypeMeta typeMetaOf(const Event&) { return {"v1", "Event", "EventList"}; }
TypeMeta typeMetaOf(const Lease&) { return {"coordination.k8s.io/v1", "Lease", "LeaseList"}; }
TypeMeta typeMetaOf(const AttunePolicy&) {
  return {"attune.io/v1alpha1", "AttunePolicy", "AttunePolicyList"};
}
TypeMeta typeMetaOf(const AttuneDefaults&) {
  return {"attune.io/v1alpha1", "AttuneDefaults", "AttuneDefaultsList"};
}
TypeMeta typeMetaOf(const AttuneNamespaceDefaults&) {
  return {"attune.io/v1alpha1", "AttuneNamespaceDefaults", "AttuneNamespaceDefaultsList"};
}

std::string encodeObjectJson(const Pod& pod) {
  return object(typeMetaOf(pod), pod.metadata)
      .set("spec", toJson(pod.spec), "status", toJson(pod.status))
      .dump();
}

std::string encodeObjectJson(const Node& node) {
  const Json nodeInfo = JsonObject().put("kubeletVersion", node.status.kubeletVersion).take();
  return object(typeMetaOf(node), node.metadata)
      .set("spec", JsonObject()
                       .put("unschedulable", node.spec.unschedulable, "taints",
                            jsonArray(node.spec.taints, toJson), "providerID", node.spec.providerID)
                       .take())
      .set("status",
           JsonObject()
               .put("capacity", node.status.capacity, "allocatable", node.status.allocatable,
                    "conditions", conditions(node.status.conditions), "nodeInfo", nodeInfo)
               .take())
      .dump();
}

std::string encodeObjectJson(const Namespace& ns) {
  return object(typeMetaOf(ns), ns.metadata)
      .set("spec", Json::object(), "status", JsonObject().put("phase", ns.phase).take())
      .dump();
}

std::string encodeObjectJson(const Deployment& d) { return workload(typeMetaOf(d), d, "strategy"); }
std::string encodeObjectJson(const StatefulSet& s) {
  return workload(typeMetaOf(s), s, "updateStrategy");
}
std::string encodeObjectJson(const DaemonSet& d) {
  return workload(typeMetaOf(d), d, "updateStrategy");
}
std::string encodeObjectJson(const ReplicaSet& r) { return workload(typeMetaOf(r), r, ""); }

std::string encodeObjectJson(const Job& job) {
  const JobStatus& s = job.status;
  return object(typeMetaOf(job), job.metadata)
      .set("spec", toJson(job.spec), "status",
           JsonObject()
               .put("active", s.active, "succeeded", s.succeeded, "failed", s.failed, "ready",
                    s.ready, "startTime", s.startTime, "completionTime", s.completionTime,
                    "conditions", conditions(s.conditions))
               .take())
      .dump();
}

std::string encodeObjectJson(const CronJob& cronJob) {
  const CronJobSpec& s = cronJob.spec;
  const CronJobStatus& status = cronJob.status;
  const Json jobTemplate =
      JsonObject()
          .set("metadata", api::toJson(s.jobTemplate.metadata), "spec", toJson(s.jobTemplate.spec))
          .take();
  return object(typeMetaOf(cronJob), cronJob.metadata)
      .set("spec", JsonObject()
                       .set("schedule", s.schedule, "jobTemplate", jobTemplate)
                       .put("timeZone", s.timeZone, "concurrencyPolicy", s.concurrencyPolicy,
                            "suspend", s.suspend)
                       .take())
      .set("status", JsonObject()
                         .put("active", jsonArray<ObjectReference>(status.active, api::toJson),
                              "lastScheduleTime", status.lastScheduleTime, "lastSuccessfulTime",
                              status.lastSuccessfulTime)
                         .take())
      .dump();
}

std::string encodeObjectJson(const LimitRange& limitRange) {
  const Json limits = jsonArray(limitRange.limits, toJson);
  return object(typeMetaOf(limitRange), limitRange.metadata)
      .set("spec", JsonObject().set("limits", limits).take())
      .dump();
}

std::string encodeObjectJson(const ResourceQuota& quota) {
  return object(typeMetaOf(quota), quota.metadata)
      .set("spec", JsonObject().put("hard", quota.specHard, "scopes", quota.scopes).take(),
           "status", JsonObject().put("hard", quota.hard, "used", quota.used).take())
      .dump();
}

std::string encodeObjectJson(const HorizontalPodAutoscaler& hpa) {
  const HpaSpec& s = hpa.spec;
  JsonObject spec;
  spec.set("scaleTargetRef", toJson(s.scaleTargetRef), "maxReplicas", s.maxReplicas)
      .put("minReplicas", s.minReplicas, "metrics", metrics(s.metrics, "target"));
  if (s.behavior) {
    spec.set("behavior", JsonObject()
                             .put("scaleUp", toJson(s.behavior->scaleUp), "scaleDown",
                                  toJson(s.behavior->scaleDown))
                             .take());
  }
  const HpaStatus& st = hpa.status;
  return object(typeMetaOf(hpa), hpa.metadata)
      .set("spec", spec.take(), "status",
           JsonObject()
               .set("desiredReplicas", st.desiredReplicas)
               .put("observedGeneration", st.observedGeneration, "lastScaleTime", st.lastScaleTime,
                    "currentReplicas", st.currentReplicas, "currentMetrics",
                    metrics(st.currentMetrics, "current"), "conditions", conditions(st.conditions))
               .take())
      .dump();
}

std::string encodeObjectJson(const PodDisruptionBudget& pdb) {
  const PdbSpec& s = pdb.spec;
  const PdbStatus& st = pdb.status;
  // The four counts are not omitempty in policy/v1: a zero is written.
  return object(typeMetaOf(pdb), pdb.metadata)
      .set(
          "spec",
          JsonObject()
              .put("minAvailable", optionalJson(s.minAvailable), "selector",
                   optionalJson(s.selector), "maxUnavailable", optionalJson(s.maxUnavailable),
                   "unhealthyPodEvictionPolicy", s.unhealthyPodEvictionPolicy)
              .take(),
          "status",
          JsonObject()
              .put("observedGeneration", st.observedGeneration, "disruptedPods",
                   toJson(st.disruptedPods))
              .set("disruptionsAllowed", st.disruptionsAllowed, "currentHealthy", st.currentHealthy,
                   "desiredHealthy", st.desiredHealthy, "expectedPods", st.expectedPods)
              .put("conditions", conditions(st.conditions))
              .take())
      .dump();
}

std::string encodeObjectJson(const Event& event) { return encodeEvent(event); }
std::string encodeObjectJson(const Lease& lease) { return encodeLease(lease); }
std::string encodeObjectJson(const AttunePolicy& policy) { return encodePolicyJson(policy); }
std::string encodeObjectJson(const AttuneDefaults& defaults) {
  return encodeDefaultsJson(defaults);
}
std::string encodeObjectJson(const AttuneNamespaceDefaults& defaults) {
  return encodeDefaultsJson(defaults);
}

std::string encodeListJson(std::string_view apiVersion, std::string_view listKind,
                           std::span<const std::string> items, std::string_view resourceVersion,
                           std::string_view continueToken) {
  Json metadata = Json::object();
  metadata["resourceVersion"] = std::string(resourceVersion);
  if (!continueToken.empty()) metadata["continue"] = std::string(continueToken);
  std::string head = dumpJson(Json{{"apiVersion", std::string(apiVersion)},
                                   {"kind", std::string(listKind)},
                                   {"metadata", std::move(metadata)}});
  // Splice the pre-encoded items in without re-parsing them.
  head.pop_back();  // the closing brace
  std::size_t size = head.size() + 16;
  for (const std::string& item : items) size += item.size() + 1;
  std::string out;
  out.reserve(size);
  out += head;
  out += ",\"items\":[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    out += items[i];
  }
  out += "]}";
  return out;
}

std::string encodeWatchEventJson(WatchEventType type, std::string_view objectJson) {
  std::string out = "{\"type\":\"";
  out += watchEventTypeName(type);
  out += "\",\"object\":";
  out += objectJson;
  out += '}';
  return out;
}

template <typename T>
std::string encodeWatchEventJson(const WatchEvent<T>& event) {
  if (event.type == WatchEventType::kError) {
    return encodeWatchEventJson(event.type, encodeStatusJson(event.status));
  }
  return encodeWatchEventJson(event.type, encodeObjectJson(event.object));
}

template std::string encodeWatchEventJson(const WatchEvent<Pod>&);
template std::string encodeWatchEventJson(const WatchEvent<Node>&);
template std::string encodeWatchEventJson(const WatchEvent<Event>&);
template std::string encodeWatchEventJson(const WatchEvent<Lease>&);
template std::string encodeWatchEventJson(const WatchEvent<AttunePolicy>&);

std::string encodeStatusJson(const ApiStatus& status, const StatusDetails& details) {
  Json out = toJson(status);
  out.update(JsonObject()
                 .set("kind", "Status", "apiVersion", "v1", "metadata", Json::object())
                 .put("details", JsonObject()
                                     .put("name", details.name, "group", details.group, "kind",
                                          details.kind, "causes", jsonArray(details.causes, toJson),
                                          "retryAfterSeconds", details.retryAfterSeconds)
                                     .take())
                 .take());
  return dumpJson(out);
}

}  // namespace attune::api
