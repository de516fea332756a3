#include "sim/engine/simulation.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/engine/scenario_builder.h"
#include "sim/scenario/scenario_codec.h"
#include "sim/telemetry/openmetrics.h"
#include "support/shared_dir.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

// A scenario document with one 8-core node pool and `workloads` (YAML list items indented by
// two spaces), 60 s ticks from 2026-01-05T00:00:00Z.
std::string scenarioYaml(const std::string& workloads, std::uint64_t seed = 1,
                         const std::string& extra = "") {
  return "apiVersion: sim.attune.io/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n"
         "  seed: " +
         std::to_string(seed) +
         "\n  start: \"2026-01-05T00:00:00Z\"\n  duration: 24h\n  tick: 60s\n"
         "  nodePools: [{name: node, count: 2, cpu: \"8\", memory: 32Gi}]\n" +
         extra + "  workloads:\n" + workloads;
}

Scenario decoded(const std::string& yaml, const std::filesystem::path& base = {}) {
  DecodedScenario d = decodeScenario(yaml, base);
  std::string errors;
  for (const auto& e : d.errors) errors += formatDiagnostic("t.yaml", e) + "\n";
  EXPECT_TRUE(d.scenario.has_value()) << errors;
  return d.scenario.value_or(Scenario{});
}

std::unique_ptr<Simulation> simulation(const Scenario& scenario) {
  auto sim = Simulation::create(scenario);
  EXPECT_TRUE(sim.has_value()) << (sim ? "" : sim.error().toString());
  return sim ? std::move(*sim) : nullptr;
}

const char* kMixed = R"(  - kind: Deployment
    namespace: shop
    name: web
    replicas: 3
    containers:
    - name: app
      requests: {cpu: 500m, memory: 512Mi}
      limits: {cpu: "1", memory: 1Gi}
      model: {kind: diurnal, cpuCores: 300m, memoryBytes: 300Mi}
  - kind: StatefulSet
    namespace: shop
    name: db
    replicas: 2
    containers:
    - name: db
      requests: {cpu: "1", memory: 2Gi}
      model: {kind: steady, cpuCores: 500m, memoryBytes: 1Gi}
  - kind: DaemonSet
    namespace: platform
    name: agent
    containers:
    - name: agent
      requests: {cpu: 50m, memory: 64Mi}
      model: {kind: bursty, cpuCores: 20m, memoryBytes: 40Mi}
)";

TEST(SimulationTest, CreatesTheScenarioObjectsButNoPodsBeforeTheFirstTick) {
  auto sim = simulation(decoded(scenarioYaml(kMixed)));
  ASSERT_NE(sim, nullptr);
  EXPECT_EQ(sim->clock().now(), sim->scenario().start);
  EXPECT_EQ(sim->state().nodes.list({}).size(), 2u);
  EXPECT_NE(sim->state().namespaces.find("", "shop"), nullptr);
  EXPECT_NE(sim->state().namespaces.find("", "platform"), nullptr);
  EXPECT_NE(sim->state().deployments.find("shop", "web"), nullptr);
  EXPECT_NE(sim->state().statefulSets.find("shop", "db"), nullptr);
  EXPECT_TRUE(sim->state().pods.list({}).empty());
  auto node = sim->api().getNode("node-1");
  ASSERT_TRUE(node.has_value());
  EXPECT_EQ(node->metadata.labels.at("sim.attune.io/node-pool"), "node");
}

TEST(SimulationTest, WorkloadsComeUpScheduledAndRunning) {
  auto sim = simulation(decoded(scenarioYaml(kMixed)));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(5min).has_value());
  EXPECT_EQ(sim->ticks(), 5);
  EXPECT_EQ(sim->clock().now(), sim->scenario().start + 5min);
  const auto pods = sim->state().pods.list({});
  EXPECT_EQ(pods.size(), 3u + 2u + 2u);
  for (const api::Pod& pod : pods) {
    EXPECT_FALSE(pod.spec.nodeName.empty()) << pod.metadata.name;
    EXPECT_EQ(pod.status.phase, "Running") << pod.metadata.name;
  }
  EXPECT_NE(sim->state().pods.find("shop", "db-0"), nullptr);
  EXPECT_EQ(sim->kubelet().pods().size(), 7u);
  const RunTotals totals = sim->totals();
  EXPECT_EQ(totals.podsRunning, 7);
  EXPECT_EQ(totals.podsPending, 0);
  EXPECT_GT(totals.cpuUsedCoreSeconds, 0);
  // 3 × 0.5 + 2 × 1 + 2 × 0.05 cores requested for 5 minutes.
  EXPECT_NEAR(totals.cpuRequestedCoreSeconds, 3.6 * 300, 1e-6);
}

