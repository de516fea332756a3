#include "scenario_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include "core/quantity.h"
#include "safety/resize_record.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::controller::testing {

std::string scenarioYaml(std::string_view workloads, std::string_view policies,
                         std::string_view extra, std::string_view nodePool) {
  std::string out =
      "apiVersion: sim.attune.io/v1alpha1\nkind: Scenario\nmetadata: {name: controller-test}\n"
      "spec:\n  seed: 1\n  start: \"";
  out += kStart;
  out += "\"\n  duration: 48h\n  tick: 60s\n  nodePools: [";
  out += nodePool;
  out += "]\n  namespaces: [apps]\n  workloads:\n";
  out += workloads;
  out += "  policies:\n";
  out += policies;
  out += extra;
  return out;
}

std::string workloadYaml(const WorkloadYaml& w) {
  std::string out = "  - kind: Deployment\n    namespace: apps\n    name: " + w.name +
                    "\n    replicas: " + std::to_string(w.replicas) + "\n" + w.workloadExtra +
                    "    containers:\n    - name: app\n";
  if (!w.requests.empty()) out += "      requests: " + w.requests + "\n";
  if (!w.limits.empty()) out += "      limits: " + w.limits + "\n";
  out += "      model: " + w.model + "\n" + w.containerExtra;
  return out;
}

std::string policyYaml(const PolicyYaml& p) {
  const auto fields = [](const std::string& more) { return more.empty() ? "" : ", " + more; };
  return "  - apiVersion: attune.io/v1alpha1\n    kind: AttunePolicy\n    metadata: {name: " +
         p.name +
         ", namespace: apps}\n    spec:\n      targetRef: {kind: Deployment, name: " + p.target +
         "}\n      metricsSource: {historyWindow: " + p.historyWindow +
         ", minimumDataPoints: " + std::to_string(p.minimumDataPoints) +
         ", queryStep: 1m}\n      cpu: {overhead: \"0\", maxChangePercent: 100, "
         "controlledValues: " +
         p.controlledValues + fields(p.cpu) +
         "}\n      memory: {overhead: \"0\", allowDecrease: true, maxChangePercent: 100, "
         "controlledValues: " +
         p.controlledValues + fields(p.memory) + "}\n      updateStrategy: " + p.updateStrategy +
         "\n" + p.extra;
}

std::string inNamespace(std::string yaml, const std::string& ns) {
  for (std::size_t at = yaml.find("namespace: apps"); at != std::string::npos;
       at = yaml.find("namespace: apps", at)) {
    yaml.replace(at, 15, "namespace: " + ns);
  }
  return yaml;
}

const std::vector<std::string> kFourNamespaces{"team-a", "team-b", "team-c", "team-d"};

std::string overRequestingWorkloads(int count, int replicas) {
  std::string workloads;
  std::string policies;
  for (int i = 0; i < count; ++i) {
    const std::string name = "web-" + std::to_string(i);
    workloads += workloadYaml({.name = name, .replicas = replicas});
    policies += policyYaml({.name = name, .target = name});
  }
  return scenarioYaml(workloads, policies);
}

std::string fourNamespaces(int replicas) {
  std::string workloads;
  std::string policies;
  for (const std::string& ns : kFourNamespaces) {
    workloads += inNamespace(workloadYaml({.name = "web", .replicas = replicas}), ns);
    policies += inNamespace(policyYaml({.name = "web", .target = "web"}), ns);
  }
  std::string yaml = scenarioYaml(workloads, policies);
  yaml.replace(yaml.find("namespaces: [apps]"), 18, "namespaces: [team-a, team-b, team-c, team-d]");
  return yaml;
}

ScenarioHarness::ScenarioHarness(std::string_view yaml, HarnessOptions options)
    : options_(std::move(options)) {
  sim::DecodedScenario decoded = sim::decodeScenario(yaml);
  if (!decoded.scenario) {
    std::string errors;
    for (const auto& e : decoded.errors) errors += sim::formatDiagnostic("scenario", e) + "\n";
    ADD_FAILURE() << "the scenario does not decode:\n" << errors;
    return;
  }
  if (options_.tweak) options_.tweak(*decoded.scenario);
  auto sim = sim::Simulation::create(*decoded.scenario);
  if (!sim) {
    ADD_FAILURE() << "the simulation cannot be built: " << sim.error().toString();
    return;
  }
  sim_ = std::move(*sim);
  if (options_.wrapApi) controllerApi_ = options_.wrapApi(sim_->api());
  makeController(sim_->metrics());
}

ScenarioHarness::~ScenarioHarness() = default;

void ScenarioHarness::makeController(metrics::MetricsSource& metrics) {
  controller_.reset();
  api::ClusterApi& api = controllerApi_ ? *controllerApi_ : sim_->api();
  ControllerOptions options = options_.controller;
  options.resyncPeriod = options_.reconcileInterval;
  controller_ = std::make_unique<Controller>(api, metrics, sim_->clock(), registry_, options);
  controller_->setObserver([this](const ActionRecord& a) { actions_.push_back(a); });
}

void ScenarioHarness::restartController(metrics::MetricsSource* metrics) {
  makeController(metrics != nullptr ? *metrics : sim_->metrics());
}

