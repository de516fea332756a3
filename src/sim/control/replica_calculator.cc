#include "sim/control/replica_calculator.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace attune::sim {
namespace {

struct PodMetric {
  std::int64_t milli = 0;
  Time timestamp{};
  Duration window{};
};

using Metrics = std::map<std::string, PodMetric, std::less<>>;

std::int64_t usageMilli(const ContainerUsageSample& c, std::string_view resource) {
  return resource == "cpu" ? c.cpu.value() : c.memory.value() * 1000;
}

std::optional<std::int64_t> requestMilli(const api::Container& c, std::string_view resource) {
  const Quantity* q = c.resources.requests.find(resource);
  if (q == nullptr) return std::nullopt;
  return resource == "cpu" ? q->toMillicores().value() : q->toBytes().value() * 1000;
}

// The pod's metric for the query, by pod name (metrics-server's getResourceMetric).
Result<Metrics> podMetrics(const ResourceMetricQuery& query,
                           const std::vector<const api::Pod*>& pods, const PodUsageByName& usage) {
  Metrics out;
  for (const api::Pod* pod : pods) {
    auto it = usage.find(podUsageKey(pod->metadata.namespace_, pod->metadata.name));
    if (it == usage.end()) continue;
    const PodUsageSample& sample = it->second;
    std::int64_t sum = 0;
    bool found = query.container.empty();
    for (const ContainerUsageSample& c : sample.containers) {
      if (query.container.empty()) {
        sum += usageMilli(c, query.resource);
      } else if (c.name == query.container) {
        sum = usageMilli(c, query.resource);
        found = true;
      }
    }
    if (!found) {
      return fail(ErrorCode::kNotFound, "container " + query.container +
                                            " not present in metrics for pod " +
                                            pod->metadata.namespace_ + "/" + pod->metadata.name);
    }
    out[pod->metadata.name] = PodMetric{sum, sample.timestamp, sample.window};
  }
  return out;
}

// Requests of the counted containers per pod name (regular and sidecar containers).
Result<std::map<std::string, std::int64_t, std::less<>>> podRequests(
    const ResourceMetricQuery& query, const std::vector<const api::Pod*>& pods) {
  std::map<std::string, std::int64_t, std::less<>> out;
  for (const api::Pod* pod : pods) {
    std::int64_t sum = 0;
    auto add = [&](const api::Container& c) -> Result<void> {
      if (!query.container.empty() && c.name != query.container) return {};
      auto request = requestMilli(c, query.resource);
      if (!request) {
        return fail(ErrorCode::kInvalidArgument, "missing request for " + query.resource +
                                                     " in container " + c.name + " of Pod " +
                                                     pod->metadata.name);
      }
      sum += *request;
      return {};
    };
    for (const api::Container& c : pod->spec.containers) {
      if (auto ok = add(c); !ok) return std::unexpected(ok.error());
    }
    for (const api::Container& c : pod->spec.initContainers) {
      if (!c.isSidecar()) continue;
      if (auto ok = add(c); !ok) return std::unexpected(ok.error());
    }
    out[pod->metadata.name] = sum;
  }
  return out;
}

const api::Condition* readyCondition(const api::Pod& pod) {
  for (const api::Condition& c : pod.status.conditions) {
    if (c.type == "Ready") return &c;
  }
  return nullptr;
}

struct PodGroups {
  std::int64_t ready = 0;
  std::set<std::string, std::less<>> unready;
  std::set<std::string, std::less<>> missing;
  std::set<std::string, std::less<>> ignored;
};

bool cpuUnready(const api::Pod& pod, const PodMetric& metric, const ReadinessWindows& windows,
                Time now) {
  const api::Condition* ready = readyCondition(pod);
  if (ready == nullptr || !pod.status.startTime) return true;
  const Time start = *pod.status.startTime;
  const Time transition = ready->lastTransitionTime.value_or(start);
  if (start + windows.cpuInitializationPeriod > now) {
    return ready->status == "False" || metric.timestamp < transition + metric.window;
  }
  return ready->status == "False" && start + windows.initialReadinessDelay > transition;
}

PodGroups groupPods(const std::vector<const api::Pod*>& pods, const Metrics& metrics,
                    std::string_view resource, const ReadinessWindows& windows, Time now) {
  PodGroups g;
  for (const api::Pod* pod : pods) {
    const std::string& name = pod->metadata.name;
    if (pod->metadata.deletionTimestamp || pod->status.phase == "Failed") {
      g.ignored.insert(name);
      continue;
    }
    if (pod->status.phase == "Pending" || pod->status.phase.empty()) {
      g.unready.insert(name);
      continue;
    }
    auto it = metrics.find(name);
    if (it == metrics.end()) {
      g.missing.insert(name);
      continue;
    }
    if (resource == "cpu" && cpuUnready(*pod, it->second, windows, now)) {
      g.unready.insert(name);
      continue;
    }
    ++g.ready;
  }
  return g;
}

struct Ratio {
  double ratio = 0;
  std::int32_t utilization = 0;
  std::int64_t averageMilli = 0;
};

// Usage against the target over the pods in `metrics` (GetResourceUtilizationRatio and
// GetMetricUsageRatio).
Result<Ratio> usageRatio(const ResourceMetricQuery& query, const Metrics& metrics,
                         const std::map<std::string, std::int64_t, std::less<>>& requests) {
  if (query.targetUtilization <= 0) {
    std::int64_t total = 0;
    for (const auto& [name, m] : metrics) total += m.milli;
    const auto n = static_cast<std::int64_t>(metrics.size());
    const std::int64_t average = total / n;
    return Ratio{static_cast<double>(total) / static_cast<double>(n) /
                     static_cast<double>(query.targetAverageMilli),
                 0, average};
  }
  std::int64_t usageTotal = 0;
  std::int64_t requestTotal = 0;
  std::int64_t entries = 0;
  for (const auto& [name, m] : metrics) {
    auto request = requests.find(name);
    if (request == requests.end()) continue;
    usageTotal += m.milli;
    requestTotal += request->second;
    ++entries;
  }
  if (requestTotal == 0)
    return fail(ErrorCode::kNotFound, "no metrics returned matched known pods");
  const auto utilization = static_cast<std::int32_t>(usageTotal * 100 / requestTotal);
  return Ratio{static_cast<double>(utilization) / query.targetUtilization, utilization,
               usageTotal / entries};
}

}  // namespace

