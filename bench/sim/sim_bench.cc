// The simulator's speed: 1,000 single-container pods (50 Deployments of 20 replicas, steady,
// diurnal, bursty, JVM and leaking models) on 40 nodes for 7 days at a 60-second tick — 10,080
// ticks, about 10 M container-steps — single-threaded. Target: <= 10 s.
//
// Baseline, measured in the same run: a bare loop evaluating the same usage models for the same
// container-steps (what any simulator must at least do); the ratio is the simulator's overhead
// factor (control plane, kubelet, recorder, accounting).
//
// Flags: --pods=N (multiple of 20, default 1000), --days=N (default 7), --retention=DURATION
// (recorder retention, default the whole run).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"
#include "sim/workload/usage_model_factory.h"

namespace {

using namespace attune;
using namespace std::chrono_literals;

constexpr int kReplicas = 20;

struct BenchOptions {
  int pods = 1000;
  int days = 7;
  std::string retention;
};

// The usage model of Deployment `i`, as the scenario writes it.
std::string modelOf(int i) {
  switch (i % 5) {
    case 0:
      return "{kind: steady, cpuCores: 150m, memoryBytes: 200Mi}";
    case 1:
      return "{kind: diurnal, cpuCores: 200m, memoryBytes: 300Mi, amplitude: 0.6}";
    case 2:
      return "{kind: bursty, cpuCores: 100m, memoryBytes: 150Mi, spikeProbability: 0.02}";
    case 3:
      return "{kind: jvm, cpuCores: 150m, heapBytes: 400Mi, floorBytes: 150Mi}";
    default:
      return "{kind: memory-leak, cpuCores: 100m, memoryBytes: 100Mi, leakBytesPerHour: 20Mi}";
  }
}

std::string scenarioYaml(const BenchOptions& o) {
  std::string yaml =
      "apiVersion: sim.attune.io/v1alpha1\nkind: Scenario\nmetadata: {name: bench}\nspec:\n"
      "  seed: 1\n  start: \"2026-01-05T00:00:00Z\"\n  duration: " +
      std::to_string(o.days * 24) +
      "h\n  tick: 60s\n"
      "  nodePools: [{name: node, count: 40, cpu: \"16\", memory: 64Gi}]\n  workloads:\n";
  for (int i = 0; i < o.pods / kReplicas; ++i) {
    // Limits: CPU on every third Deployment (some throttle), memory high enough that the leak
    // is killed about once a day.
    const std::string cpuLimit = i % 3 == 0 ? ", cpu: 200m" : "";
    yaml += "  - kind: Deployment\n    namespace: ns-" + std::to_string(i % 10) +
            "\n    name: app-" + std::to_string(i) +
            "\n    replicas: " + std::to_string(kReplicas) +
            "\n    containers:\n    - name: app\n      requests: {cpu: 200m, memory: 256Mi}\n"
            "      limits: {memory: 600Mi" +
            cpuLimit + "}\n      model: " + modelOf(i) + "\n";
  }
  return yaml;
}

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// Evaluates the scenario's models for the same container-steps as the simulation, with nothing
// else; returns the wall time. `sink` keeps the work observable.
double baseline(const sim::Scenario& scenario, std::int64_t steps, Clock& wall, double& sink) {
  std::vector<sim::UsageModelPtr> models;
  const sim::Random root(scenario.seed);
  for (const sim::WorkloadScenario& w : scenario.workloads) {
    for (int r = 0; r < w.replicas.value_or(1); ++r) {
      auto model = sim::makeUsageModel(w.containers.at(0).model,
                                       root.fork(w.name + "-" + std::to_string(r)));
      if (!model) std::abort();
      models.push_back(std::move(*model));
    }
  }
  const auto ticks = steps / static_cast<std::int64_t>(models.size());
  const Time began = wall.now();
  for (std::int64_t t = 1; t <= ticks; ++t) {
    const Time now = scenario.start + t * scenario.tick;
    const Duration since = t * scenario.tick;
    for (auto& m : models) {
      const sim::Usage u = m->usage(now, since);
      sink += u.cpuCores + static_cast<double>(u.memory.value());
    }
  }
  return seconds(wall.now() - began);
}

BenchOptions parseFlags(int argc, char** argv) {
  BenchOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--pods=")) o.pods = std::atoi(argv[i] + 7);
    if (arg.starts_with("--days=")) o.days = std::atoi(argv[i] + 7);
    if (arg.starts_with("--retention=")) o.retention = std::string(arg.substr(12));
  }
  o.pods = std::max(kReplicas, o.pods / kReplicas * kReplicas);
  o.days = std::max(1, o.days);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const BenchOptions o = parseFlags(argc, argv);
  sim::DecodedScenario decoded = sim::decodeScenario(scenarioYaml(o));
  if (!decoded.scenario) {
    for (const auto& e : decoded.errors) {
      std::fprintf(stderr, "%s\n", sim::formatDiagnostic("bench", e).c_str());
    }
    return 1;
  }
  sim::SimulationOptions options;
  if (!o.retention.empty()) options.retention = parseDuration(o.retention).value_or(24h);
  auto sim = sim::Simulation::create(*decoded.scenario, options);
  if (!sim) {
    std::fprintf(stderr, "%s\n", sim.error().toString().c_str());
    return 1;
  }
  SystemClock wall;
  const Time began = wall.now();
  if (auto ran = (*sim)->run(); !ran) {
    std::fprintf(stderr, "%s\n", ran.error().toString().c_str());
    return 1;
  }
  const double simSeconds = seconds(wall.now() - began);
  const sim::RunTotals t = (*sim)->totals();
  double sink = 0;
  const double baseSeconds = baseline(*decoded.scenario, t.containerSteps, wall, sink);

  std::printf("sim_bench: %d pods on 40 nodes, %d days at a 60 s tick, single-threaded\n", o.pods,
              o.days);
  std::printf("  ticks                 %lld\n", static_cast<long long>(t.ticks));
  std::printf("  container-steps       %lld\n", static_cast<long long>(t.containerSteps));
  std::printf("  simulation            %.2f s  (%.0f container-steps/s)  target <= 10 s: %s\n",
              simSeconds, static_cast<double>(t.containerSteps) / simSeconds,
              simSeconds <= 10.0 ? "met" : "MISSED");
  std::printf("  baseline (models only) %.2f s  (%.0f container-steps/s)\n", baseSeconds,
              static_cast<double>(t.containerSteps) / baseSeconds);
  std::printf("  overhead factor       %.1fx the bare model loop\n", simSeconds / baseSeconds);
  std::printf("  recorder samples      %zu; OOM kills %llu, throttled %.1f%% (checksum %.3g)\n",
              (*sim)->recorder().sampleCount(), static_cast<unsigned long long>(t.oomKills),
              t.throttledPercent(), sink);
  return 0;
}