TEST(SimulationTest, ALeakingContainerIsOomKilledAtItsLimitOverHours) {
  auto sim = simulation(decoded(scenarioYaml(R"(  - kind: Deployment
    name: leaky
    containers:
    - name: app
      requests: {cpu: 100m, memory: 128Mi}
      limits: {memory: 256Mi}
      model: {kind: memory-leak, cpuCores: 50m, memoryBytes: 100Mi, leakBytesPerHour: 200Mi}
)")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(3h).has_value());
  const auto pods = sim->state().pods.list({});
  ASSERT_EQ(pods.size(), 1u);
  const api::ContainerStatus* status = pods[0].status.findContainerStatus("app");
  ASSERT_NE(status, nullptr);
  // 156Mi of headroom at 200Mi/h: killed about every 47 minutes of running.
  EXPECT_GE(status->restartCount, 2);
  ASSERT_TRUE(status->lastState.terminated.has_value());
  EXPECT_EQ(status->lastState.terminated->reason, "OOMKilled");
  EXPECT_GE(sim->totals().oomKills, 2u);
  EXPECT_GE(sim->totals().restarts, 2u);
}

TEST(SimulationTest, AJobRunsToCompletion) {
  auto sim = simulation(decoded(scenarioYaml(R"(  - kind: Job
    name: once
    completions: 2
    parallelism: 1
    containers:
    - name: work
      requests: {cpu: 500m, memory: 256Mi}
      model: {kind: batch, cpuCores: 400m, memoryBytes: 100Mi, durationSeconds: 10m}
)")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(10min).has_value());
  EXPECT_EQ(sim->state().jobs.find("default", "once")->status.succeeded, 0);
  ASSERT_TRUE(sim->runFor(50min).has_value());
  const api::Job* job = sim->state().jobs.find("default", "once");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->status.succeeded, 2);
  const api::Condition* complete = api::findCondition(job->status.conditions, "Complete");
  ASSERT_NE(complete, nullptr);
  EXPECT_TRUE(complete->isTrue());
  EXPECT_EQ(sim->totals().podsSucceeded, 2);
}

TEST(SimulationTest, CronJobsStartJobsOnScheduleAndKeepAShortHistory) {
  auto sim = simulation(decoded(scenarioYaml(R"(  - kind: CronJob
    name: tidy
    schedule: "*/30 * * * *"
    containers:
    - name: work
      requests: {cpu: 100m, memory: 64Mi}
      model: {kind: batch, cpuCores: 100m, memoryBytes: 10Mi, durationSeconds: 5m}
)")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(29min).has_value());
  EXPECT_TRUE(sim->state().jobs.list({}).empty());
  ASSERT_TRUE(sim->runFor(1min).has_value());
  ASSERT_EQ(sim->state().jobs.list({}).size(), 1u);
  // "<cronjob>-<minutes since the epoch>", as the CronJob controller names them.
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(
                           (sim->scenario().start + 30min).time_since_epoch())
                           .count();
  EXPECT_NE(sim->state().jobs.find("default", "tidy-" + std::to_string(minutes)), nullptr);
  ASSERT_TRUE(sim->runFor(3h).has_value());
  const api::CronJob* cron = sim->state().cronJobs.find("default", "tidy");
  ASSERT_NE(cron, nullptr);
  EXPECT_EQ(cron->status.lastScheduleTime, sim->scenario().start + 3h + 30min);
  EXPECT_TRUE(cron->status.lastSuccessfulTime.has_value());
  // Seven runs so far; three finished ones are kept, plus the one just started.
  EXPECT_EQ(sim->state().jobs.list({}).size(), 4u);
  EXPECT_LE(sim->state().pods.list({}).size(), 4u);
}

TEST(SimulationTest, CallbacksOnTheClockRunAtTheirTimeBeforeTheTick) {
  auto sim = simulation(decoded(scenarioYaml(kMixed)));
  ASSERT_NE(sim, nullptr);
  Time seenAt{};
  std::size_t podsSeen = 99;
  sim->clock().at(sim->scenario().start + 60s, [&] {
    seenAt = sim->clock().now();
    podsSeen = sim->api().listPods({})->items.size();
  });
  ASSERT_TRUE(sim->step().has_value());
  EXPECT_EQ(seenAt, sim->scenario().start + 60s);
  EXPECT_EQ(podsSeen, 0u);  // ran before the tick's controllers made the pods
  EXPECT_FALSE(sim->state().pods.list({}).empty());
}

TEST(SimulationTest, RunStopsAtTheLastWholeTick) {
  auto sim = simulation(decoded(scenarioYaml(kMixed)));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runUntil(sim->scenario().start + 150s).has_value());
  EXPECT_EQ(sim->ticks(), 2);
  EXPECT_EQ(sim->clock().now(), sim->scenario().start + 120s);
  ASSERT_TRUE(sim->run().has_value());
  EXPECT_EQ(sim->clock().now(), sim->end());
  EXPECT_EQ(sim->ticks(), 24 * 60);
}

std::string openMetricsAfter(const Scenario& scenario, Duration d) {
  auto sim = simulation(scenario);
  if (!sim) return "";
  EXPECT_TRUE(sim->runFor(d).has_value());
  std::ostringstream out;
  EXPECT_TRUE(writeOpenMetrics(out, sim->recorder(), sim->state()).has_value());
  return out.str();
}

TEST(SimulationTest, SameSeedGivesByteIdenticalMetricsAndAnotherSeedDoesNot) {
  const std::string leak = R"(  - kind: Deployment
    name: leaky
    replicas: 2
    containers:
    - name: app
      limits: {cpu: 200m, memory: 256Mi}
      model: {kind: memory-leak, cpuCores: 250m, memoryBytes: 100Mi, leakBytesPerHour: 300Mi}
)";
  const std::string first = openMetricsAfter(decoded(scenarioYaml(kMixed + leak, 5)), 2h);
  const std::string second = openMetricsAfter(decoded(scenarioYaml(kMixed + leak, 5)), 2h);
  const std::string other = openMetricsAfter(decoded(scenarioYaml(kMixed + leak, 6)), 2h);
  ASSERT_FALSE(first.empty());
  EXPECT_NE(first.find("container_cpu_usage_seconds_total"), std::string::npos);
  EXPECT_TRUE(first == second) << "same seed, different dumps";
  EXPECT_NE(first, other);
}

TEST(SimulationTest, TraceEntriesBecomeOneDeploymentPerTracePod) {
  const auto dir = std::filesystem::temp_directory_path() / "attune_sim_trace_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream csv(dir / "t.csv");
    csv << "timestamp,namespace,workload_kind,workload,pod,container,cpu_usage_cores,"
           "memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit\n";
    for (int m = 0; m < 120; m += 5) {
      const std::string t = std::to_string(1714521600 + m * 60);
      csv << t << ",prod,Deployment,api,api-7f-x1,app,0.4,200000000,500m,1,256Mi,512Mi\n";
      csv << t << ",prod,Deployment,api,api-7f-x1,proxy,0.1,50000000,100m,,64Mi,\n";
      csv << t << ",prod,StatefulSet,db,db-0,db,1.5,900000000,2,,1Gi,2Gi\n";
    }
  }
  auto sim = simulation(decoded(
      scenarioYaml("  - trace: {path: t.csv, format: attune-csv, namespace: replay}\n"), dir));
  ASSERT_NE(sim, nullptr);
  const api::Deployment* api = sim->state().deployments.find("replay", "api-7f-x1");
  ASSERT_NE(api, nullptr);
  ASSERT_EQ(api->spec.template_.spec.containers.size(), 2u);
  const api::Container& app = api->spec.template_.spec.containers[0];
  EXPECT_EQ(app.resources.requests.cpu->toMillicores(), Millicores(500));
  EXPECT_EQ(app.resources.limits.memory->toBytes(), Bytes(512LL << 20));
  EXPECT_NE(sim->state().deployments.find("replay", "db-0"), nullptr);
  ASSERT_TRUE(sim->runFor(10min).has_value());
  EXPECT_EQ(sim->state().pods.list({"replay", {}}).size(), 2u);
  // The replayed usage reaches the kubelet: 1.5 + 0.4 + 0.1 cores once the pods run.
  EXPECT_NEAR(sim->totals().cpuUsedCoreSeconds / 600.0, 1.85, 0.3);

  Scenario wrongFormat =
      decoded(scenarioYaml("  - trace: {path: t.csv, format: bitbrains}\n"), dir);
  auto refused = Simulation::create(wrongFormat);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().field, "spec.workloads[0].trace.format");
  std::filesystem::remove_all(dir);
}

// A backtest reads each trace once: loadTraces() keeps it in the scenario, and simulations built
// from copies of it share that copy (here, after the file is gone).
TEST(SimulationTest, LoadedTracesAreSharedBySimulationsWithoutReadingTheFilesAgain) {
  const auto dir = std::filesystem::temp_directory_path() / "attune_sim_loaded_trace_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream csv(dir / "t.csv");
    csv << "timestamp,namespace,workload_kind,workload,pod,container,cpu_usage_cores,"
           "memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit\n";
    for (int m = 0; m < 60; m += 5) {
      csv << std::to_string(1714521600 + m * 60)
          << ",prod,Deployment,api,api-7f-x1,app,0.4,200000000,500m,1,256Mi,512Mi\n";
    }
  }
  Scenario scenario = decoded(
      scenarioYaml("  - trace: {path: t.csv, format: attune-csv, namespace: replay}\n"), dir);
  ASSERT_TRUE(loadTraces(scenario).has_value());
  ASSERT_NE(scenario.traces.at(0).loaded, nullptr);
  std::filesystem::remove_all(dir);
  for (int run = 0; run < 2; ++run) {
    auto sim = Simulation::create(scenario);
    ASSERT_TRUE(sim.has_value()) << sim.error().toString();
    EXPECT_NE((*sim)->state().deployments.find("replay", "api-7f-x1"), nullptr);
  }
  EXPECT_EQ(scenario.traces.at(0).loaded.use_count(), 1);  // the simulations have let go of it

  Scenario missing = decoded(scenarioYaml("  - trace: {path: /nonexistent/trace.csv}\n"));
  auto refused = loadTraces(missing);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().field, "spec.workloads[0].trace.path");
}

