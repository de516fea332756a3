#include "api/k8s/encode_objects.h"

#include "api/k8s/encode.h"
#include "api/k8s/json_writer.h"
#include "api/policy/policy_codec.h"

namespace attune::api {
namespace {

Json object(const TypeMeta& meta, const ObjectMeta& metadata) {
  return Json{{"apiVersion", meta.apiVersion}, {"kind", meta.kind}, {"metadata", toJson(metadata)}};
}

template <typename Int>
void putOptional(Json& out, std::string_view key, const std::optional<Int>& value) {
  if (value) out[std::string(key)] = *value;
}

void putList(Json& out, std::string_view key, const ResourceList& list) {
  if (!list.empty()) out[std::string(key)] = toJson(list);
}

void putBool(Json& out, std::string_view key, bool value) {
  if (value) out[std::string(key)] = true;
}

Json toJson(const Condition& c) {
  Json out = Json::object();
  putString(out, "type", c.type);
  putString(out, "status", c.status);
  putString(out, "reason", c.reason);
  putString(out, "message", c.message);
  putTime(out, "lastTransitionTime", c.lastTransitionTime, 0);
  putInt(out, "observedGeneration", c.observedGeneration);
  return out;
}

void putConditions(Json& out, const std::vector<Condition>& conditions) {
  if (conditions.empty()) return;
  Json list = Json::array();
  for (const Condition& c : conditions) list.push_back(toJson(c));
  out["conditions"] = std::move(list);
}

Json toJson(const LabelSelector& s) {
  Json out = Json::object();
  if (!s.matchLabels.empty()) out["matchLabels"] = s.matchLabels;
  for (const LabelSelectorRequirement& r : s.matchExpressions) {
    Json e = {{"key", r.key}, {"operator", r.operator_}};
    if (!r.values.empty()) e["values"] = r.values;
    out["matchExpressions"].push_back(std::move(e));
  }
  return out;
}

Json toJson(const Container& c) {
  Json out = {{"name", c.name}};
  putString(out, "image", c.image);
  out["resources"] = toJson(c.resources);
  for (const ContainerResizePolicy& p : c.resizePolicy) {
    out["resizePolicy"].push_back(
        Json{{"resourceName", p.resourceName}, {"restartPolicy", p.restartPolicy}});
  }
  putString(out, "restartPolicy", c.restartPolicy);
  return out;
}

Json toJson(const Toleration& t) {
  Json out = Json::object();
  putString(out, "key", t.key);
  putString(out, "operator", t.operator_);
  putString(out, "value", t.value);
  putString(out, "effect", t.effect);
  putOptional(out, "tolerationSeconds", t.tolerationSeconds);
  return out;
}

Json toJson(const PodSpec& s) {
  Json out = Json::object();
  Json containers = Json::array();
  for (const Container& c : s.containers) containers.push_back(toJson(c));
  out["containers"] = std::move(containers);
  for (const Container& c : s.initContainers) out["initContainers"].push_back(toJson(c));
  putString(out, "nodeName", s.nodeName);
  putOptional(out, "priority", s.priority);
  putString(out, "priorityClassName", s.priorityClassName);
  putString(out, "schedulerName", s.schedulerName);
  putString(out, "restartPolicy", s.restartPolicy);
  if (!s.nodeSelector.empty()) out["nodeSelector"] = s.nodeSelector;
  for (const Toleration& t : s.tolerations) out["tolerations"].push_back(toJson(t));
  putList(out, "overhead", s.overhead);
  if (s.resources) out["resources"] = toJson(*s.resources);
  return out;
}

Json toJson(const ContainerState& s) {
  Json out = Json::object();
  if (s.waiting) {
    Json w = Json::object();
    putString(w, "reason", s.waiting->reason);
    putString(w, "message", s.waiting->message);
    out["waiting"] = std::move(w);
  }
  if (s.running) {
    Json r = Json::object();
    putTime(r, "startedAt", s.running->startedAt, 0);
    out["running"] = std::move(r);
  }
  if (s.terminated) {
    const ContainerStateTerminated& t = *s.terminated;
    Json out2 = {{"exitCode", t.exitCode}};
    putString(out2, "reason", t.reason);
    putString(out2, "message", t.message);
    putTime(out2, "startedAt", t.startedAt, 0);
    putTime(out2, "finishedAt", t.finishedAt, 0);
    out["terminated"] = std::move(out2);
  }
  return out;
}

Json toJson(const ContainerStatus& s) {
  Json out = {{"name", s.name}, {"ready", s.ready}, {"restartCount", s.restartCount}};
  putOptional(out, "started", s.started);
  out["state"] = toJson(s.state);
  Json last = toJson(s.lastState);
  if (!last.empty()) out["lastState"] = std::move(last);
  if (s.resources) out["resources"] = toJson(*s.resources);
  putList(out, "allocatedResources", s.allocatedResources);
  // Fields a kubectl describe expects on every container status.
  out["image"] = "";
  out["imageID"] = "";
  return out;
}

Json toJson(const PodStatus& s) {
  Json out = Json::object();
  putString(out, "phase", s.phase);
  putString(out, "qosClass", s.qosClass);
  putString(out, "reason", s.reason);
  putString(out, "message", s.message);
  putConditions(out, s.conditions);
  putInt(out, "observedGeneration", s.observedGeneration);
  putTime(out, "startTime", s.startTime, 0);
  for (const ContainerStatus& c : s.containerStatuses) {
    out["containerStatuses"].push_back(toJson(c));
  }
  for (const ContainerStatus& c : s.initContainerStatuses) {
    out["initContainerStatuses"].push_back(toJson(c));
  }
  putString(out, "resize", s.resize);
  return out;
}

Json toJson(const PodTemplateSpec& t) {
  return Json{{"metadata", toJson(t.metadata)}, {"spec", toJson(t.spec)}};
}

// spec and status of the four apps/v1 kinds; `strategyKey` is "strategy" (Deployment) or
// "updateStrategy" (StatefulSet, DaemonSet); empty for a ReplicaSet.
Json workload(const TypeMeta& meta, const Workload& w, std::string_view strategyKey) {
  Json out = object(meta, w.metadata);
  Json spec = Json::object();
  putOptional(spec, "replicas", w.spec.replicas);
  spec["selector"] = toJson(w.spec.selector);
  spec["template"] = toJson(w.spec.template_);
  if (!strategyKey.empty() && !w.spec.strategyType.empty()) {
    spec[std::string(strategyKey)] = Json{{"type", w.spec.strategyType}};
  }
  putBool(spec, "paused", w.spec.paused);
  putInt(spec, "minReadySeconds", w.spec.minReadySeconds);
  out["spec"] = std::move(spec);
  const WorkloadStatus& s = w.status;
  Json status = Json::object();
  putInt(status, "observedGeneration", s.observedGeneration);
  putInt(status, "replicas", s.replicas);
  putInt(status, "updatedReplicas", s.updatedReplicas);
  putInt(status, "readyReplicas", s.readyReplicas);
  putInt(status, "availableReplicas", s.availableReplicas);
  putInt(status, "currentReplicas", s.currentReplicas);
  putInt(status, "desiredNumberScheduled", s.desiredNumberScheduled);
  putInt(status, "currentNumberScheduled", s.currentNumberScheduled);
  putInt(status, "updatedNumberScheduled", s.updatedNumberScheduled);
  putInt(status, "numberReady", s.numberReady);
  putInt(status, "numberAvailable", s.numberAvailable);
  putConditions(status, s.conditions);
  out["status"] = std::move(status);
  return out;
}

Json toJson(const JobSpec& s) {
  Json spec = Json::object();
  putOptional(spec, "parallelism", s.parallelism);
  putOptional(spec, "completions", s.completions);
  putOptional(spec, "backoffLimit", s.backoffLimit);
  putOptional(spec, "activeDeadlineSeconds", s.activeDeadlineSeconds);
  putBool(spec, "suspend", s.suspend);
  spec["selector"] = toJson(s.selector);
  spec["template"] = toJson(s.template_);
  return spec;
}

Json toJson(const MetricValue& v) {
  Json out = Json::object();
  putString(out, "type", v.type);
  if (v.value) out["value"] = v.value->toString();
  if (v.averageValue) out["averageValue"] = v.averageValue->toString();
  putOptional(out, "averageUtilization", v.averageUtilization);
  return out;
}

Json toJson(const MetricIdentifier& m) {
  Json out = {{"name", m.name}};
  if (m.selector) out["selector"] = toJson(*m.selector);
  return out;
}

// A metric source; its MetricValue goes under `valueKey` ("target" in spec, "current" in status).
template <typename Source>
Json metricSource(const Source& s, std::string_view valueKey) {
  Json out = Json::object();
  if constexpr (requires { s.name; }) putString(out, "name", s.name);
  if constexpr (requires { s.container; }) putString(out, "container", s.container);
  if constexpr (requires { s.describedObject; }) {
    Json ref = Json::object();
    putString(ref, "apiVersion", s.describedObject.apiVersion);
    putString(ref, "kind", s.describedObject.kind);
    putString(ref, "name", s.describedObject.name);
    out["describedObject"] = std::move(ref);
  }
  if constexpr (requires { s.metric; }) out["metric"] = toJson(s.metric);
  out[std::string(valueKey)] = toJson(s.target);
  return out;
}

Json toJson(const MetricSpec& m, std::string_view valueKey) {
  Json out = Json::object();
  putString(out, "type", m.type);
  if (m.resource) out["resource"] = metricSource(*m.resource, valueKey);
  if (m.containerResource) {
    out["containerResource"] = metricSource(*m.containerResource, valueKey);
  }
  if (m.pods) out["pods"] = metricSource(*m.pods, valueKey);
  if (m.object) out["object"] = metricSource(*m.object, valueKey);
  if (m.external) out["external"] = metricSource(*m.external, valueKey);
  return out;
}

Json toJson(const HpaScalingRules& r) {
  Json out = Json::object();
  putOptional(out, "stabilizationWindowSeconds", r.stabilizationWindowSeconds);
  putString(out, "selectPolicy", r.selectPolicy);
  for (const HpaScalingPolicy& p : r.policies) {
    out["policies"].push_back(
        Json{{"type", p.type}, {"value", p.value}, {"periodSeconds", p.periodSeconds}});
  }
  if (r.tolerance) out["tolerance"] = r.tolerance->toString();
  return out;
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
TypeMeta typeMetaOf(const Event&) { return {"v1", "Event", "EventList"}; }
TypeMeta typeMetaOf(const Lease&) { return {"coordination.k8s.io/v1", "Lease", "LeaseList"}; }
TypeMeta typeMetaOf(const AttunePolicy&) {
  return {"attune.io/v1alpha1", "AttunePolicy", "AttunePolicyList"};
}

std::string encodeObjectJson(const Pod& pod) {
  Json out = object(typeMetaOf(pod), pod.metadata);
  out["spec"] = toJson(pod.spec);
  out["status"] = toJson(pod.status);
  return dumpJson(out);
}

std::string encodeObjectJson(const Node& node) {
  Json out = object(typeMetaOf(node), node.metadata);
  Json spec = Json::object();
  putBool(spec, "unschedulable", node.spec.unschedulable);
  for (const Taint& t : node.spec.taints) {
    Json taint = {{"key", t.key}, {"effect", t.effect}};
    putString(taint, "value", t.value);
    spec["taints"].push_back(std::move(taint));
  }
  putString(spec, "providerID", node.spec.providerID);
  out["spec"] = std::move(spec);
  Json status = Json::object();
  putList(status, "capacity", node.status.capacity);
  putList(status, "allocatable", node.status.allocatable);
  putConditions(status, node.status.conditions);
  if (!node.status.kubeletVersion.empty()) {
    status["nodeInfo"] = Json{{"kubeletVersion", node.status.kubeletVersion}};
  }
  out["status"] = std::move(status);
  return dumpJson(out);
}

std::string encodeObjectJson(const Namespace& ns) {
  Json out = object(typeMetaOf(ns), ns.metadata);
  out["spec"] = Json::object();
  Json status = Json::object();
  putString(status, "phase", ns.phase);
  out["status"] = std::move(status);
  return dumpJson(out);
}

std::string encodeObjectJson(const Deployment& d) {
  return dumpJson(workload(typeMetaOf(d), d, "strategy"));
}
std::string encodeObjectJson(const StatefulSet& s) {
  return dumpJson(workload(typeMetaOf(s), s, "updateStrategy"));
}
std::string encodeObjectJson(const DaemonSet& d) {
  return dumpJson(workload(typeMetaOf(d), d, "updateStrategy"));
}
std::string encodeObjectJson(const ReplicaSet& r) {
  return dumpJson(workload(typeMetaOf(r), r, ""));
}

std::string encodeObjectJson(const Job& job) {
  Json out = object(typeMetaOf(job), job.metadata);
  out["spec"] = toJson(job.spec);
  const JobStatus& s = job.status;
  Json status = Json::object();
  putInt(status, "active", s.active);
  putInt(status, "succeeded", s.succeeded);
  putInt(status, "failed", s.failed);
  putInt(status, "ready", s.ready);
  putTime(status, "startTime", s.startTime, 0);
  putTime(status, "completionTime", s.completionTime, 0);
  putConditions(status, s.conditions);
  out["status"] = std::move(status);
  return dumpJson(out);
}

std::string encodeObjectJson(const CronJob& cronJob) {
  Json out = object(typeMetaOf(cronJob), cronJob.metadata);
  const CronJobSpec& s = cronJob.spec;
  Json spec = {{"schedule", s.schedule}};
  putString(spec, "timeZone", s.timeZone);
  putString(spec, "concurrencyPolicy", s.concurrencyPolicy);
  putBool(spec, "suspend", s.suspend);
  spec["jobTemplate"] =
      Json{{"metadata", toJson(s.jobTemplate.metadata)}, {"spec", toJson(s.jobTemplate.spec)}};
  out["spec"] = std::move(spec);
  Json status = Json::object();
  for (const ObjectReference& ref : cronJob.status.active) {
    status["active"].push_back(toJson(ref));
  }
  putTime(status, "lastScheduleTime", cronJob.status.lastScheduleTime, 0);
  putTime(status, "lastSuccessfulTime", cronJob.status.lastSuccessfulTime, 0);
  out["status"] = std::move(status);
  return dumpJson(out);
}

std::string encodeObjectJson(const LimitRange& limitRange) {
  Json out = object(typeMetaOf(limitRange), limitRange.metadata);
  Json limits = Json::array();
  for (const LimitRangeItem& item : limitRange.limits) {
    Json entry = {{"type", item.type}};
    putList(entry, "min", item.min);
    putList(entry, "max", item.max);
    putList(entry, "default", item.default_);
    putList(entry, "defaultRequest", item.defaultRequest);
    putList(entry, "maxLimitRequestRatio", item.maxLimitRequestRatio);
    limits.push_back(std::move(entry));
  }
  out["spec"] = Json{{"limits", std::move(limits)}};
  return dumpJson(out);
}

std::string encodeObjectJson(const ResourceQuota& quota) {
  Json out = object(typeMetaOf(quota), quota.metadata);
  Json spec = Json::object();
  putList(spec, "hard", quota.specHard);
  if (!quota.scopes.empty()) spec["scopes"] = quota.scopes;
  out["spec"] = std::move(spec);
  Json status = Json::object();
  putList(status, "hard", quota.hard);
  putList(status, "used", quota.used);
  out["status"] = std::move(status);
  return dumpJson(out);
}

std::string encodeObjectJson(const HorizontalPodAutoscaler& hpa) {
  Json out = object(typeMetaOf(hpa), hpa.metadata);
  const HpaSpec& s = hpa.spec;
  Json ref = Json::object();
  putString(ref, "apiVersion", s.scaleTargetRef.apiVersion);
  putString(ref, "kind", s.scaleTargetRef.kind);
  putString(ref, "name", s.scaleTargetRef.name);
  Json spec = {{"scaleTargetRef", std::move(ref)}, {"maxReplicas", s.maxReplicas}};
  putOptional(spec, "minReplicas", s.minReplicas);
  for (const MetricSpec& m : s.metrics) spec["metrics"].push_back(toJson(m, "target"));
  if (s.behavior) {
    Json behavior = Json::object();
    if (s.behavior->scaleUp) behavior["scaleUp"] = toJson(*s.behavior->scaleUp);
    if (s.behavior->scaleDown) behavior["scaleDown"] = toJson(*s.behavior->scaleDown);
    spec["behavior"] = std::move(behavior);
  }
  out["spec"] = std::move(spec);
  const HpaStatus& st = hpa.status;
  Json status = {{"desiredReplicas", st.desiredReplicas}};
  putInt(status, "observedGeneration", st.observedGeneration);
  putTime(status, "lastScaleTime", st.lastScaleTime, 0);
  putInt(status, "currentReplicas", st.currentReplicas);
  for (const MetricSpec& m : st.currentMetrics) {
    status["currentMetrics"].push_back(toJson(m, "current"));
  }
  putConditions(status, st.conditions);
  out["status"] = std::move(status);
  return dumpJson(out);
}

std::string encodeObjectJson(const Event& event) { return encodeEvent(event); }
std::string encodeObjectJson(const Lease& lease) { return encodeLease(lease); }
std::string encodeObjectJson(const AttunePolicy& policy) { return encodePolicyJson(policy); }

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
  Json out = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", Json::object()}};
  putString(out, "status", status.status);
  putString(out, "message", status.message);
  putString(out, "reason", status.reason);
  if (!details.empty()) {
    Json d = Json::object();
    putString(d, "name", details.name);
    putString(d, "group", details.group);
    putString(d, "kind", details.kind);
    for (const StatusCause& c : details.causes) {
      Json cause = Json::object();
      putString(cause, "reason", c.type);
      putString(cause, "message", c.message);
      putString(cause, "field", c.field);
      d["causes"].push_back(std::move(cause));
    }
    putInt(d, "retryAfterSeconds", details.retryAfterSeconds);
    out["details"] = std::move(d);
  }
  putInt(out, "code", status.code);
  return dumpJson(out);
}

}  // namespace attune::api
