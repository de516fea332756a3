// The `attune simulate` pipeline as a library: run the controller core against the simulated
// cluster on the simulated clock, once per strategy, and measure what each run requested, used,
// resized, reverted and broke.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "core/time.h"
#include "report/simulation_report.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario.h"

namespace attune::cli {

// The HPA guard (controller/hpa_guard.h) in a backtest: not run, run beside the controller, or
// both, one after the other from the same seed, compared side by side.
enum class HpaGuardMode { kOff, kOn, kCompare };

// Continuous node optimisation (docs/node-optimisation.md) in a backtest: every policy with
// spec.nodeOptimization off, every policy with it on and the pod admission webhook's sizing
// (CruiseKube Phase 1) run in process on pod creation, or both runs from the same seed, compared
// side by side.
enum class NodeOptimisationMode { kOff, kOn, kCompare };

// The strategy that runs no operator at all: the same scenario and seed with no controller, no
// HPA guard and no admission webhook, every pod keeping the requests it was created with. A
// comparison reads each strategy's savings and added risk against it.
inline constexpr std::string_view kNoOperator = "none";

// The project's default recommendation strategy (docs/strategies.md): what `attune backtest`
// runs beside kNoOperator when no strategy is given.
inline constexpr std::string_view kDefaultStrategy = "adaptive";

struct SimulateRequest {
  sim::Scenario scenario;
  // Names recommend::makeStrategy accepts, and kNoOperator.
  std::vector<std::string> strategies{"attune"};
  // Every policy runs in this mode instead of its own.
  std::optional<api::UpdateMode> mode;
  // How often the controller reconciles every policy.
  Duration reconcileInterval = std::chrono::minutes(1);
  // Unset: no guard, and the runs are not labelled with it. Otherwise the guard runs in process
  // against the simulated cluster on the simulated clock, every `hpaGuardInterval`, its
  // annotated queries answered from the simulation's own history (sim::SimScalarQuery).
  std::optional<HpaGuardMode> hpaGuard;
  Duration hpaGuardInterval = std::chrono::minutes(1);
  // Unset: the policies as they are, and the runs are not labelled with it. kOff: every policy
  // gets spec.nodeOptimization.enabled false. kOn: true (evictionRanking kept), the controller
  // publishes its admission sizing and the simulated cluster's pod creation calls the pod
  // admission webhook's decision with it (simulate_admission.h). Either way the run's node
  // optimisation summary and scaling summary are filled.
  std::optional<NodeOptimisationMode> nodeOptimisation;
  // Time between two points of a workload's timeline; 0 = about 1,000 points over the run.
  Duration timelineStep{0};
  // Called once per strategy with the simulation as it ended (e.g. to write the policies'
  // final status); in the order of the runs, one call at a time, whatever `jobs` is.
  std::function<void(const std::string& strategy, sim::Simulation& simulation)> onFinish;
  // How many runs go at once, each on its own thread with its own simulation and controller; the
  // scenario (and the traces it replays, loaded once) is shared read-only. 0: one per hardware
  // thread the process may run on (its CPU affinity). The report is the same, in the same order,
  // whatever the value.
  unsigned jobs = 1;
};

// Progress lines; called from one run's thread at a time.
using SimulateProgress = std::function<void(const std::string&)>;

// One simulation per strategy (two with HpaGuardMode::kCompare: without the guard, then with
// it; twice that with NodeOptimisationMode::kCompare: off, then on; always one for kNoOperator,
// whose run has mode "none" and no guard or node optimisation label), each from the same scenario
// and seed. A run's scaling summary is filled when the scenario has HPAs or service rate changes,
// or the guard or node optimisation was asked about. Errors: an unknown strategy, a
// scenario the simulator cannot build, a kubelet failure, an HPA list failing in the guard.
Result<report::SimulationReport> runSimulate(const SimulateRequest& request,
                                             const SimulateProgress& progress = {});

// A scenario replaying a trace (file or directory of Bitbrains GWA-T-12 or Attune CSV): one
// single-replica Deployment per trace pod, requesting what the trace provisioned, over the
// trace's span, on one pool of identical nodes that starts with enough of them to hold those
// requests and is run by the cluster autoscaler (defaults; minSize 1, maxSize twice the start,
// priced at kTraceCoreHourPrice per core and kTraceGibHourPrice per GiB of a node); one
// AttunePolicy per namespace targeting every Deployment (mode Auto unless `mode` says otherwise, at
// most 10 resizes in flight, memory decreases allowed, controlledValues left at the default
// RequestsOnly).
inline constexpr double kTraceCoreHourPrice = 0.022;
inline constexpr double kTraceGibHourPrice = 0.0029;
Result<sim::Scenario> scenarioFromTrace(const std::filesystem::path& path,
                                        std::optional<api::UpdateMode> mode);

}  // namespace attune::cli
