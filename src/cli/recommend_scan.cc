#include "cli/recommend_scan.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <strings.h>

#include <algorithm>
#include <map>
#include <set>

#include "api/policy/policy_defaults.h"
#include "recommend/pod_aggregation.h"
#include "recommend/strategy.h"

namespace attune::cli {
namespace {

using metrics::ContainerId;
using metrics::WorkloadRef;

// One pod's view of a container at one timestamp.
struct PodPoint {
  std::optional<double> cpu;
  std::optional<double> psi;
  std::optional<double> memory;
};

struct ContainerGroup {
  std::map<std::string, std::map<Time, PodPoint>> pods;  // pod → time → point
  std::vector<metrics::OomKill> oomKills;
  api::ResourceValues current;
};

struct WorkloadGroup {
  std::set<std::string> podsWithResources;
  std::map<std::string, std::set<std::string>> podContainers;  // pod → container names
  std::map<std::string, ContainerGroup> containers;            // by container name
};

using Groups = std::map<WorkloadRef, WorkloadGroup>;

std::string scopeText(const metrics::Scope& scope) {
  if (scope.allNamespaces()) return "all namespaces";
  return fmt::format("namespace{} {}", scope.namespaces.size() == 1 ? "" : "s",
                     fmt::join(scope.namespaces, ", "));
}

template <typename Amount>
void raiseTo(std::optional<Amount>& target, const std::optional<Amount>& v) {
  if (v && (!target || *target < *v)) target = v;
}

WorkloadRef workloadOf(const std::map<std::pair<std::string, std::string>, WorkloadRef>& owners,
                       const std::string& ns, const std::string& pod) {
  auto it = owners.find({ns, pod});
  return it != owners.end() ? it->second : WorkloadRef{ns, "Pod", pod};
}

Groups group(const ScanData& data, const ScanRequest& request) {
  std::map<std::pair<std::string, std::string>, WorkloadRef> owners;
  for (const auto& o : data.owners) owners[{o.ns, o.pod}] = o.workload;
  Groups groups;
  // The container's group, or nullptr when its workload is filtered out or the policy excludes
  // the container (spec.excludedContainers and, unless disabled, the known sidecars).
  const auto container = [&](const ContainerId& id) -> ContainerGroup* {
    const WorkloadRef w = workloadOf(owners, id.ns, id.pod);
    if (!request.scope.contains(id.ns) || !matchesSelector(w, request.selector)) return nullptr;
    if (api::isExcludedContainer(request.policy, id.container)) return nullptr;
    WorkloadGroup& g = groups[w];
    g.podContainers[id.pod].insert(id.container);
    return &g.containers[id.container];
  };
  const auto addSeries = [&](const auto& all, std::optional<double> PodPoint::*field) {
    for (const auto& s : all) {
      if (ContainerGroup* c = container(s.id)) {
        for (const auto& p : s.points) c->pods[s.id.pod][p.time].*field = p.value;
      }
    }
  };
  addSeries(data.cpu, &PodPoint::cpu);
  addSeries(data.psi, &PodPoint::psi);
  addSeries(data.memory, &PodPoint::memory);
  for (const auto& k : data.oomKills) {
    if (ContainerGroup* c = container(k.id)) c->oomKills.push_back(k);
  }
  for (const auto& r : data.resources) {
    ContainerGroup* c = container(r.id);
    if (c == nullptr) continue;
    groups[workloadOf(owners, r.id.ns, r.id.pod)].podsWithResources.insert(r.id.pod);
    raiseTo(c->current.cpuRequest, r.cpuRequest);
    raiseTo(c->current.cpuLimit, r.cpuLimit);
    raiseTo(c->current.memoryRequest, r.memoryRequest);
    raiseTo(c->current.memoryLimit, r.memoryLimit);
  }
  return groups;
}

// Samples of each pod: the timestamps with both CPU and memory.
std::vector<std::vector<stats::Sample>> podSamples(const ContainerGroup& c) {
  std::vector<std::vector<stats::Sample>> out;
  for (const auto& [pod, points] : c.pods) {
    std::vector<stats::Sample> samples;
    for (const auto& [t, p] : points) {
      if (p.cpu && p.memory) samples.push_back({t, *p.cpu, p.psi, *p.memory});
    }
    out.push_back(std::move(samples));
  }
  return out;
}

report::ContainerReport containerReport(const std::string& name, const ContainerGroup& c,
                                        int containersInPod, const stats::StatsConfig& config,
                                        const std::vector<recommend::StrategyPtr>& strategies,
                                        const ScanRequest& request) {
  stats::ContainerStats stats(config);
  const auto aggregation =
      request.policy.spec.metricsSource.podAggregation.value_or(api::kDefaultPodAggregation);
  // VPA's decaying histograms only when the vpa strategy is asked for (raw CPU usage, as VPA).
  std::optional<recommend::VpaHistograms> vpa;
  const bool wantsVpa = std::any_of(strategies.begin(), strategies.end(),
                                    [](const auto& s) { return s->name() == "vpa"; });
  if (wantsVpa) vpa.emplace();
  std::optional<double> cpuRequestCores;
  if (c.current.cpuRequest) cpuRequestCores = toCores(*c.current.cpuRequest);
  for (const stats::Sample& s : aggregateSamples(podSamples(c), aggregation)) {
    stats.add(s);
    if (vpa) vpa->add(s.time, s.cpuCores, s.memoryBytes, cpuRequestCores);
  }
  for (const auto& k : c.oomKills) stats.addOomKill(k.time, k.memoryAtKill);
  report::ContainerReport out{
      .name = name, .current = c.current, .dataPoints = std::int64_t(stats.sampleCount())};
  for (const auto& strategy : strategies) {
    const recommend::StrategyInput input{.stats = stats,
                                         .now = request.at,
                                         .current = c.current,
                                         .policy = request.policy.spec,
                                         .containersInPod = containersInPod,
                                         .vpa = vpa ? &*vpa : nullptr};
    out.results.push_back({std::string(strategy->name()), strategy->recommend(input)});
  }
  return out;
}

}  // namespace

Result<stats::StatsConfig> statsConfig(const ScanRequest& request) {
  // A scan reads exactly the sketches' history: whole days only.
  if (stats::historyCovering(request.history) != request.history) {
    return fail(ErrorCode::kOutOfRange, "must be a whole number of days between 1 and 62",
                "history");
  }
  return recommend::statsConfigFor(request.policy.spec, request.history);
}

Result<ScanData> fetchScanData(metrics::MetricsSource& source, const ScanRequest& request,
                               const ProgressFn& progress) {
  const metrics::Range range{request.at - request.history, request.at, request.step};
  const metrics::Scope& scope = request.scope;
  ScanData data;
  // Runs one query with a progress line before and a count after.
  const auto run = [&](const std::string& what, auto& into, auto query) -> Result<void> {
    progress(fmt::format("querying {} in {}…", what, scopeText(scope)));
    auto result = query();
    if (!result) return std::unexpected(result.error());
    into = std::move(*result);
    progress(fmt::format("{}: {} found", what, into.size()));
    return {};
  };
  Result<void> ok = run("cpu usage", data.cpu, [&] { return source.cpuUsage(scope, range); });
  if (ok)
    ok = run("cpu pressure", data.psi, [&] { return source.cpuPressureWaiting(scope, range); });
  if (ok)
    ok = run("memory working set", data.memory,
             [&] { return source.memoryWorkingSet(scope, range); });
  if (ok) ok = run("oom kills", data.oomKills, [&] { return source.oomKills(scope, range); });
  if (ok)
    ok = run("resources", data.resources, [&] { return source.resources(scope, request.at); });
  if (ok) ok = run("pod owners", data.owners, [&] { return source.podOwners(scope, request.at); });
  if (!ok) return std::unexpected(ok.error());
  return data;
}

bool matchesSelector(const WorkloadRef& workload, std::string_view selector) {
  if (selector.empty()) return true;
  const std::string text(selector);
  const auto slash = text.find('/');
  if (slash == std::string::npos) return fnmatch(text.c_str(), workload.name.c_str(), 0) == 0;
  const std::string kind = text.substr(0, slash);
  return strcasecmp(kind.c_str(), workload.kind.c_str()) == 0 &&
         fnmatch(text.substr(slash + 1).c_str(), workload.name.c_str(), 0) == 0;
}

Result<report::RecommendReport> buildReport(const ScanData& data, const ScanRequest& request) {
  auto config = statsConfig(request);
  if (!config) return std::unexpected(config.error());
  std::vector<recommend::StrategyPtr> strategies;
  for (const std::string& name : request.strategies) {
    auto s = recommend::makeStrategy(name);
    if (!s) return std::unexpected(s.error());
    strategies.push_back(std::move(*s));
  }
  report::RecommendReport out{.source = request.source,
                              .at = request.at,
                              .history = request.history,
                              .step = request.step,
                              .strategies = request.strategies};
  for (const auto& [ref, g] : group(data, request)) {
    std::size_t containersInPod = 1;
    for (const auto& [pod, names] : g.podContainers) {
      containersInPod = std::max(containersInPod, names.size());
    }
    report::WorkloadReport w{.ns = ref.ns,
                             .kind = ref.kind,
                             .name = ref.name,
                             .replicas = static_cast<int>(g.podsWithResources.size())};
    for (const auto& [name, c] : g.containers) {
      w.containers.push_back(containerReport(name, c, static_cast<int>(containersInPod), *config,
                                             strategies, request));
    }
    out.workloads.push_back(std::move(w));
  }
  return out;
}

Result<report::RecommendReport> scanRecommendations(metrics::MetricsSource& source,
                                                    const ScanRequest& request,
                                                    const ProgressFn& progress) {
  auto data = fetchScanData(source, request, progress);
  if (!data) return std::unexpected(data.error());
  auto report = buildReport(*data, request);
  if (report) {
    std::size_t containers = 0;
    for (const auto& w : report->workloads) containers += w.containers.size();
    progress(fmt::format("{} workloads, {} containers", report->workloads.size(), containers));
  }
  return report;
}

}  // namespace attune::cli