TEST(SimulationTest, ReplaysBitbrainsVmsFromTheSharedTraces) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  const auto traces = shared / "traces/bitbrains-rnd-2013-7";
  auto sim = simulation(decoded(
      scenarioYaml("  - trace: {path: " + traces.string() + ", format: bitbrains, limit: 5}\n", 1,
                   "  namespaces: [bitbrains]\n")));
  ASSERT_NE(sim, nullptr);
  const auto deployments = sim->state().deployments.list({"bitbrains", {}});
  ASSERT_EQ(deployments.size(), 5u);
  // Bitbrains VMs request their provisioned cores and memory, and set no limits.
  const api::Container& vm = deployments[0].spec.template_.spec.containers.at(0);
  EXPECT_EQ(vm.name, "main");
  EXPECT_TRUE(vm.resources.requests.cpu.has_value());
  EXPECT_FALSE(vm.resources.limits.cpu.has_value());
  ASSERT_TRUE(sim->runFor(1h).has_value());
  EXPECT_GT(sim->totals().cpuUsedCoreSeconds, 0);
}

TEST(SimulationTest, AMissingTraceIsAnErrorOnItsFieldWithTheLine) {
  const std::string yaml = scenarioYaml("  - trace: {path: /nonexistent/trace.csv}\n");
  Scenario scenario = decoded(yaml);
  auto sim = Simulation::create(scenario);
  ASSERT_FALSE(sim.has_value());
  EXPECT_EQ(sim.error().field, "spec.workloads[0].trace.path");
  ScenarioDiagnostic d = diagnosticFor(scenario, sim.error());
  EXPECT_EQ(d.line, 11);  // the line of `- trace:`
}

