#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/scenario/scenario_codec.h"
#include "support/shared_dir.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

// A small valid scenario; every test starts from it.
constexpr const char* kGood = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata:
  name: small
spec:
  seed: 7
  start: "2026-02-02T00:00:00Z"
  duration: 6h
  tick: 30s
  kubelet:
    restartBackoff: {reduceDefaultDecay: true}
    notReadyAboveThrottleRatio: 0.8
    evictionMemoryAvailable: 200Mi
  nodePools:
  - name: general
    count: 3
    cpu: "4"
    memory: 16Gi
    allocatable: {cpu: 3800m, memory: 15Gi}
    labels: {zone: a}
    taints: [{key: dedicated, value: x, effect: NoSchedule}]
    kubelet: {restartBackoff: {perNodeMaxEnabled: true, maxSeconds: 30}}
  namespaces: [shop]
  workloads:
  - kind: Deployment
    namespace: shop
    name: web
    replicas: 2
    labels: {tier: web}
    tolerations: [{operator: Exists}]
    containers:
    - name: app
      requests: {cpu: 250m, memory: 256Mi}
      limits: {cpu: "1", memory: 512Mi}
      resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]
      model: {kind: jvm, cpuCores: 300m, heapBytes: 400Mi, floorBytes: 100Mi,
              gcPeriodSeconds: 10m}
  - kind: CronJob
    namespace: shop
    name: report
    schedule: "@hourly"
    containers:
    - name: job
      model: {kind: batch, cpuCores: 1, memoryBytes: 1e8, durationSeconds: 300}
  - trace: {path: traces/x.csv, format: attune-csv, namespace: replay, limit: 5}
  limitRanges:
  - namespace: shop
    name: bounds
    limits: [{type: Container, max: {cpu: "2"}}]
  resourceQuotas:
  - namespace: shop
    name: quota
    hard: {requests.cpu: "10", pods: "20"}
  hpas:
  - namespace: shop
    name: web
    scaleTargetRef: {kind: Deployment, name: web}
    maxReplicas: 4
    metrics:
    - type: ContainerResource
      containerResource: {name: cpu, container: app, target: {type: Utilization, averageUtilization: 60}}
  policies:
  - apiVersion: attune.io/v1alpha1
    kind: AttunePolicy
    metadata: {name: web, namespace: shop}
    spec:
      targetRef: {kind: Deployment, name: web}
      updateStrategy: {type: Recommend}
)";

