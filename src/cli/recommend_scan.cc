#include "cli/recommend_scan.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <strings.h>

#include <algorithm>
#include <map>
#include <set>

#include "api/policy/policy_defaults.h"
#include "recommend/strategy.h"
#include "usage/pod_aggregation.h"
#include "usage/usage_history.h"

namespace attune::cli {
namespace {

using api::WorkloadRef;
using metrics::ContainerId;

// What the report shows of a workload besides its usage: its pods and containers.
struct WorkloadLayout {
  std::set<std::string> podsWithResources;
  std::map<std::string, std::set<std::string>> podContainers;  // pod → container names
  std::map<std::string, api::ResourceValues> current;          // container → largest values
};

std::string scopeText(const metrics::Scope& scope) {
  if (scope.allNamespaces()) return "all namespaces";
  return fmt::format("namespace{} {}", scope.namespaces.size() == 1 ? "" : "s",
                     fmt::join(scope.namespaces, ", "));
}

// The progress line before a query (`found` unset) or after it.
std::string progressLine(std::string_view what, std::optional<std::size_t> found,
                         const metrics::Scope& scope) {
  if (!found) return fmt::format("querying {} in {}…", what, scopeText(scope));
  return fmt::format("{}: {} found", what, *found);
}

template <typename Amount>
void raiseTo(std::optional<Amount>& target, const std::optional<Amount>& v) {
  if (v && (!target || *target < *v)) target = v;
}

// The workload of a container's samples, as the report groups them: the pod's owner (the pod
// itself without one), nullopt when the scope or selector leaves it out or the policy excludes
// the container (spec.excludedContainers and, unless disabled, the known sidecars).
usage::WorkloadOf workloadsOf(const ScanData& data, const ScanRequest& request) {
  std::map<std::pair<std::string, std::string>, WorkloadRef> owners;
  for (const auto& o : data.owners) owners[{o.ns, o.pod}] = o.workload;
  return
      [owners = std::move(owners), &request](const ContainerId& id) -> std::optional<WorkloadRef> {
        auto it = owners.find({id.ns, id.pod});
        WorkloadRef w = it != owners.end() ? it->second : WorkloadRef{id.ns, "Pod", id.pod};
        if (!request.scope.contains(id.ns) || !matchesSelector(w, request.selector))
          return std::nullopt;
        if (api::isExcludedContainer(request.policy, id.container)) return std::nullopt;
        return w;
      };
}

// Every workload the data mentions (a series, an OOM kill or resources of one of its
// containers), with its pods, containers and current resources.
std::map<WorkloadRef, WorkloadLayout> layouts(const ScanData& data,
                                              const usage::WorkloadOf& workloadOf) {
  std::map<WorkloadRef, WorkloadLayout> out;
  const auto note = [&](const ContainerId& id) -> WorkloadLayout* {
    auto w = workloadOf(id);
    if (!w) return nullptr;
    WorkloadLayout& layout = out[*w];
    layout.podContainers[id.pod].insert(id.container);
    layout.current.try_emplace(id.container);
    return &layout;
  };
  for (const auto* all : {&data.usage.cpu, &data.usage.psi, &data.usage.memory}) {
    for (const auto& s : *all) note(s.id);
  }
  for (const auto& k : data.usage.oomKills) note(k.id);
  for (const auto& r : data.resources) {
    WorkloadLayout* layout = note(r.id);
    if (layout == nullptr) continue;
    layout->podsWithResources.insert(r.id.pod);
    api::ResourceValues& c = layout->current[r.id.container];
    raiseTo(c.cpuRequest, r.cpuRequest);
    raiseTo(c.cpuLimit, r.cpuLimit);
    raiseTo(c.memoryRequest, r.memoryRequest);
    raiseTo(c.memoryLimit, r.memoryLimit);
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
  return usage::statsConfigFor(request.policy.spec, request.history);
}

Result<ScanData> fetchScanData(metrics::MetricsSource& source, const ScanRequest& request,
                               const ProgressFn& progress) {
  const metrics::Scope& scope = request.scope;
  ScanData data{.range = usage::readRange(request.at - request.history, request.at, request.step),
                .usage = {},
                .resources = {},
                .owners = {}};
  const auto observe = [&](std::string_view what, std::optional<std::size_t> found) {
    progress(progressLine(what, found, scope));
  };
  auto reading = usage::readUsage(source, scope, data.range, observe);
  if (!reading) return std::unexpected(reading.error());
  data.usage = std::move(*reading);
  // Runs one query with a progress line before and a count after.
  const auto run = [&](std::string_view what, auto& into, auto query) -> Result<void> {
    observe(what, std::nullopt);
    auto result = query();
    if (!result) return std::unexpected(result.error());
    into = std::move(*result);
    observe(what, into.size());
    return {};
  };
  Result<void> ok =
      run("resources", data.resources, [&] { return source.resources(scope, request.at); });
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
  std::vector<const recommend::Strategy*> stateful;
  for (const std::string& name : request.strategies) {
    auto s = recommend::makeStrategy(name);
    if (!s) return std::unexpected(s.error());
    stateful.push_back(s->get());
    strategies.push_back(std::move(*s));
  }
  const usage::WorkloadOf workloadOf = workloadsOf(data, request);
  usage::UsageHistory history(
      *config,
      request.policy.spec.metricsSource.podAggregation.value_or(api::kDefaultPodAggregation),
      request.history, request.step, std::move(stateful));
  history.add(data.usage, data.range, workloadOf);
  const usage::ContainerUsage noUsage(*config);

  report::RecommendReport out{.source = request.source,
                              .at = request.at,
                              .history = request.history,
                              .step = request.step,
                              .strategies = request.strategies};
  for (const auto& [ref, layout] : layouts(data, workloadOf)) {
    std::size_t containersInPod = 1;
    for (const auto& [pod, names] : layout.podContainers) {
      containersInPod = std::max(containersInPod, names.size());
    }
    report::WorkloadReport w{.ns = ref.ns,
                             .kind = ref.kind,
                             .name = ref.name,
                             .replicas = static_cast<int>(layout.podsWithResources.size())};
    for (const auto& [name, current] : layout.current) {
      const usage::ContainerUsage* found = history.find(ref, name);
      const usage::ContainerUsage& usage = found != nullptr ? *found : noUsage;
      report::ContainerReport c{.name = name,
                                .current = current,
                                .dataPoints = std::int64_t(usage.stats().sampleCount())};
      for (const auto& strategy : strategies) {
        c.results.push_back(
            {std::string(strategy->name()),
             usage::recommendFor(*strategy, usage,
                                 {.now = request.at,
                                  .current = current,
                                  .policy = request.policy.spec,
                                  .containersInPod = static_cast<int>(containersInPod)})});
      }
      w.containers.push_back(std::move(c));
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
