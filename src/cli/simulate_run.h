// The `attune simulate` pipeline as a library: run the controller core against the simulated
// cluster on the simulated clock, once per strategy, and measure what each run requested, used,
// resized, reverted and broke.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "core/time.h"
#include "report/simulation_report.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario.h"

namespace attune::cli {

struct SimulateRequest {
  sim::Scenario scenario;
  std::vector<std::string> strategies{"attune"};  // names recommend::makeStrategy accepts
  // Every policy runs in this mode instead of its own.
  std::optional<api::UpdateMode> mode;
  // How often the controller reconciles every policy.
  Duration reconcileInterval = std::chrono::minutes(1);
  // Time between two points of a workload's timeline; 0 = about 1,000 points over the run.
  Duration timelineStep{0};
  // Called once per strategy with the simulation as it ended (e.g. to write the policies'
  // final status).
  std::function<void(const std::string& strategy, sim::Simulation& simulation)> onFinish;
};

using SimulateProgress = std::function<void(const std::string&)>;

// One simulation per strategy, each from the same scenario and seed. Errors: an unknown
// strategy, a scenario the simulator cannot build, a kubelet failure.
Result<report::SimulationReport> runSimulate(const SimulateRequest& request,
                                             const SimulateProgress& progress = {});

// A scenario replaying a trace (file or directory of Bitbrains GWA-T-12 or Attune CSV): one
// single-replica Deployment per trace pod, requesting what the trace provisioned, on enough
// nodes to hold them, over the trace's span; one AttunePolicy per namespace targeting every
// Deployment (mode Auto unless `mode` says otherwise, at most 10 resizes in flight, memory
// decreases allowed).
Result<sim::Scenario> scenarioFromTrace(const std::filesystem::path& path,
                                        std::optional<api::UpdateMode> mode);

}  // namespace attune::cli
