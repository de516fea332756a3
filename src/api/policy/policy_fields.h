// Internal to api/policy: the wire fields of every AttunePolicy struct, listed once, in encoding
// order, for both the decoder (policy_decode.cc) and the encoder (policy_encode.cc).
//
// fields(v, s) calls, on a visitor v:
//   v.type("TypeName")                the struct's object type in the schema (policy_schema.h);
//   v("name", member)                 a scalar, enum, optional, string list or string map;
//   v.object("name", member)          a nested struct, or std::optional of one (present = written);
//   v.list("name", member)            a std::vector of structs;
//   v.inlined("name", "Type", fn)     a wire object whose fields live in the enclosing struct;
//                                     fn(visitor) visits them.
// The encoder visits const values through the same functions (it only reads).
#pragma once

#include <type_traits>

#include "api/policy/attune_policy.h"

namespace attune::api::internal {

template <typename V>
void fields(V& v, OwnerReference& r) {
  v.type("OwnerReference");
  v("apiVersion", r.apiVersion);
  v("kind", r.kind);
  v("name", r.name);
  v("uid", r.uid);
  v("controller", r.controller);
}

template <typename V>
void fields(V& v, ObjectMeta& m) {
  v.type("ObjectMeta");
  v("name", m.name);
  v("generateName", m.generateName);
  v("namespace", m.namespace_);
  v("uid", m.uid);
  v("resourceVersion", m.resourceVersion);
  v("generation", m.generation);
  v("creationTimestamp", m.creationTimestamp);
  v("deletionTimestamp", m.deletionTimestamp);
  v("labels", m.labels);
  v("annotations", m.annotations);
  v.list("ownerReferences", m.ownerReferences);
}

template <typename V>
void fields(V& v, LabelSelectorRequirement& r) {
  v.type("LabelSelectorRequirement");
  v("key", r.key);
  v("operator", r.operator_);
  v("values", r.values);
}

template <typename V>
void fields(V& v, LabelSelector& s) {
  v.type("LabelSelector");
  v("matchLabels", s.matchLabels);
  v.list("matchExpressions", s.matchExpressions);
}

template <typename V>
void fields(V& v, TargetRef& t) {
  v.type("TargetRef");
  v("kind", t.kind);
  v("name", t.name);
  v.object("selector", t.selector);
}

template <typename V>
void fields(V& v, SecretKeyRef& s) {
  v.type("SecretKeyRef");
  v("name", s.name);
  v("key", s.key);
}

template <typename V>
void fields(V& v, PrometheusSource& p) {
  v.type("PrometheusConfig");
  v("address", p.address);
  v("headers", p.headers);
  v("queryParameters", p.queryParameters);
  v.object("bearerTokenSecret", p.bearerTokenSecret);
  v.inlined("tls", "TLSConfig", [&](V& tls) { tls("insecureSkipVerify", p.insecureSkipVerify); });
}

template <typename V>
void fields(V& v, MetricsSource& m) {
  v.type("MetricsSource");
  v.object("prometheus", m.prometheus);
  v("historyWindow", m.historyWindow);
  v("minimumDataPoints", m.minimumDataPoints);
  v("queryStep", m.queryStep);
  v("rateWindow", m.rateWindow);
  v("podAggregation", m.podAggregation);
}

template <typename V>
void fields(V& v, StartupBoost& b) {
  v.type("StartupBoost");
  v("multiplier", b.multiplier);
  v("duration", b.duration);
}

template <typename V, typename Amount>
void fields(V& v, ResourcePolicy<Amount>& r) {
  v.type("ResourceConfig");
  v("percentile", r.percentile);
  v("overhead", r.overhead);
  v("minAllowed", r.minAllowed);
  v("maxAllowed", r.maxAllowed);
  v("controlledValues", r.controlledValues);
  v("allowDecrease", r.allowDecrease);
  v("maxChangePercent", r.maxChangePercent);
  if constexpr (std::is_same_v<Amount, Millicores>) v.object("startupBoost", r.startupBoost);
  v("decreaseUsageMarginPercent", r.decreaseUsageMarginPercent);
}

template <typename V>
void fields(V& v, CanaryConfig& c) {
  v.type("CanaryConfig");
  v("percentage", c.percentage);
  v("observationPeriod", c.observationPeriod);
  v("autoPromote", c.autoPromote);
}

template <typename V>
void fields(V& v, TimeWindow& w) {
  v.type("TimeWindow");
  v("start", w.start);
  v("end", w.end);
}

template <typename V>
void fields(V& v, ResizeSchedule& s) {
  v.type("ResizeSchedule");
  v.list("windows", s.windows);
  v("daysOfWeek", s.daysOfWeek);
  v("timezone", s.timezone);
}

template <typename V>
void fields(V& v, SloGuardrail& g) {
  v.type("SLOGuardrail");
  v("name", g.name);
  v("query", g.query);
  v("threshold", g.threshold);
  v("comparison", g.comparison);
  v("evaluationWindow", g.evaluationWindow);
}

template <typename V>
void fields(V& v, UpdateStrategy& u) {
  v.type("UpdateStrategy");
  v("type", u.type);
  v.object("canary", u.canary);
  v("cooldown", u.cooldown);
  v("autoRevert", u.autoRevert);
  v("safetyObservationPeriod", u.safetyObservationPeriod);
  v("maxConcurrentResizes", u.maxConcurrentResizes);
  v.object("schedule", u.schedule);
  v("maxTotalCpuIncrease", u.maxTotalCpuIncrease);
  v("maxTotalMemoryIncrease", u.maxTotalMemoryIncrease);
  v.list("sloGuardrails", u.sloGuardrails);
  v("resizeMethod", u.resizeMethod);
}

template <typename V>
void fields(V& v, NodeOptimization& n) {
  v.type("NodeOptimization");
  v("enabled", n.enabled);
  v("evictionRanking", n.evictionRanking);
}

template <typename V>
void fields(V& v, AttunePolicySpec& s) {
  v.type("AttunePolicySpec");
  v.object("targetRef", s.targetRef);
  v.object("metricsSource", s.metricsSource);
  v.object("cpu", s.cpu);
  v.object("memory", s.memory);
  v.object("updateStrategy", s.updateStrategy);
  v("excludedContainers", s.excludedContainers);
  v("excludeKnownSidecars", s.excludeKnownSidecars);
  v("paused", s.paused);
  v("runtimeProfile", s.runtimeProfile);
  v("weight", s.weight);
  v("strategy", s.strategy);
  v.object("nodeOptimization", s.nodeOptimization);
}

template <typename V>
void fields(V& v, ResourceValues& r) {
  v.type("ResourceValues");
  v("cpuRequest", r.cpuRequest);
  v("cpuLimit", r.cpuLimit);
  v("memoryRequest", r.memoryRequest);
  v("memoryLimit", r.memoryLimit);
}

template <typename V>
void fields(V& v, ContainerRecommendation& c) {
  v.type("ContainerRecommendation");
  v("name", c.name);
  v.object("current", c.current);
  v.object("recommended", c.recommended);
  v("confidence", c.confidence);
  v("dataPoints", c.dataPoints);
  v("lastUpdated", c.lastUpdated);
  v("rationale", c.rationale);
}

template <typename V>
void fields(V& v, WorkloadRecommendation& w) {
  v.type("WorkloadRecommendation");
  v("workload", w.workload);
  v("kind", w.kind);
  v.list("containers", w.containers);
  v("lastDataTime", w.lastDataTime);
  v("stale", w.stale);
}

template <typename V>
void fields(V& v, ResizeHistoryEntry& e) {
  v.type("ResizeHistoryEntry");
  v("timestamp", e.timestamp);
  v("workload", e.workload);
  v("pod", e.pod);
  v("container", e.container);
  v("resource", e.resource);
  v("from", e.from);
  v("to", e.to);
  v("method", e.method);
  v("result", e.result);
  v("reason", e.reason);
}

template <typename V>
void fields(V& v, Condition& c) {
  v.type("Condition");
  v("type", c.type);
  v("status", c.status);
  v("reason", c.reason);
  v("message", c.message);
  v("lastTransitionTime", c.lastTransitionTime);
  v("observedGeneration", c.observedGeneration);
}

template <typename V>
void fields(V& v, PolicyWorkloadCounts& w) {
  v.type("WorkloadStatus");
  v("discovered", w.discovered);
  v("withRecommendations", w.withRecommendations);
  v("resized", w.resized);
  v("pending", w.pending);
  v("dataPointsCollected", w.dataPointsCollected);
  v("dataPointsRequired", w.dataPointsRequired);
}

template <typename V>
void fields(V& v, SavingsStatus& s) {
  v.type("SavingsStatus");
  v("cpuRequestTotal", s.cpuRequestTotal);
  v("cpuRequestReduction", s.cpuRequestReduction);
  v("cpuRequestIncrease", s.cpuRequestIncrease);
  v("memoryRequestTotal", s.memoryRequestTotal);
  v("memoryRequestReduction", s.memoryRequestReduction);
  v("memoryRequestIncrease", s.memoryRequestIncrease);
  v("reclaimedCpuRequest", s.reclaimedCpuRequest);
  v("reclaimedMemoryRequest", s.reclaimedMemoryRequest);
}

template <typename V>
void fields(V& v, CanaryWorkloadStatus& c) {
  v.type("CanaryWorkloadStatus");
  v("workload", c.workload);
  v("phase", c.phase);
  v("pods", c.pods);
  v("startTime", c.startTime);
}

template <typename V>
void fields(V& v, CanaryStatus& c) {
  v.type("CanaryStatus");
  v("phase", c.phase);
  v("pods", c.pods);
  v("startTime", c.startTime);
  v("observedGeneration", c.observedGeneration);
  v.list("workloads", c.workloads);
}

template <typename V>
void fields(V& v, CooldownStatus& c) {
  v.type("CooldownStatus");
  v("backoffMultiplier", c.backoffMultiplier);
  v("consecutiveReverts", c.consecutiveReverts);
  v("effectiveCooldown", c.effectiveCooldown);
}

template <typename V>
void fields(V& v, AttunePolicyStatus& s) {
  v.type("AttunePolicyStatus");
  v.list("conditions", s.conditions);
  v.list("recommendations", s.recommendations);
  v.list("resizeHistory", s.resizeHistory);
  v.object("workloads", s.workloads);
  v.object("savings", s.savings);
  v.object("canary", s.canary);
  v.object("cooldown", s.cooldown);
  v("lastReconcileTime", s.lastReconcileTime);
  v("consecutiveReverts", s.consecutiveReverts);
  v("lastResizeTime", s.lastResizeTime);
  v("observedGeneration", s.observedGeneration);
}

// The document body after apiVersion and kind.
template <typename V>
void fields(V& v, AttunePolicy& p) {
  v.type("AttunePolicy");
  v.object("metadata", p.metadata);
  v.object("spec", p.spec);
  v.object("status", p.status);
}

}  // namespace attune::api::internal
