#include "controller/node_load_monitor.h"

#include <fmt/format.h>
#include <map>

#include "safety/node_load.h"

namespace attune::controller {

namespace {

using Change = safety::NodeLoadDecision::Change;

// The latest node_load1 sample of each node in the range.
std::map<std::string, double, std::less<>> latestLoads(
    const std::vector<metrics::NodeSeries>& series) {
  std::map<std::string, double, std::less<>> latest;
  for (const auto& s : series) {
    if (!s.points.empty()) latest[s.node] = s.points.back().value;
  }
  return latest;
}

double capacityCores(const api::Node& node) {
  const auto& cpu = node.status.capacity.cpu;
  return cpu ? toCores(cpu->toMillicores()) : 0.0;
}

}  // namespace

NodeLoadMonitor::NodeLoadMonitor(api::ClusterApi& api, metrics::MetricsSource& metrics,
                                 EventRecorder& events, metrics::Registry& registry, Clock& clock,
                                 NodeLoadMonitorOptions options)
    : api_(api),
      metrics_(metrics),
      events_(events),
      clock_(clock),
      options_(options),
      loadRatio_(registry.gauge("attune_node_load_ratio",
                                "node_load1 divided by the node's CPU cores, as last read.",
                                {"node"})),
      taintChanges_(registry.counter(
          "attune_node_taint_changes_total",
          "Overloaded-node taints added (taint) and removed (untaint) by the node-load monitor.",
          {"change"})),
      loadUnknown_(registry.gauge("attune_node_load_unknown",
                                  "1 while a node has no load sample or capacity (left as it is).",
                                  {"node"})) {}

std::optional<Result<NodeLoadRunSummary>> NodeLoadMonitor::runDue() {
  const Time now = clock_.now();
  if (nextRun_ && now < *nextRun_) return std::nullopt;
  nextRun_ = now + options_.interval;
  return run();
}

Result<NodeLoadRunSummary> NodeLoadMonitor::run() {
  const Time now = clock_.now();
  auto nodes = api_.listNodes({});
  if (!nodes) return std::unexpected(nodes.error());
  auto series = metrics_.nodeLoad(metrics::Range{now - options_.lookback, now, options_.lookback});
  if (!series) return std::unexpected(series.error());
  const auto loads = latestLoads(*series);

  NodeLoadRunSummary summary;
  for (const auto& node : nodes->items) {
    ++summary.nodes;
    const std::string& name = node.metadata.name;
    safety::NodeLoadReading reading{.node = name,
                                    .cpuCores = capacityCores(node),
                                    .tainted = safety::hasOverloadedTaint(node.spec.taints)};
    if (auto it = loads.find(name); it != loads.end()) reading.load1 = it->second;
    const auto decision = safety::decideNodeTaint(reading, options_.threshold);
    if (!decision.load) {
      ++summary.unknown;
      loadUnknown_.set({name}, 1);
      continue;
    }
    loadUnknown_.remove({name});
    loadRatio_.set({name}, *decision.load);
    if (decision.change == Change::kNone) continue;

    const bool taint = decision.change == Change::kTaint;
    const auto taints = safety::withOverloadedTaint(node.spec.taints, taint);
    if (auto written = api_.updateNodeTaints(name, taints, node.metadata.resourceVersion);
        !written) {
      ++summary.failed;
      continue;
    }
    ++(taint ? summary.tainted : summary.untainted);
    taintChanges_.inc({taint ? "taint" : "untaint"});
    const std::string message =
        taint ? fmt::format("load {:.2f} per CPU core is above {:.2f}: tainted {}:NoSchedule",
                            *decision.load, options_.threshold, safety::kOverloadedTaintKey)
              : fmt::format("load {:.2f} per CPU core is below {:.2f}: removed taint {}",
                            *decision.load, options_.threshold, safety::kOverloadedTaintKey);
    // The Event is best effort: the taint is what matters, and it is written.
    (void)events_.record(referenceTo("v1", "Node", node.metadata), taint ? "Warning" : "Normal",
                         taint ? "NodeOverloaded" : "NodeLoadRecovered", message);
  }
  return summary;
}

}  // namespace attune::controller
