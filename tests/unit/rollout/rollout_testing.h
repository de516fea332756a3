// Builders for the rollout tests: a policy, a Deployment "web" in namespace "team" with running
// Ready pods, and recommendations.
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <string_view>

#include "api/k8s/pod.h"
#include "api/policy/attune_policy.h"
#include "core/quantity.h"
#include "core/time.h"
#include "rollout/planner.h"

namespace attune::rollout::testing {

using namespace attune::literals;
using namespace std::chrono_literals;

inline Time t0() { return parseRfc3339("2025-03-01T12:00:00Z").value(); }
inline Quantity q(std::string_view text) { return Quantity::parse(text).value(); }

inline api::AttunePolicy policy(api::UpdateMode mode, int maxConcurrent = 10) {
  api::AttunePolicy p;
  p.metadata.namespace_ = "team";
  p.metadata.name = "web-policy";
  p.spec.targetRef.kind = api::TargetKind::kDeployment;
  p.spec.targetRef.name = "web";
  p.spec.updateStrategy.type = mode;
  p.spec.updateStrategy.maxConcurrentResizes = maxConcurrent;
  return p;
}

// Requirements from quantity strings; "" leaves a value absent.
inline api::ResourceRequirements resources(std::string_view cpuReq, std::string_view memReq,
                                           std::string_view cpuLim = "",
                                           std::string_view memLim = "") {
  api::ResourceRequirements r;
  if (!cpuReq.empty()) r.requests.cpu = q(cpuReq);
  if (!memReq.empty()) r.requests.memory = q(memReq);
  if (!cpuLim.empty()) r.limits.cpu = q(cpuLim);
  if (!memLim.empty()) r.limits.memory = q(memLim);
  return r;
}

// A running, Ready pod on node n1 with container "app" (and any extra containers).
inline api::Pod pod(std::string name,
                    api::ResourceRequirements app = resources("500m", "512Mi", "1", "1Gi")) {
  api::Pod p;
  p.metadata.namespace_ = "team";
  p.metadata.name = std::move(name);
  p.spec.nodeName = "n1";
  p.status.phase = "Running";
  p.status.conditions.push_back({"Ready", "True", "", "", t0() - 1h, 0});
  api::Container c;
  c.name = "app";
  c.resources = std::move(app);
  p.spec.containers.push_back(c);
  api::ContainerStatus s;
  s.name = "app";
  s.ready = true;
  s.restartCount = 1;
  s.resources = c.resources;
  p.status.containerStatuses.push_back(s);
  return p;
}

inline void addContainer(api::Pod& p, std::string name, api::ResourceRequirements r) {
  api::Container c;
  c.name = name;
  c.resources = std::move(r);
  p.spec.containers.push_back(c);
  api::ContainerStatus s;
  s.name = std::move(name);
  s.ready = true;
  s.resources = p.spec.containers.back().resources;
  p.status.containerStatuses.push_back(s);
}

// Recommended requests of one container.
inline api::ResourceValues target(Millicores cpu, Bytes memory) {
  api::ResourceValues r;
  r.cpuRequest = cpu;
  r.memoryRequest = memory;
  return r;
}

// Deployment "web" (3 of 3 replicas updated) owning `pods`, with "app" recommended 250m/384Mi.
inline WorkloadInput web(const std::deque<api::Pod>& pods) {
  WorkloadInput w;
  w.kind = api::WorkloadKind::kDeployment;
  w.metadata.namespace_ = "team";
  w.metadata.name = "web";
  w.replicas = w.updatedReplicas = static_cast<std::int32_t>(pods.size());
  for (const api::Pod& p : pods) w.pods.push_back(&p);
  w.targets["app"] = target(250_m, 384_Mi);
  return w;
}

// `n` pods web-0 ... web-<n-1> with the default resources.
inline std::deque<api::Pod> pods(int n) {
  std::deque<api::Pod> out;
  for (int i = 0; i < n; ++i) out.push_back(pod("web-" + std::to_string(i)));
  return out;
}

inline api::Node node(std::string name, std::string_view cpu, std::string_view memory) {
  api::Node n;
  n.metadata.name = std::move(name);
  n.status.allocatable.cpu = q(cpu);
  n.status.allocatable.memory = q(memory);
  return n;
}

// The pod names of the plan's resizes, in order.
inline std::vector<std::string> resized(const Plan& plan) {
  std::vector<std::string> out;
  for (const ResizeAction* r : plan.all<ResizeAction>()) out.push_back(r->pod);
  return out;
}

// The reasons of the plan's skips, "pod:Reason" ("web:Reason" for a workload skip).
inline std::vector<std::string> skips(const Plan& plan) {
  std::vector<std::string> out;
  for (const SkipAction* s : plan.all<SkipAction>()) {
    out.push_back((s->pod.empty() ? s->workload.name : s->pod) + ":" +
                  std::string(toString(s->reason)));
  }
  return out;
}

}  // namespace attune::rollout::testing
