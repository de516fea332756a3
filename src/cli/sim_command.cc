// `attune sim run [SCENARIO]` (also `attune sim [SCENARIO]`): runs a scenario (docs/scenarios.md)
// on the simulated cluster alone and prints what happened; with no SCENARIO, the built-in demo.
// Optionally writes the recorded metrics as OpenMetrics (for promtool backfill), the final
// metrics in the Prometheus text format, and a JSON summary. `attune sim serve` serves the
// simulated cluster behind the Kubernetes REST API (docs/sim-serve.md).
#include <fmt/format.h>

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "core/clock.h"
#include "core/time.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"
#include "sim/serve/sim_server.h"
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
  row("Node-hours", fmt::format("{:.2f}, cost {:.2f}; {} to {} nodes{}", hours(t.nodeSeconds),
                                t.nodeCost, t.nodesMin, t.nodesMax,
                                s.autoscaler() == nullptr
                                    ? std::string(" (fixed count)")
                                    : fmt::format(" (cluster autoscaler: {} added, {} removed)",
                                                  t.nodesAdded, t.nodesRemoved)));
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
  j["node_hours"] = hours(t.nodeSeconds);
  j["node_cost"] = t.nodeCost;
  j["nodes_min"] = t.nodesMin;
  j["nodes_max"] = t.nodesMax;
  j["nodes_added"] = t.nodesAdded;
  j["nodes_removed"] = t.nodesRemoved;
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

// Writes `text` to a temporary file beside `path`, then renames it to `path`, so that a reader
// polling for `path` never sees it half written; false after printing why not.
bool writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out.flush()) {
      fmt::print(stderr, "{}: cannot write file\n", temporary);
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    fmt::print(stderr, "{}: cannot write file\n", path);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
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
      out << sim::renderPrometheusText(s.state(), s.kubelet().pods(), s.kubelet().nodes(),
                                       s.requests());
    });
  }
  if (!o.json.empty()) {
    written &= writeFile(
        o.json, [&](std::ostream& out) { out << summaryJson(s, totals, info).dump(2) << "\n"; });
  }
  return written ? kExitOk : kExitFailed;
}

struct ServeCliOptions {
  std::string listen = "127.0.0.1:8443";
  bool tls = false;  // --tls: HTTPS, the default since --plain-http exists; kept for old scripts
  bool plainHttp = false;
  std::string kubeconfigOut;
  double speed = 60;
  std::string tickInterval;
  std::string token;
  double faultRate = 0;
  std::uint64_t faultSeed = 1;
  std::string faults = "all";
  std::string webhookHost = std::string(sim::serve::kDefaultWebhookHost);
  std::string start;    // --start: RFC 3339 or "now"; empty keeps the scenario's
  std::string history;  // --history: simulated before the start; empty: none
};

// Blocks until SIGINT or SIGTERM (returning 0) or until the simulation fails (returning 1).
// The signals must be blocked in every thread (see runServe).
int waitForShutdown(sim::serve::SimServer& server, const sigset_t& signals) {
  const timespec second{1, 0};
  while (true) {
    if (sigtimedwait(&signals, nullptr, &second) > 0) return kExitOk;
    if (auto failure = server.failure()) {
      fmt::print(stderr, "simulation failed: {}\n", failure->toString());
      return kExitFailed;
    }
  }
}

// Steps `sim` from its start up to one tick before `servedFrom` as fast as it runs, so that the
// server's first tick lands on it; with `catchUp` (--start now) also over the wall time that took.
bool runHistory(sim::Simulation& sim, Time servedFrom, bool catchUp, Clock& wall) {
  const Duration tick = sim.scenario().tick;
  const Time began = wall.now();
  fmt::print(stderr, "Simulating {} of history before {} ({} ticks)...\n",
             formatDuration(servedFrom - sim.clock().now()), formatRfc3339(servedFrom),
             (servedFrom - sim.clock().now()) / tick);
  Time until = servedFrom - tick;
  while (sim.clock().now() + tick <= until) {
    if (auto ran = sim.runUntil(until); !ran) {
      fmt::print(stderr, "simulation failed: {}\n", ran.error().toString());
      return false;
    }
    if (catchUp) until = std::max(until, wall.now() - tick);
  }
  fmt::print(stderr, "History simulated: {} ticks in {:.1f} s\n", sim.ticks(),
             std::chrono::duration<double>(wall.now() - began).count());
  return true;
}