std::string podUsageKey(std::string_view ns, std::string_view name) {
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

Result<ResourceProposal> resourceReplicas(const ResourceMetricQuery& query,
                                          std::int32_t currentReplicas,
                                          const std::vector<const api::Pod*>& pods,
                                          const PodUsageByName& usage, const Tolerances& tolerances,
                                          const ReadinessWindows& readiness, Time now) {
  auto metrics = podMetrics(query, pods, usage);
  if (!metrics) return std::unexpected(metrics.error());
  if (pods.empty()) {
    return fail(ErrorCode::kNotFound,
                "no pods returned by selector while calculating replica count");
  }
  const PodGroups groups = groupPods(pods, *metrics, query.resource, readiness, now);
  for (const std::string& name : groups.ignored) metrics->erase(name);
  for (const std::string& name : groups.unready) metrics->erase(name);
  if (metrics->empty()) {
    return fail(ErrorCode::kNotFound,
                "did not receive metrics for targeted pods (pods might be unready)");
  }
  std::map<std::string, std::int64_t, std::less<>> requests;
  if (query.targetUtilization > 0) {
    auto r = podRequests(query, pods);
    if (!r) return std::unexpected(r.error());
    requests = std::move(*r);
  }
  auto first = usageRatio(query, *metrics, requests);
  if (!first) return std::unexpected(first.error());
  ResourceProposal proposal{currentReplicas, first->utilization, first->averageMilli};

  const bool scaleUpWithUnready = !groups.unready.empty() && first->ratio > 1.0;
  if (!scaleUpWithUnready && groups.missing.empty()) {
    if (!tolerances.contains(first->ratio)) {
      proposal.replicas =
          static_cast<std::int32_t>(std::ceil(first->ratio * static_cast<double>(groups.ready)));
    }
    return proposal;
  }
  if (first->ratio < 1.0) {
    for (const std::string& name : groups.missing) {
      const std::int64_t fallback =
          query.targetUtilization > 0
              ? requests[name] * std::max<std::int64_t>(100, query.targetUtilization) / 100
              : query.targetAverageMilli;
      (*metrics)[name] = PodMetric{fallback};
    }
  } else if (first->ratio > 1.0) {
    for (const std::string& name : groups.missing) (*metrics)[name] = PodMetric{0};
  }
  if (scaleUpWithUnready) {
    for (const std::string& name : groups.unready) (*metrics)[name] = PodMetric{0};
  }
  auto second = usageRatio(query, *metrics, requests);
  if (!second) return std::unexpected(second.error());
  const double r = second->ratio;
  if (tolerances.contains(r) || (first->ratio < 1.0 && r > 1.0) ||
      (first->ratio > 1.0 && r < 1.0)) {
    return proposal;
  }
  const auto replicas =
      static_cast<std::int32_t>(std::ceil(r * static_cast<double>(metrics->size())));
  if ((r < 1.0 && replicas > currentReplicas) || (r > 1.0 && replicas < currentReplicas)) {
    return proposal;
  }
  proposal.replicas = replicas;
  return proposal;
}

}  // namespace attune::sim