TEST(SimulationTest, PodsWithoutAScenarioOwnerHaveNoModel) {
  auto sim = simulation(decoded(scenarioYaml(kMixed)));
  ASSERT_NE(sim, nullptr);
  api::Pod stray;
  stray.metadata.name = "stray";
  stray.metadata.namespace_ = "shop";
  stray.spec.containers.push_back(api::Container{"c", "img", {}, {}, ""});
  ASSERT_TRUE(sim->state().createPod(stray).has_value());
  ASSERT_TRUE(sim->runFor(2min).has_value());
  const api::Pod* pod = sim->state().pods.find("shop", "stray");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->status.phase, "Failed");
  EXPECT_NE(pod->status.message.find("not owned by a workload of the scenario"), std::string::npos)
      << pod->status.message;
}

TEST(SimulationTest, TheBuiltInDemoBuildsAndRuns) {
  DecodedScenario demo = decodeBuiltinDemo();
  ASSERT_TRUE(demo.scenario.has_value());
  auto sim = simulation(*demo.scenario);
  ASSERT_NE(sim, nullptr);
  EXPECT_EQ(sim->state().nodes.list({}).size(), 20u);
  EXPECT_EQ(sim->state().attunePolicies.list({}).size(), 10u);
  // The general pool follows the requests; the memory and batch pools keep their size.
  ASSERT_NE(sim->autoscaler(), nullptr);
  EXPECT_EQ(sim->state().hpas.list({}).size(), 1u);
  ASSERT_TRUE(sim->runFor(10min).has_value());
  const RunTotals totals = sim->totals();
  EXPECT_GE(totals.pods, 180);
  EXPECT_LE(totals.pods, 220);
  EXPECT_EQ(totals.podsUnschedulable, 0);
  EXPECT_GT(totals.podsRunning, 170);
  // search is CPU-limited below its demand.
  EXPECT_GT(totals.cfsThrottledPeriods, 0u);
  // Packed by requests: without an operator no node is removed at the start.
  EXPECT_EQ(totals.nodes, 20);
  EXPECT_EQ(totals.nodesRemoved, 0);
  EXPECT_GT(totals.nodeCost, 0);
}

}  // namespace
}  // namespace attune::sim