int runServe(const SimOptions& o, const ServeCliOptions& c) {
  const std::string source = o.scenario.empty() ? std::string(kBuiltinName) : o.scenario;
  int exitCode = kExitOk;
  auto scenario = loadScenario(o, source, exitCode);
  if (!scenario) return exitCode;
  SystemClock wall;
  if (c.start == "now") {
    scenario->start = wall.now();
  } else if (!c.start.empty()) {
    auto start = parseRfc3339(c.start);
    if (!start) {
      fmt::print(stderr,
                 "--start: want now or an RFC 3339 time such as 2026-01-05T00:00:00Z, got "
                 "\"{}\"\n",
                 c.start);
      return kExitUsage;
    }
    scenario->start = *start;
  }
  Duration history{};
  if (!c.history.empty()) {
    auto d = parseDuration(c.history);
    if (!d || *d < Duration::zero()) {
      fmt::print(stderr, "--history: want a duration such as 24h, got \"{}\"\n", c.history);
      return kExitUsage;
    }
    history = *d;
  }
  const Time servedFrom = scenario->start;
  scenario->start -= history;
  sim::serve::ServeOptions options;
  options.listen = c.listen;
  // kubectl sends a bearer token over HTTPS only: plain HTTP asks for none unless given one.
  options.tls = !c.plainHttp;
  options.authenticate = !c.plainHttp || !c.token.empty();
  options.speed = c.speed;
  options.token = c.token;
  if (!c.tickInterval.empty()) {
    auto d = parseDuration(c.tickInterval);
    if (!d || *d <= Duration::zero()) {
      fmt::print(stderr, "--tick-interval: want a positive duration such as 1s, got \"{}\"\n",
                 c.tickInterval);
      return kExitUsage;
    }
    options.tickInterval = *d;
  }
  auto faultKinds = sim::serve::parseServedFaults(c.faults);
  if (!faultKinds) {
    fmt::print(stderr, "--faults: {}\n", faultKinds.error().message);
    return kExitUsage;
  }
  options.faults = {c.faultRate, c.faultSeed, *faultKinds};
  options.webhookHost = c.webhookHost;
  // Serving runs indefinitely: keep a bounded window of recorded samples (the history and two
  // hours more).
  auto sim = sim::Simulation::create(
      *scenario, sim::SimulationOptions{history + Duration(std::chrono::hours(2))});
  if (!sim) {
    fmt::print(stderr, "{}\n",
               sim::formatDiagnostic(source, sim::diagnosticFor(*scenario, sim.error())));
    return kExitFailed;
  }
  if (history > Duration::zero() && !runHistory(**sim, servedFrom, c.start == "now", wall)) {
    return kExitFailed;
  }
  // SIGINT and SIGTERM are taken with sigtimedwait: block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A kubeconfig left by an earlier run must not be mistaken for this server's.
  if (!c.kubeconfigOut.empty()) std::remove(c.kubeconfigOut.c_str());
  auto server = sim::serve::SimServer::start(std::move(*sim), options, wall);
  if (!server) {
    fmt::print(stderr, "{}\n", server.error().toString());
    return server.error().code == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailed;
  }
  if (!(*server)->waitUntilReady()) {
    const auto failure = (*server)->failure();
    fmt::print(stderr, "simulation failed: {}\n", failure ? failure->toString() : "stopped");
    return kExitFailed;
  }
  if (!c.kubeconfigOut.empty() && !writeFileAtomically(c.kubeconfigOut, (*server)->kubeconfig())) {
    return kExitFailed;
  }
  fmt::print("Serving {} at {} (one {} tick every {} of wall time)\n", source, (*server)->url(),
             formatDuration(scenario->tick), formatDuration((*server)->tickInterval()));
  if (!c.kubeconfigOut.empty()) {
    fmt::print("Kubeconfig written to {} (try: kubectl --kubeconfig {} get pods -A)\n",
               c.kubeconfigOut, c.kubeconfigOut);
  }
  if (c.plainHttp && !c.token.empty()) {
    fmt::print(stderr,
               "warning: kubectl sends no bearer token over plain HTTP, so it will be answered "
               "401; leave out --token, or --plain-http\n");
  }
  if ((*server)->api().faults().enabled()) {
    std::string names;
    for (sim::FaultKind kind : (*server)->api().faults().kinds()) {
      names += (names.empty() ? "" : ", ") + std::string(sim::toString(kind));
    }
    fmt::print("Injecting faults into {:g}% of API requests ({}; seed {})\n", c.faultRate * 100,
               names, c.faultSeed);
  }
  std::fflush(stdout);
  const int code = waitForShutdown(**server, signals);
  (*server)->stop();
  return code;
}

// The scenario and flags of a simulation run, for `attune sim [SCENARIO]` and `attune sim run`.
void addRunOptions(CLI::App& cmd, SimOptions& o) {
  cmd.add_option("scenario", o.scenario, "Scenario file (YAML); default: the built-in demo");
  cmd.add_option("--seed", o.seed, "Random seed, instead of the scenario's");
  cmd.add_option("--duration", o.duration,
                 "Simulated time to run, e.g. 24h (default: the scenario's)");
  cmd.add_option("--tick", o.tick, "Simulated time per step, e.g. 30s (default: the scenario's)");
  cmd.add_option("--openmetrics", o.openMetrics,
                 "Write every recorded sample as OpenMetrics (promtool tsdb "
                 "create-blocks-from openmetrics)");
  cmd.add_option("--metrics-text", o.metricsText,
                 "Write the metrics at the end in the Prometheus text format");
  cmd.add_option("--json", o.json, "Write the summary as JSON");
}