void ScenarioHarness::run(Duration d) {
  const Time end = sim_->clock().now() + d;
  while (sim_->clock().now() + sim_->scenario().tick <= end) {
    auto stepped = sim_->step();
    ASSERT_TRUE(stepped.has_value()) << stepped.error().toString();
    // The controller's work queue on the simulated clock: whatever is due by now.
    auto reconciled = controller_->reconcileDue();
    if (!reconciled && options_.tolerateReconcileErrors) {
      ++reconcileErrors_;
    } else {
      ASSERT_TRUE(reconciled.has_value()) << reconciled.error().toString();
    }
  }
}

bool ScenarioHarness::runUntil(const std::function<bool()>& done, Duration limit) {
  const Time end = sim_->clock().now() + limit;
  while (sim_->clock().now() < end) {
    run(sim_->scenario().tick);
    if (::testing::Test::HasFatalFailure()) return false;
    if (done()) return true;
  }
  return false;
}

std::vector<api::Pod> ScenarioHarness::pods(std::string_view ns, std::string_view workload,
                                            bool all) {
  std::vector<api::Pod> out;
  for (api::Pod& p : sim_->state().pods.list(api::ListOptions{.namespace_ = std::string(ns)})) {
    auto it = p.metadata.labels.find("app.kubernetes.io/name");
    if (it == p.metadata.labels.end() || it->second != workload) continue;
    if (!all && (p.status.phase != "Running" || p.metadata.deletionTimestamp)) continue;
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(),
            [](const api::Pod& a, const api::Pod& b) { return a.metadata.name < b.metadata.name; });
  return out;
}

api::Pod ScenarioHarness::pod(std::string_view ns, std::string_view workload) {
  std::vector<api::Pod> found = pods(ns, workload);
  EXPECT_EQ(found.size(), 1u) << "running pods of " << ns << "/" << workload;
  return found.empty() ? api::Pod{} : found.front();
}

api::AttunePolicy ScenarioHarness::policy(std::string_view ns, std::string_view name) {
  auto p = sim_->api().getAttunePolicy(ns, name);
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().toString());
  return p.value_or(api::AttunePolicy{});
}

std::vector<api::Event> ScenarioHarness::events(std::string_view reason) {
  auto list = sim_->api().listEvents(api::ListOptions{});
  EXPECT_TRUE(list.has_value());
  std::vector<api::Event> out;
  if (!list) return out;
  for (api::Event& e : list->items) {
    if (reason.empty() || e.reason == reason) out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const api::Event& a, const api::Event& b) {
    return a.firstTimestamp < b.firstTimestamp;
  });
  return out;
}

std::optional<double> ScenarioHarness::metric(std::string_view series) const {
  std::istringstream lines(registry_.render());
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() <= series.size() || line.compare(0, series.size(), series) != 0 ||
        line[series.size()] != ' ') {
      continue;
    }
    return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

std::vector<ActionRecord> ScenarioHarness::actions(ActionRecord::Kind kind) const {
  std::vector<ActionRecord> out;
  for (const ActionRecord& a : actions_) {
    if (a.kind == kind) out.push_back(a);
  }
  return out;
}

api::ResourceValues specResources(const api::Pod& pod, std::string_view container) {
  const api::Container* c = pod.spec.findContainer(container);
  EXPECT_NE(c, nullptr) << "container " << container << " of " << pod.metadata.name;
  return c == nullptr ? api::ResourceValues{} : safety::resourceValuesOf(c->resources);
}

api::ResourceValues statusResources(const api::Pod& pod, std::string_view container) {
  const api::ContainerStatus* s = pod.status.findContainerStatus(container);
  if (s == nullptr || !s->resources) return {};
  return safety::resourceValuesOf(*s->resources);
}

int restartCount(const api::Pod& pod, std::string_view container) {
  const api::ContainerStatus* s = pod.status.findContainerStatus(container);
  return s == nullptr ? -1 : static_cast<int>(s->restartCount);
}

bool hasAnnotationPrefix(const api::ObjectMeta& meta, std::string_view prefix) {
  return std::any_of(meta.annotations.begin(), meta.annotations.end(),
                     [&](const auto& kv) { return kv.first.starts_with(prefix); });
}

const api::Condition* condition(const api::AttunePolicy& policy, std::string_view type) {
  return api::findCondition(policy.status.conditions, type);
}

std::vector<api::ResizeHistoryEntry> history(const api::AttunePolicy& policy,
                                             std::optional<api::ResizeResult> result,
                                             std::string_view reason) {
  std::vector<api::ResizeHistoryEntry> out;
  for (const auto& e : policy.status.resizeHistory) {
    if (result && e.result != result) continue;
    if (!reason.empty() && e.reason != reason) continue;
    out.push_back(e);
  }
  return out;
}

std::string describe(const api::ResourceValues& v) {
  std::string out;
  out += "cpu " + (v.cpuRequest ? formatCpu(*v.cpuRequest) : std::string("-"));
  out += "/" + (v.cpuLimit ? formatCpu(*v.cpuLimit) : std::string("-"));
  out += " memory " + (v.memoryRequest ? formatMemory(*v.memoryRequest) : std::string("-"));
  out += "/" + (v.memoryLimit ? formatMemory(*v.memoryLimit) : std::string("-"));
  return out;
}

}  // namespace attune::controller::testing
