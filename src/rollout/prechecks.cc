#include "rollout/prechecks.h"

#include <algorithm>
#include <sstream>

#include "core/quantity.h"
#include "safety/annotations.h"

namespace attune::rollout {
namespace {

std::string qualified(const api::ObjectMeta& meta) { return meta.namespace_ + "/" + meta.name; }

api::QosClass currentQos(const api::Pod& pod) {
  for (api::QosClass q :
       {api::QosClass::kBestEffort, api::QosClass::kBurstable, api::QosClass::kGuaranteed}) {
    if (pod.status.qosClass == api::qosClassName(q)) return q;
  }
  return api::computeQosClass(pod.spec);
}

// A bound check of one value against one LimitRange item; message or nullopt.
template <typename Amount, typename Convert, typename Format>
std::optional<std::string> bound(const std::optional<Amount>& value, std::string_view what,
                                 const std::string& container, const api::LimitRangeItem& item,
                                 std::string_view resource, const std::string& where,
                                 Convert convert, Format format) {
  if (!value) return std::nullopt;
  if (const Quantity* min = item.min.find(resource); min && *value < convert(*min)) {
    return "container " + container + ": " + std::string(resource) + " " + std::string(what) + " " +
           format(*value) + " is below the minimum " + format(convert(*min)) + " of LimitRange " +
           where;
  }
  if (const Quantity* max = item.max.find(resource); max && *value > convert(*max)) {
    return "container " + container + ": " + std::string(resource) + " " + std::string(what) + " " +
           format(*value) + " exceeds the maximum " + format(convert(*max)) + " of LimitRange " +
           where;
  }
  return std::nullopt;
}

template <typename Amount>
std::optional<std::string> ratio(const std::optional<Amount>& request,
                                 const std::optional<Amount>& limit, const std::string& container,
                                 const api::LimitRangeItem& item, std::string_view resource,
                                 const std::string& where) {
  const Quantity* max = item.maxLimitRequestRatio.find(resource);
  if (max == nullptr || !request || !limit || request->value() <= 0) return std::nullopt;
  // limit / request > max  ⇔  limit × 10^9 > max.nanos × request
  const __int128 lhs = static_cast<__int128>(limit->value()) * 1'000'000'000;
  const __int128 rhs = max->nanos() * request->value();
  if (lhs <= rhs) return std::nullopt;
  return "container " + container + ": " + std::string(resource) +
         " limit/request ratio exceeds the maximum " + max->toString() + " of LimitRange " + where;
}

Millicores cpuOf(const Quantity& q) { return q.toMillicores(); }
Bytes memoryOf(const Quantity& q) { return q.toBytes(); }
std::string fmtCpu(Millicores m) { return formatCpu(m); }
std::string fmtMemory(Bytes b) { return formatMemory(b); }

template <typename Amount>
Amount delta(const std::optional<Amount>& before, const std::optional<Amount>& after) {
  return after.value_or(Amount(0)) - before.value_or(Amount(0));
}

// The hard and used amount of `key` in `quota`, or nullopt when it sets no hard limit for it.
std::optional<std::pair<Quantity, Quantity>> quotaEntry(const api::ResourceQuota& quota,
                                                        std::string_view key) {
  const api::ResourceList& hard = quota.hard.empty() ? quota.specHard : quota.hard;
  const Quantity* h = hard.find(key);
  if (h == nullptr) return std::nullopt;
  const Quantity* u = quota.used.find(key);
  return std::pair{*h, u ? *u : Quantity{}};
}

struct QuotaKey {
  std::string_view key;
  bool cpu;
  bool limit;
};
constexpr QuotaKey kQuotaKeys[] = {
    {"requests.cpu", true, false}, {"cpu", true, false},       {"requests.memory", false, false},
    {"memory", false, false},      {"limits.cpu", true, true}, {"limits.memory", false, true}};

void addRequests(Millicores& cpu, Bytes& memory, const api::ResourceList& list) {
  if (list.cpu) cpu += list.cpu->toMillicores();
  if (list.memory) memory += list.memory->toBytes();
}

}  // namespace

bool optedOut(const api::ObjectMeta& meta) {
  auto it = meta.annotations.find(safety::kSkipAnnotation);
  return it != meta.annotations.end() && it->second == "true";
}

std::optional<std::string> checkQos(const api::Pod& pod, const api::PodSpec& after) {
  const api::QosClass before = currentQos(pod);
  const api::QosClass next = api::computeQosClass(after);
  if (before == next) return std::nullopt;
  std::string msg = "the resize would change the pod's QoS class from " +
                    std::string(api::qosClassName(before)) + " to " +
                    std::string(api::qosClassName(next));
  if (before == api::QosClass::kGuaranteed) {
    msg +=
        " (a Guaranteed pod keeps requests equal to limits; set controlledValues: "
        "RequestsAndLimits to move them together)";
  }
  return msg;
}

std::optional<std::string> checkLimitRanges(const api::Pod& pod,
                                            const std::vector<ContainerChange>& changes,
                                            std::span<const api::LimitRange> limitRanges) {
  for (const api::LimitRange& lr : limitRanges) {
    if (lr.metadata.namespace_ != pod.metadata.namespace_) continue;
    const std::string where = qualified(lr.metadata);
    for (const api::LimitRangeItem& item : lr.limits) {
      if (item.type != "Container") continue;
      for (const ContainerChange& c : changes) {
        const api::ResourceValues& t = c.target;
        const bool cpuChanged =
            t.cpuRequest != c.current.cpuRequest || t.cpuLimit != c.current.cpuLimit;
        const bool memoryChanged =
            t.memoryRequest != c.current.memoryRequest || t.memoryLimit != c.current.memoryLimit;
        std::optional<std::string> msg;
        if (cpuChanged) {
          if (!msg) msg = bound(t.cpuRequest, "request", c.name, item, "cpu", where, cpuOf, fmtCpu);
          if (!msg) msg = bound(t.cpuLimit, "limit", c.name, item, "cpu", where, cpuOf, fmtCpu);
          if (!msg) msg = ratio(t.cpuRequest, t.cpuLimit, c.name, item, "cpu", where);
        }
        if (memoryChanged) {
          if (!msg) {
            msg = bound(t.memoryRequest, "request", c.name, item, "memory", where, memoryOf,
                        fmtMemory);
          }
          if (!msg) {
            msg = bound(t.memoryLimit, "limit", c.name, item, "memory", where, memoryOf, fmtMemory);
          }
          if (!msg) msg = ratio(t.memoryRequest, t.memoryLimit, c.name, item, "memory", where);
        }
        if (msg) return msg;
      }
    }
  }
  return std::nullopt;
}

PodDelta podDelta(const std::vector<ContainerChange>& changes) {
  PodDelta d;
  for (const ContainerChange& c : changes) {
    d.cpuRequests += delta(c.current.cpuRequest, c.target.cpuRequest);
    d.memoryRequests += delta(c.current.memoryRequest, c.target.memoryRequest);
    d.cpuLimits += delta(c.current.cpuLimit, c.target.cpuLimit);
    d.memoryLimits += delta(c.current.memoryLimit, c.target.memoryLimit);
  }
  return d;
}

std::optional<std::string> QuotaLedger::check(std::string_view ns, const PodDelta& d) const {
  for (const api::ResourceQuota& quota : quotas_) {
    if (quota.metadata.namespace_ != ns) continue;
    const std::string name = qualified(quota.metadata);
    auto taken = taken_.find(name);
    const PodDelta already = taken == taken_.end() ? PodDelta{} : taken->second;
    for (const QuotaKey& k : kQuotaKeys) {
      auto entry = quotaEntry(quota, k.key);
      if (!entry) continue;
      const auto& [hard, used] = *entry;
      if (k.cpu) {
        const Millicores want = k.limit ? d.cpuLimits : d.cpuRequests;
        if (want <= Millicores(0)) continue;
        const Millicores room = hard.toMillicores() - used.toMillicores() -
                                (k.limit ? already.cpuLimits : already.cpuRequests);
        if (want > room) {
          return "the resize adds " + formatCpu(want) + " of " + std::string(k.key) +
                 " but ResourceQuota " + name + " has " + formatCpu(std::max(room, Millicores(0))) +
                 " left (hard " + hard.toString() + ", used " + used.toString() + ")";
        }
      } else {
        const Bytes want = k.limit ? d.memoryLimits : d.memoryRequests;
        if (want <= Bytes(0)) continue;
        const Bytes room = hard.toBytes() - used.toBytes() -
                           (k.limit ? already.memoryLimits : already.memoryRequests);
        if (want > room) {
          return "the resize adds " + formatMemory(want) + " of " + std::string(k.key) +
                 " but ResourceQuota " + name + " has " + formatMemory(std::max(room, Bytes(0))) +
                 " left (hard " + hard.toString() + ", used " + used.toString() + ")";
        }
      }
    }
  }
  return std::nullopt;
}

void QuotaLedger::take(std::string_view ns, const PodDelta& d) {
  for (const api::ResourceQuota& quota : quotas_) {
    if (quota.metadata.namespace_ != ns) continue;
    PodDelta& t = taken_[qualified(quota.metadata)];
    t.cpuRequests += std::max(d.cpuRequests, Millicores(0));
    t.memoryRequests += std::max(d.memoryRequests, Bytes(0));
    t.cpuLimits += std::max(d.cpuLimits, Millicores(0));
    t.memoryLimits += std::max(d.memoryLimits, Bytes(0));
  }
}

PodRequests podRequests(const api::PodSpec& spec) {
  PodRequests r;
  addRequests(r.cpu, r.memory, spec.overhead);
  for (const api::Container& c : spec.containers)
    addRequests(r.cpu, r.memory, c.resources.requests);
  for (const api::Container& c : spec.initContainers) {
    if (c.isSidecar()) addRequests(r.cpu, r.memory, c.resources.requests);
  }
  return r;
}

std::optional<std::string> checkNodeCapacity(const api::Pod& pod, const api::PodSpec& after,
                                             const api::Node* node) {
  if (node == nullptr) return std::nullopt;
  const auto [cpu, memory] = podRequests(after);
  const api::ResourceList& alloc = node->status.allocatable;
  if (alloc.cpu && cpu > alloc.cpu->toMillicores()) {
    return "the pod would request " + formatCpu(cpu) + " cpu but node " + pod.spec.nodeName +
           " has " + formatCpu(alloc.cpu->toMillicores()) + " allocatable";
  }
  if (alloc.memory && memory > alloc.memory->toBytes()) {
    return "the pod would request " + formatMemory(memory) + " memory but node " +
           pod.spec.nodeName + " has " + formatMemory(alloc.memory->toBytes()) + " allocatable";
  }
  return std::nullopt;
}

std::string hpaConflict(const api::WorkloadRef& workload,
                        std::span<const api::HorizontalPodAutoscaler> hpas) {
  std::vector<std::string> found;
  for (const api::HorizontalPodAutoscaler& hpa : hpas) {
    if (hpa.metadata.namespace_ != workload.ns) continue;
    const api::ScaleTargetRef& ref = hpa.spec.scaleTargetRef;
    if (ref.kind != workload.kind || ref.name != workload.name) continue;
    std::vector<std::string> resources;
    // "cpu (Utilization 70%)", "memory of container app (AverageValue)".
    auto describe = [](std::string what, const api::MetricValue& t) {
      if (t.type == "Utilization" && t.averageUtilization) {
        return what + " (Utilization " + std::to_string(*t.averageUtilization) + "%)";
      }
      return t.type.empty() ? what : what + " (" + t.type + ")";
    };
    for (const api::MetricSpec& m : hpa.spec.metrics) {
      auto sized = [](const std::string& r) { return r == "cpu" || r == "memory"; };
      if (m.resource && sized(m.resource->name)) {
        resources.push_back(describe(m.resource->name, m.resource->target));
      }
      if (m.containerResource && sized(m.containerResource->name)) {
        resources.push_back(
            describe(m.containerResource->name + " of container " + m.containerResource->container,
                     m.containerResource->target));
      }
    }
    if (resources.empty()) continue;
    std::string text = "HorizontalPodAutoscaler " + qualified(hpa.metadata) + " scales on ";
    for (std::size_t i = 0; i < resources.size(); ++i) {
      text += (i == 0 ? "" : ", ") + resources[i];
    }
    found.push_back(std::move(text));
  }
  if (found.empty()) return {};
  std::string msg;
  for (const std::string& f : found) msg += f + "; ";
  msg +=
      "resizing requests changes the utilization it sees; Attune proceeds without retuning it "
      "(annotate the HPA attune.io/auto-tune: \"true\" to have Attune keep its scaling point; "
      "AverageValue targets are absolute and need no retune)";
  return msg;
}

}  // namespace attune::rollout