void addServeCommand(CLI::App& sim, int& exitCode) {
  auto o = std::make_shared<SimOptions>();
  auto c = std::make_shared<ServeCliOptions>();
  auto* cmd = sim.add_subcommand(
      "serve",
      "Run a scenario in wall-clock time behind the Kubernetes REST API, for kubectl and the "
      "controller (docs/sim-serve.md): get, list (paged), watch and writes of every kind it "
      "holds; --fault-rate injects throttling, errors, resets, dropped or expired watches and "
      "conflicts. Runs until SIGINT or SIGTERM.");
  cmd->add_option("scenario", o->scenario, "Scenario file (YAML); default: the built-in demo");
  cmd->add_option("--seed", o->seed, "Random seed, instead of the scenario's");
  cmd->add_option("--tick", o->tick, "Simulated time per step, e.g. 30s (default: the scenario's)");
  cmd->add_option("--listen", c->listen, "Address to serve on, host:port (port 0: any free port)")
      ->capture_default_str();
  auto* plain = cmd->add_flag(
      "--plain-http", c->plainHttp,
      "Serve plain HTTP instead of HTTPS; no bearer token is asked for unless --token is given "
      "(kubectl sends a token over HTTPS only)");
  cmd->add_flag("--tls", c->tls,
                "Serve HTTPS with a CA and certificate generated at start (the default; kept for "
                "old scripts)")
      ->excludes(plain);
  cmd->add_option("--kubeconfig-out", c->kubeconfigOut,
                  "Once the server is ready, write a kubeconfig for it to this file (URL, CA "
                  "data, token), for kubectl --kubeconfig FILE");
  cmd->add_option("--speed", c->speed, "Simulated seconds per wall-clock second")
      ->capture_default_str();
  cmd->add_option("--start", c->start,
                  "Simulated time at the start, instead of the scenario's: an RFC 3339 time, or "
                  "now (with --speed 1 the simulated clock then keeps to the wall clock, as an "
                  "operator run against the simulator expects)");
  cmd->add_option("--history", c->history,
                  "Simulated time to run before the start, as fast as the machine allows, so "
                  "that the recorded history covers it (e.g. 24h; with --start now the "
                  "simulation then catches up with the wall clock); read it at /prometheus, "
                  "the simulator's Prometheus query API");
  cmd->add_option("--tick-interval", c->tickInterval,
                  "Wall time per tick, e.g. 500ms (default: the scenario's tick / --speed)");
  cmd->add_option("--token", c->token,
                  "Bearer token clients must send (default: random; none with --plain-http)");
  cmd->add_option("--fault-rate", c->faultRate,
                  "Fraction of API requests (not health, metrics, version or discovery) that meet "
                  "an injected fault, 0..1")
      ->capture_default_str();
  cmd->add_option("--fault-seed", c->faultSeed, "Seed of the fault decisions")
      ->capture_default_str();
  cmd->add_option("--faults", c->faults,
                  "Faults to inject, comma-separated: throttled (429 + Retry-After), server-error "
                  "(500), timeout (connection closed), watch-dropped (watch ends early), "
                  "watch-gone (410 on watch and continue), conflict (409 on writes with a "
                  "resourceVersion), or all")
      ->capture_default_str();
  cmd->add_option("--webhook-host", c->webhookHost,
                  "Host at which the admission webhooks registered with a clientConfig.service "
                  "are called (there is no cluster DNS): https://HOST:<service port><path>")
      ->capture_default_str();
  cmd->callback([o, c, &exitCode] { exitCode = runServe(*o, *c); });
}

}  // namespace

void addSimCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand(
      "sim",
      "The simulated cluster alone, without the controller (docs/scenarios.md): `sim run "
      "[SCENARIO]` (or just `sim [SCENARIO]`) runs a scenario and prints what happened; `sim "
      "serve` serves it behind the Kubernetes API. The controller backtested on it is `attune "
      "backtest`.");
  auto bare = std::make_shared<SimOptions>();
  addRunOptions(*cmd, *bare);
  auto run = std::make_shared<SimOptions>();
  auto* runCmd = cmd->add_subcommand(
      "run",
      "Run a scenario on the simulated cluster and print a summary (docs/scenarios.md). Without "
      "SCENARIO it runs the built-in demo: 20 nodes, about 200 pods, 7 days. Scenario errors are "
      "printed as FILE:LINE: field.path: message and exit 1.");
  addRunOptions(*runCmd, *run);
  runCmd->callback([run, &exitCode] { exitCode = runSim(*run); });
  addServeCommand(*cmd, exitCode);
  cmd->callback([bare, cmd, &exitCode] {
    if (cmd->got_subcommand("serve") || cmd->got_subcommand("run")) return;
    exitCode = runSim(*bare);
  });
}

}  // namespace attune::cli