// kGood with the first occurrence of `from` replaced by `to` (which must exist).
std::string edit(std::string_view from, std::string_view to) {
  std::string text = kGood;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string describe(const DecodedScenario& d) {
  std::string out;
  for (const auto& e : d.errors) out += formatDiagnostic("s.yaml", e) + "\n";
  return out;
}

// The single error of decoding `yaml`; fails the test when there is not exactly one.
ScenarioDiagnostic onlyError(const std::string& yaml) {
  DecodedScenario d = decodeScenario(yaml);
  EXPECT_EQ(d.errors.size(), 1u) << describe(d);
  EXPECT_FALSE(d.scenario.has_value());
  return d.errors.empty() ? ScenarioDiagnostic{} : d.errors.front();
}

int lineOf(std::string_view text, std::string_view needle) {
  const auto at = std::string(text).find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 1;
}

TEST(ScenarioDecodeTest, DecodesEveryPartOfAGoodFile) {
  DecodedScenario d = decodeScenario(kGood, "/base/dir");
  ASSERT_TRUE(d.scenario.has_value()) << describe(d);
  const Scenario& s = *d.scenario;
  EXPECT_EQ(s.name, "small");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(formatRfc3339(s.start), "2026-02-02T00:00:00Z");
  EXPECT_EQ(s.duration, 6h);
  EXPECT_EQ(s.tick, 30s);
  EXPECT_TRUE(s.kubelet.restartBackoff.reduceDefaultDecay);
  EXPECT_EQ(s.kubelet.notReadyAboveThrottleRatio, 0.8);
  EXPECT_EQ(s.kubelet.evictionMemoryAvailable, Bytes(200LL << 20));

  ASSERT_EQ(s.nodePools.size(), 1u);
  const NodePool& pool = s.nodePools[0];
  EXPECT_EQ(pool.count, 3);
  EXPECT_EQ(pool.cpu, Millicores(4000));
  EXPECT_EQ(pool.allocatableCpu, Millicores(3800));
  EXPECT_EQ(pool.allocatableMemory, Bytes(15LL << 30));
  EXPECT_EQ(pool.taints.at(0).effect, "NoSchedule");
  ASSERT_TRUE(pool.restartBackoff.has_value());
  EXPECT_EQ(pool.restartBackoff->maxSeconds, 30);

  ASSERT_EQ(s.workloads.size(), 2u);
  const WorkloadScenario& web = s.workloads[0];
  EXPECT_EQ(web.kind, api::WorkloadKind::kDeployment);
  EXPECT_EQ(web.replicas, 2);
  EXPECT_EQ(web.fieldPath, "spec.workloads[0]");
  const ContainerScenario& app = web.containers.at(0);
  EXPECT_EQ(app.resources.requests.cpu->toMillicores(), Millicores(250));
  EXPECT_EQ(app.resizePolicy.at(0).restartPolicy, "RestartContainer");
  // Quantities and durations become the factory's plain units.
  EXPECT_EQ(app.model.kind, "jvm");
  EXPECT_DOUBLE_EQ(app.model.params.at("cpuCores"), 0.3);
  EXPECT_DOUBLE_EQ(app.model.params.at("heapBytes"), 400.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(app.model.params.at("gcPeriodSeconds"), 600);
  const WorkloadScenario& cron = s.workloads[1];
  EXPECT_EQ(cron.kind, api::WorkloadKind::kCronJob);
  EXPECT_EQ(cron.schedule, "@hourly");
  EXPECT_DOUBLE_EQ(cron.containers.at(0).model.params.at("memoryBytes"), 1e8);

  ASSERT_EQ(s.traces.size(), 1u);
  EXPECT_EQ(s.traces[0].path, std::filesystem::path("/base/dir/traces/x.csv"));
  EXPECT_EQ(s.traces[0].format, "attune-csv");
  EXPECT_EQ(s.traces[0].limit, 5);
  EXPECT_EQ(s.traces[0].fieldPath, "spec.workloads[2].trace");

  EXPECT_EQ(s.limitRanges.at(0).limits.at(0).max.cpu->toMillicores(), Millicores(2000));
  EXPECT_EQ(s.resourceQuotas.at(0).hard.find("pods")->toString(), "20");
  EXPECT_EQ(s.hpas.at(0).spec.metrics.at(0).containerResource->container, "app");
  EXPECT_EQ(s.hpas.at(0).spec.scaleTargetRef.apiVersion, "apps/v1");
  ASSERT_EQ(s.policies.size(), 1u);
  EXPECT_EQ(s.policies[0].metadata.name, "web");
  // Positions are kept for errors found later.
  EXPECT_EQ(s.sources.find("spec.workloads[1].schedule").line, lineOf(kGood, "schedule:"));
}

TEST(ScenarioDecodeTest, UnknownFieldIsAnErrorWithPathAndLine) {
  const std::string yaml = edit("    replicas: 2\n", "    replicas: 2\n    replica: 3\n");
  ScenarioDiagnostic e = onlyError(yaml);
  EXPECT_EQ(e.error.field, "spec.workloads[0].replica");
  EXPECT_EQ(e.line, lineOf(yaml, "replica: 3"));
  EXPECT_NE(e.error.message.find("unknown field"), std::string::npos);
}

TEST(ScenarioDecodeTest, WrongTypeNamesPathAndLine) {
  const std::string yaml = edit("count: 3", "count: three");
  ScenarioDiagnostic e = onlyError(yaml);
  EXPECT_EQ(e.error.field, "spec.nodePools[0].count");
  EXPECT_EQ(e.line, lineOf(yaml, "count: three"));
  EXPECT_NE(e.error.message.find("must be an integer"), std::string::npos) << e.error.message;
}

TEST(ScenarioDecodeTest, MalformedQuantityAndDuration) {
  ScenarioDiagnostic q = onlyError(edit("memory: 16Gi", "memory: 16GiB"));
  EXPECT_EQ(q.error.field, "spec.nodePools[0].memory");
  ScenarioDiagnostic d = onlyError(edit("tick: 30s", "tick: 30"));
  EXPECT_EQ(d.error.field, "spec.tick");
  EXPECT_NE(d.error.message.find("duration"), std::string::npos) << d.error.message;
}

TEST(ScenarioDecodeTest, MissingRequiredField) {
  const std::string yaml = edit("    - name: app\n", "    - image: x\n");
  ScenarioDiagnostic e = onlyError(yaml);
  EXPECT_EQ(e.error.field, "spec.workloads[0].containers[0].name");
  EXPECT_EQ(e.error.message, "required");
  EXPECT_EQ(e.line, lineOf(yaml, "- image: x"));
}

TEST(ScenarioDecodeTest, InvalidModelParameterPointsAtTheParameter) {
  const std::string unknown = edit("gcPeriodSeconds: 10m", "gcPeriod: 10m");
  ScenarioDiagnostic e = onlyError(unknown);
  EXPECT_EQ(e.error.field, "spec.workloads[0].containers[0].model.gcPeriod");
  EXPECT_EQ(e.line, lineOf(unknown, "gcPeriod: 10m"));

  ScenarioDiagnostic cross = onlyError(edit("floorBytes: 100Mi", "floorBytes: 500Mi"));
  EXPECT_EQ(cross.error.field, "spec.workloads[0].containers[0].model.floorBytes");
  EXPECT_NE(cross.error.message.find("< heapBytes"), std::string::npos);

  ScenarioDiagnostic kind = onlyError(edit("kind: jvm", "kind: sine"));
  EXPECT_EQ(kind.error.field, "spec.workloads[0].containers[0].model.kind");

  ScenarioDiagnostic missing = onlyError(edit("durationSeconds: 300", "noise: 0.1"));
  EXPECT_EQ(missing.error.field, "spec.workloads[1].containers[0].model.durationSeconds");
  EXPECT_NE(missing.error.message.find("required"), std::string::npos);
}

TEST(ScenarioDecodeTest, CrossFieldRules) {
  EXPECT_EQ(onlyError(edit("schedule: \"@hourly\"", "schedule: \"61 * * * *\"")).error.field,
            "spec.workloads[1].schedule");
  EXPECT_EQ(onlyError(edit("name: report", "name: web\n    replicas: 1")).error.field,
            "spec.workloads[1].replicas");
  EXPECT_EQ(onlyError(edit("scaleTargetRef: {kind: Deployment, name: web}",
                           "scaleTargetRef: {kind: Deployment, name: nope}"))
                .error.field,
            "spec.hpas[0].scaleTargetRef");
  EXPECT_EQ(
      onlyError(edit("limits: {cpu: \"1\", memory: 512Mi}", "limits: {cpu: 100m}")).error.field,
      "spec.workloads[0].containers[0].requests.cpu");
  EXPECT_EQ(onlyError(edit("tick: 30s", "tick: 7h")).error.field, "spec.tick");
  EXPECT_EQ(onlyError(edit("name: general", "name: General")).error.field,
            "spec.nodePools[0].name");
}

// kGood with `budgets` (YAML list items, indented by two) as spec.podDisruptionBudgets.
std::string withBudgets(std::string_view budgets) {
  return edit("  policies:\n",
              "  podDisruptionBudgets:\n" + std::string(budgets) + "  policies:\n");
}

TEST(ScenarioDecodeTest, PodDisruptionBudgetsAreReadAsTheApiObjects) {
  DecodedScenario d = decodeScenario(withBudgets(
      "  - {namespace: shop, name: web, minAvailable: 50%, selector: {matchLabels: {app: web}},\n"
      "     unhealthyPodEvictionPolicy: AlwaysAllow}\n"
      "  - name: jobs\n"
      "    maxUnavailable: 1\n"
      "    selector:\n"
      "      matchExpressions: [{key: tier, operator: In, values: [batch]}]\n"));
  ASSERT_TRUE(d.scenario) << describe(d);
  const auto& budgets = d.scenario->podDisruptionBudgets;
  ASSERT_EQ(budgets.size(), 2u);
  EXPECT_EQ(budgets[0].spec.minAvailable, api::IntOrString::ofString("50%"));
  EXPECT_EQ(budgets[0].spec.selector->matchLabels.at("app"), "web");
  EXPECT_EQ(budgets[0].spec.unhealthyPodEvictionPolicy, "AlwaysAllow");
  EXPECT_EQ(budgets[1].metadata.namespace_, "default");
  EXPECT_EQ(budgets[1].spec.maxUnavailable, api::IntOrString::ofInt(1));
  EXPECT_EQ(budgets[1].spec.selector->matchExpressions.at(0).operator_, "In");
}

TEST(ScenarioDecodeTest, PodDisruptionBudgetRulesOfPolicyV1) {
  EXPECT_EQ(
      onlyError(withBudgets("  - {name: a, minAvailable: 1, maxUnavailable: 1, selector: {}}\n"))
          .error.field,
      "spec.podDisruptionBudgets[0].maxUnavailable");
  EXPECT_EQ(onlyError(withBudgets("  - {name: a, minAvailable: 150%, selector: {}}\n")).error.field,
            "spec.podDisruptionBudgets[0].minAvailable");
  EXPECT_EQ(onlyError(withBudgets("  - {name: a, maxUnavailable: -1, selector: {}}\n")).error.field,
            "spec.podDisruptionBudgets[0].maxUnavailable");
  EXPECT_EQ(onlyError(withBudgets("  - {name: a, minAvailable: x%, selector: {}}\n")).error.field,
            "spec.podDisruptionBudgets[0].minAvailable");
  EXPECT_EQ(onlyError(withBudgets("  - {name: a, minAvailable: 1}\n")).error.field,
            "spec.podDisruptionBudgets[0].selector");
  EXPECT_EQ(onlyError(withBudgets("  - {name: a, minAvailable: 1, selector: {}, "
                                  "unhealthyPodEvictionPolicy: Never}\n"))
                .error.field,
            "spec.podDisruptionBudgets[0].unhealthyPodEvictionPolicy");
}

// kGood's HPA with `behavior` (lines indented under the HPA).
std::string withBehavior(std::string_view behavior) {
  return edit("averageUtilization: 60}}\n",
              "averageUtilization: 60}}\n    behavior:\n" + std::string(behavior));
}

TEST(ScenarioDecodeTest, HpaBehaviorDecodes) {
  const DecodedScenario d =
      decodeScenario(withBehavior("      scaleUp:\n"
                                  "        stabilizationWindowSeconds: 60\n"
                                  "        selectPolicy: Min\n"
                                  "        policies: [{type: Pods, value: 2, periodSeconds: 30}, "
                                  "{type: Percent, value: 50, periodSeconds: 60}]\n"
                                  "        tolerance: \"0.05\"\n"
                                  "      scaleDown: {selectPolicy: Disabled}\n"));
  ASSERT_TRUE(d.scenario.has_value()) << describe(d);
  const auto& behavior = d.scenario->hpas.at(0).spec.behavior;
  ASSERT_TRUE(behavior && behavior->scaleUp && behavior->scaleDown);
  const api::HpaScalingRules& up = *behavior->scaleUp;
  EXPECT_EQ(up.stabilizationWindowSeconds, 60);
  EXPECT_EQ(up.selectPolicy, "Min");
  ASSERT_EQ(up.policies.size(), 2u);
  EXPECT_EQ(up.policies[0], (api::HpaScalingPolicy{"Pods", 2, 30}));
  EXPECT_EQ(up.policies[1], (api::HpaScalingPolicy{"Percent", 50, 60}));
  ASSERT_TRUE(up.tolerance.has_value());
  EXPECT_EQ(up.tolerance->nanos(), 50'000'000);
  EXPECT_EQ(behavior->scaleDown->selectPolicy, "Disabled");
  EXPECT_FALSE(behavior->scaleDown->stabilizationWindowSeconds.has_value());
}

TEST(ScenarioDecodeTest, HpaBehaviorErrorsNameTheirField) {
  const std::string prefix = "spec.hpas[0].behavior.";
  EXPECT_EQ(
      onlyError(withBehavior("      scaleDown: {stabilizationWindowSeconds: 4000}\n")).error.field,
      prefix + "scaleDown.stabilizationWindowSeconds");
  EXPECT_EQ(onlyError(withBehavior("      scaleUp: {selectPolicy: Largest}\n")).error.field,
            prefix + "scaleUp.selectPolicy");
  EXPECT_EQ(onlyError(withBehavior("      scaleUp: {policies: [{type: Nodes, value: 1, "
                                   "periodSeconds: 15}]}\n"))
                .error.field,
            prefix + "scaleUp.policies[0].type");
  EXPECT_EQ(onlyError(withBehavior("      scaleUp: {policies: [{type: Pods, value: 0, "
                                   "periodSeconds: 15}]}\n"))
                .error.field,
            prefix + "scaleUp.policies[0].value");
  EXPECT_EQ(onlyError(withBehavior("      scaleDown: {policies: [{type: Percent, value: 10, "
                                   "periodSeconds: 1801}]}\n"))
                .error.field,
            prefix + "scaleDown.policies[0].periodSeconds");
  EXPECT_EQ(onlyError(withBehavior("      scaleDown: {policies: [{type: Percent, value: 10}]}\n"))
                .error.field,
            prefix + "scaleDown.policies[0].periodSeconds");
  EXPECT_EQ(onlyError(withBehavior("      scaleUp: {tolerance: \"-0.1\"}\n")).error.field,
            prefix + "scaleUp.tolerance");
  EXPECT_EQ(onlyError(withBehavior("      scaleUp: {window: 10}\n")).error.field,
            prefix + "scaleUp.window");
}

TEST(ScenarioDecodeTest, DuplicateWorkloadIsReported) {
  std::string yaml = kGood;
  const std::string web =
      yaml.substr(yaml.find("  - kind: Deployment"),
                  yaml.find("  - kind: CronJob") - yaml.find("  - kind: Deployment"));
  yaml.insert(yaml.find("  - kind: CronJob"), web);
  ScenarioDiagnostic e = onlyError(yaml);
  EXPECT_EQ(e.error.field, "spec.workloads[1].name");
  EXPECT_NE(e.error.message.find("duplicate Deployment \"shop/web\""), std::string::npos);
}

TEST(ScenarioDecodeTest, PolicyErrorsKeepTheirPathUnderThePolicyAndAbsoluteLine) {
  const std::string yaml =
      edit("      updateStrategy: {type: Recommend}",
           "      updateStrategy: {type: Recommend}\n      cpu: {percentile: 101}");
  ScenarioDiagnostic e = onlyError(yaml);
  EXPECT_EQ(e.error.field, "spec.policies[0].spec.cpu.percentile");
  EXPECT_EQ(e.line, lineOf(yaml, "cpu: {percentile: 101}"));
}

TEST(ScenarioDecodeTest, ReportsAllErrorsInLineOrder) {
  std::string yaml = edit("count: 3", "count: -1");
  yaml.replace(yaml.find("tick: 30s"), 9, "tick: soon");
  yaml.replace(yaml.find("    replicas: 2"), 15, "    replicas: 2\n    colour: blue");
  DecodedScenario d = decodeScenario(yaml);
  ASSERT_EQ(d.errors.size(), 3u) << describe(d);
  EXPECT_EQ(d.errors[0].error.field, "spec.tick");
  EXPECT_EQ(d.errors[1].error.field, "spec.nodePools[0].count");
  EXPECT_EQ(d.errors[2].error.field, "spec.workloads[0].colour");
  EXPECT_LT(d.errors[0].line, d.errors[1].line);
  EXPECT_LT(d.errors[1].line, d.errors[2].line);
}

TEST(ScenarioDecodeTest, HeaderAndDocumentErrors) {
  EXPECT_EQ(onlyError(edit("kind: Scenario", "kind: Scenery")).error.field, "kind");
  ScenarioDiagnostic syntax = onlyError("spec: [1, 2\n");
  EXPECT_NE(syntax.error.message.find("invalid YAML"), std::string::npos);
  EXPECT_GT(syntax.line, 0);
  EXPECT_NE(onlyError("").error.message.find("empty"), std::string::npos);
  EXPECT_EQ(onlyError(std::string(kGood) + "---\na: 1\n").line,
            lineOf(std::string(kGood) + "---\na: 1\n", "a: 1"));
}

TEST(ScenarioDecodeTest, FormatsDiagnosticsAsFileLinePathMessage) {
  ScenarioDiagnostic d{Error{ErrorCode::kInvalidArgument, "must be positive", "spec.tick"}, 12, 3};
  EXPECT_EQ(formatDiagnostic("demo.yaml", d), "demo.yaml:12: spec.tick: must be positive");
  d.line = 0;
  d.error.field.clear();
  EXPECT_EQ(formatDiagnostic("demo.yaml", d), "demo.yaml: must be positive");
}

TEST(ScenarioDecodeTest, DefaultsWhenOptionalFieldsAreAbsent) {
  DecodedScenario d = decodeScenario(R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: tiny}
spec:
  nodePools: [{name: pool, cpu: "2", memory: 4Gi}]
)");
  ASSERT_TRUE(d.scenario.has_value()) << describe(d);
  EXPECT_EQ(d.scenario->seed, 1u);
  EXPECT_EQ(d.scenario->tick, 60s);
  EXPECT_EQ(d.scenario->duration, 24h);
  EXPECT_EQ(d.scenario->nodePools[0].count, 1);
  EXPECT_EQ(d.scenario->kubelet.startupDuration, 10s);
}

TEST(ScenarioDecodeTest, BuiltinDemoIsTheExampleFileAndDecodes) {
  const std::string file = testing::readFile(testing::sourceDir() / "examples/scenarios/demo.yaml");
  EXPECT_EQ(builtinDemoScenario(), file);
  DecodedScenario d = decodeBuiltinDemo();
  ASSERT_TRUE(d.scenario.has_value()) << describe(d);
  EXPECT_EQ(d.scenario->name, "demo");
  int nodes = 0;
  for (const NodePool& p : d.scenario->nodePools) nodes += p.count;
  EXPECT_EQ(nodes, 20);
  std::set<std::string> kinds;
  for (const WorkloadScenario& w : d.scenario->workloads) {
    for (const ContainerScenario& c : w.containers) kinds.insert(c.model.kind);
  }
  EXPECT_EQ(kinds,
            (std::set<std::string>{"steady", "diurnal", "bursty", "memory-leak", "jvm", "batch"}));
}

TEST(ScenarioDecodeTest, EveryExampleScenarioDecodes) {
  for (const auto& e :
       std::filesystem::directory_iterator(testing::sourceDir() / "examples/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    auto d = readScenarioFile(e.path());
    ASSERT_TRUE(d.has_value()) << e.path();
    EXPECT_TRUE(d->scenario.has_value()) << e.path() << "\n" << describe(*d);
  }
}

TEST(ScenarioDecodeTest, UnreadableFileIsNotFound) {
  auto d = readScenarioFile("/nonexistent/scenario.yaml");
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace attune::sim
