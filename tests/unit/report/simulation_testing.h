// A small fixed SimulationReport for the simulation renderer tests.
#pragma once

#include <chrono>
#include <string>

#include "report/simulation_report.h"

namespace attune::report::testing {

inline Time at(int minutes) {
  return Time(std::chrono::seconds(1714521600)) + std::chrono::minutes(minutes);
}

// `n` samples every 5 minutes from at(0): usage 0.2, request 0.5 (0.25 from the middle on),
// limit 1.0 on every sample.
inline std::vector<UsagePoint> cpuSeries(int n) {
  std::vector<UsagePoint> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(
        {.time = at(5 * i), .usage = 0.2, .request = i < n / 2 ? 0.5 : 0.25, .limit = 1.0});
  }
  return out;
}

inline std::vector<UsagePoint> memorySeries(int n) {
  std::vector<UsagePoint> out;
  for (int i = 0; i < n; ++i) {
    out.push_back({.time = at(5 * i), .usage = 300.0 * (1 << 20), .request = 512.0 * (1 << 20)});
  }
  return out;
}

inline WorkloadTimeline workload(std::string name) {
  WorkloadTimeline w{.ns = "shop", .kind = "Deployment", .name = std::move(name)};
  w.cpu = cpuSeries(24);
  w.memory = memorySeries(24);
  w.cpuSavingsPct = 50;
  w.memorySavingsPct = 12.5;
  w.events = {{.time = at(60),
               .kind = "Resized",
               .pod = "web-1",
               .container = "app",
               .detail = "cpu 500m→250m"},
              {.time = at(90),
               .kind = "OOMKilled",
               .pod = "web-1",
               .container = "app",
               .detail = "oomkill"},
              {.time = at(91),
               .kind = "Reverted",
               .pod = "web-1",
               .container = "app",
               .detail = "oomkill"}};
  return w;
}

inline SimulationRun run(std::string strategy) {
  SimulationRun s{.strategy = std::move(strategy),
                  .mode = "Auto",
                  .durationSeconds = 7200,
                  .pods = 3,
                  .containers = 6};
  s.cpu = {.requestCoreHoursBefore = 3,
           .requestCoreHoursAfter = 1.5,
           .usedCoreHours = 0.75,
           .savingsPct = 50,
           .throttledPct = 1.25,
           .psiWaitingCoreSeconds = 12.5};
  s.memory = {.requestGibHoursBefore = 2,
              .requestGibHoursAfter = 1.75,
              .usedGibHours = 1.125,
              .savingsPct = 12.5,
              .oomKills = 1};
  s.resizes = {.applied = 4,
               .failed = 1,
               .skippedByReason = {{"cooldown", 2}},
               .revertedByReason = {{"oomkill", 1}}};
  s.restarts = 1;
  s.evictions = 0;
  s.nodes = {.autoscaled = true,
             .nodeHours = 6.5,
             .cost = 1.75,
             .min = 2,
             .max = 5,
             .final = 3,
             .added = 4,
             .removed = 3};
  s.workloads.push_back(workload("web"));
  return s;
}

// Scenario "demo", seed 42, two hours from 2024-05-01T00:00:00Z; runs attune and krr (krr with
// a throttle revert and no skips).
inline SimulationReport sampleReport() {
  SimulationReport r{
      .scenario = "demo", .seed = 42, .start = at(0), .duration = std::chrono::hours(2)};
  r.runs.push_back(run("attune"));
  SimulationRun krr = run("krr");
  krr.cpu.savingsPct = 20;
  krr.resizes.skippedByReason.clear();
  krr.resizes.revertedByReason = {{"throttle", 3}};
  r.runs.push_back(krr);
  return r;
}

}  // namespace attune::report::testing
