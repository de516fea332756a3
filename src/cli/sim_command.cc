// `attune sim [SCENARIO]`: runs a scenario (docs/scenarios.md) on the simulated cluster and
// prints what happened; with no SCENARIO, the built-in demo. Optionally writes the recorded
// metrics as OpenMetrics (for promtool backfill), the final metrics in the Prometheus text
// format, and a JSON summary.
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "core/clock.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"
#include "sim/telemetry/openmetrics.h"
#include "sim/telemetry/prometheus_text.h"

namespace attune::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr std::string_view kBuiltinName = "the built-in demo";

struct SimOptions {
  std::string scenario;  // empty: the built-in demo
  std::optional<std::uint64_t> seed;
  std::string duration;
  std::string tick;
  std::string openMetrics;
  std::string metricsText;
  std::string json;
};

struct RunInfo {
  std::string source;  // the file name, or kBuiltinName
  double wallSeconds = 0;
};

double hours(double seconds) { return seconds / 3600.0; }
double gibHours(double byteSeconds) { return byteSeconds / (1024.0 * 1024 * 1024) / 3600.0; }
double percentOf(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// The scenario to run, with the command line's overrides; nullopt after printing why not.
std::optional<sim::Scenario> loadScenario(const SimOptions& o, const std::string& source,
                                          int& exitCode) {
  sim::DecodedScenario decoded;
  if (o.scenario.empty()) {
    decoded = sim::decodeBuiltinDemo();
  } else {
    auto read = sim::readScenarioFile(o.scenario);
    if (!read) {
      fmt::print(stderr, "{}\n", read.error().message);
      exitCode = kExitFailed;
      return std::nullopt;
    }
    decoded = std::move(*read);
  }
  if (!decoded.scenario) {
    for (const auto& e : decoded.errors)
      fmt::print(stderr, "{}\n", sim::formatDiagnostic(source, e));
    fmt::print(stderr, "{} error{} found; nothing simulated\n", decoded.errors.size(),
               decoded.errors.size() == 1 ? "" : "s");
    exitCode = kExitFailed;
    return std::nullopt;
  }
  sim::Scenario scenario = std::move(*decoded.scenario);
  auto override = [&](const std::string& text, const char* flag, Duration& into) {
    if (text.empty()) return true;
    auto d = parseDuration(text);
    if (!d || *d <= Duration::zero()) {
      fmt::print(stderr, "{}: want a positive duration such as 24h or 30s, got \"{}\"\n", flag,
                 text);
      return false;
    }
    into = *d;
    return true;
  };
  if (!override(o.duration, "--duration", scenario.duration) ||
      !override(o.tick, "--tick", scenario.tick)) {
    exitCode = kExitUsage;
    return std::nullopt;
  }
  if (scenario.tick > scenario.duration) {
    fmt::print(stderr, "the tick ({}) is longer than the duration ({})\n",
               formatDuration(scenario.tick), formatDuration(scenario.duration));
    exitCode = kExitUsage;
    return std::nullopt;
  }
  if (o.seed) scenario.seed = *o.seed;
  return scenario;
}

void printSummary(const sim::Simulation& s, const sim::RunTotals& t, const RunInfo& info) {
  const sim::Scenario& sc = s.scenario();
  const double stepsPerSecond =
      info.wallSeconds > 0 ? static_cast<double>(t.containerSteps) / info.wallSeconds : 0.0;
  auto row = [](std::string_view key, const std::string& value) {
    fmt::print("{:<18}{}\n", key, value);
  };
  row("Scenario", fmt::format("{}, seed {}, from {}", sc.name, sc.seed, info.source));
  row("Simulated", fmt::format("{} in {} ticks of {} ({} to {})", formatDuration(t.simulated),
                               t.ticks, formatDuration(sc.tick), formatRfc3339(sc.start),
                               formatRfc3339(s.scenario().start + t.simulated)));
  row("Nodes", fmt::format("{}", t.nodes));
  row("Pods", fmt::format("{} ({} running, {} pending, {} unschedulable, {} succeeded, {} failed)",
                          t.pods, t.podsRunning, t.podsPending, t.podsUnschedulable,
                          t.podsSucceeded, t.podsFailed));
  row("Containers", fmt::format("{}", t.containers));
  row("Container-steps", fmt::format("{}", t.containerSteps));
  row("Wall time",
      fmt::format("{:.2f} s ({:.0f} container-steps/s)", info.wallSeconds, stepsPerSecond));
  row("CPU", fmt::format("requested {:.1f} core-hours, used {:.1f} ({:.1f}% of requested), "
                         "demanded {:.1f}",
                         hours(t.cpuRequestedCoreSeconds), hours(t.cpuUsedCoreSeconds),
                         percentOf(t.cpuUsedCoreSeconds, t.cpuRequestedCoreSeconds),
                         hours(t.cpuDemandCoreSeconds)));
  row("Memory",
      fmt::format("requested {:.1f} GiB-hours, used {:.1f} ({:.1f}% of requested)",
                  gibHours(t.memoryRequestedByteSeconds), gibHours(t.memoryUsedByteSeconds),
                  percentOf(t.memoryUsedByteSeconds, t.memoryRequestedByteSeconds)));
  row("CPU throttled",
      fmt::format("{:.2f}% of the CFS periods of CPU-limited containers", t.throttledPercent()));
  row("CPU pressure", fmt::format("{:.1f} core-hours waiting (PSI)", hours(t.psiWaitingSeconds)));
  row("OOM kills", fmt::format("{}", t.oomKills));
  row("Restarts", fmt::format("{}", t.restarts));
  row("Evictions",
      fmt::format("{} ({} by the kubelet under memory pressure)", t.evictions, t.kubeletEvictions));
}

nlohmann::ordered_json summaryJson(const sim::Simulation& s, const sim::RunTotals& t,
                                   const RunInfo& info) {
  const sim::Scenario& sc = s.scenario();
  nlohmann::ordered_json j;
  j["scenario"] = sc.name;
  j["source"] = info.source;
  j["seed"] = sc.seed;
  j["start"] = formatRfc3339(sc.start);
  j["duration_s"] = std::chrono::duration<double>(t.simulated).count();
  j["tick_s"] = std::chrono::duration<double>(sc.tick).count();
  j["ticks"] = t.ticks;
  j["nodes"] = t.nodes;
  j["pods"] = {{"total", t.pods},
               {"running", t.podsRunning},
               {"pending", t.podsPending},
               {"unschedulable", t.podsUnschedulable},
               {"succeeded", t.podsSucceeded},
               {"failed", t.podsFailed}};
  j["containers"] = t.containers;
  j["container_steps"] = t.containerSteps;
  j["wall_seconds"] = info.wallSeconds;
  j["container_steps_per_second"] =
      info.wallSeconds > 0 ? static_cast<double>(t.containerSteps) / info.wallSeconds : 0.0;
  j["cpu"] = {{"requested_core_hours", hours(t.cpuRequestedCoreSeconds)},
              {"used_core_hours", hours(t.cpuUsedCoreSeconds)},
              {"demand_core_hours", hours(t.cpuDemandCoreSeconds)},
              {"throttled_pct", t.throttledPercent()},
              {"psi_waiting_core_seconds", t.psiWaitingSeconds}};
  j["memory"] = {{"requested_gib_hours", gibHours(t.memoryRequestedByteSeconds)},
                 {"used_gib_hours", gibHours(t.memoryUsedByteSeconds)},
                 {"oom_kills", t.oomKills}};
  j["restarts"] = t.restarts;
  j["evictions"] = t.evictions;
  j["kubelet_evictions"] = t.kubeletEvictions;
  return j;
}

// Writes `write(out)` to `path`; false after printing why not.
template <typename Write>
bool writeFile(const std::string& path, Write write) {
  std::ofstream out(path, std::ios::binary);
  if (out) write(out);
  if (!out) {
    fmt::print(stderr, "{}: cannot write file\n", path);
    return false;
  }
  return true;
}

int runSim(const SimOptions& o) {
  const std::string source = o.scenario.empty() ? std::string(kBuiltinName) : o.scenario;
  int exitCode = kExitOk;
  auto scenario = loadScenario(o, source, exitCode);
  if (!scenario) return exitCode;
  auto sim = sim::Simulation::create(*scenario);
  if (!sim) {
    fmt::print(stderr, "{}\n",
               sim::formatDiagnostic(source, sim::diagnosticFor(*scenario, sim.error())));
    return kExitFailed;
  }
  SystemClock wall;
  const Time began = wall.now();
  if (auto ran = (*sim)->run(); !ran) {
    fmt::print(stderr, "simulation failed at {}: {}\n", formatRfc3339((*sim)->clock().now()),
               ran.error().toString());
    return kExitFailed;
  }
  const RunInfo info{source, std::chrono::duration<double>(wall.now() - began).count()};
  const sim::Simulation& s = **sim;
  const sim::RunTotals totals = s.totals();
  printSummary(s, totals, info);

  bool written = true;
  if (!o.openMetrics.empty()) {
    written &= writeFile(o.openMetrics, [&](std::ostream& out) {
      if (auto ok = sim::writeOpenMetrics(out, s.recorder(), s.state()); !ok) {
        out.setstate(std::ios::failbit);
      }
    });
  }
  if (!o.metricsText.empty()) {
    written &= writeFile(o.metricsText, [&](std::ostream& out) {
      out << sim::renderPrometheusText(s.state(), s.kubelet().pods(), s.kubelet().nodes());
    });
  }
  if (!o.json.empty()) {
    written &= writeFile(
        o.json, [&](std::ostream& out) { out << summaryJson(s, totals, info).dump(2) << "\n"; });
  }
  return written ? kExitOk : kExitFailed;
}

}  // namespace

void addSimCommand(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<SimOptions>();
  auto* cmd = app.add_subcommand(
      "sim",
      "Run a scenario on the simulated cluster and print a summary (docs/scenarios.md). Without "
      "SCENARIO it runs the built-in demo: 20 nodes, about 200 pods, 7 days. Scenario errors are "
      "printed as FILE:LINE: field.path: message and exit 1.");
  cmd->add_option("scenario", o->scenario, "Scenario file (YAML); default: the built-in demo");
  cmd->add_option("--seed", o->seed, "Random seed, instead of the scenario's");
  cmd->add_option("--duration", o->duration,
                  "Simulated time to run, e.g. 24h (default: the scenario's)");
  cmd->add_option("--tick", o->tick, "Simulated time per step, e.g. 30s (default: the scenario's)");
  cmd->add_option("--openmetrics", o->openMetrics,
                  "Write every recorded sample as OpenMetrics (promtool tsdb "
                  "create-blocks-from openmetrics)");
  cmd->add_option("--metrics-text", o->metricsText,
                  "Write the metrics at the end in the Prometheus text format");
  cmd->add_option("--json", o->json, "Write the summary as JSON");
  cmd->callback([o, &exitCode] { exitCode = runSim(*o); });
}

}  // namespace attune::cli
