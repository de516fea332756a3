// Fuzzes the scenario codec: decodeScenario of the input. For any input nothing crashes or
// throws; a document decodes to a scenario exactly when there is no error; every diagnostic has
// a message and a non-negative line and column, and formats. A decoded scenario without trace
// entries (which would read files) and with at most 64 nodes and 64 workloads is also built into
// a simulated cluster (buildCluster, pure and deterministic for such a scenario): that either
// succeeds or fails with a message that diagnosticFor() places.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <string_view>

#include "fuzz_check.h"
#include "sim/engine/scenario_builder.h"
#include "sim/random.h"
#include "sim/scenario/scenario_codec.h"

namespace {

using namespace attune;
using namespace attune::sim;

using attune::fuzz::check;

bool cheapToBuild(const Scenario& scenario) {
  if (!scenario.traces.empty() || scenario.workloads.size() > 64) return false;
  std::int64_t nodes = 0;
  for (const NodePool& pool : scenario.nodePools) nodes += pool.count;
  return nodes <= 64;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const DecodedScenario decoded = decodeScenario(text, "/nonexistent-attune-fuzz/scenarios");
  check(decoded.scenario.has_value() == decoded.errors.empty());
  for (const ScenarioDiagnostic& d : decoded.errors) {
    check(!d.error.message.empty() && d.line >= 0 && d.column >= 0);
    check(!formatDiagnostic("scenario.yaml", d).empty());
  }
  if (!decoded.scenario || !cheapToBuild(*decoded.scenario)) return 0;

  const Scenario& scenario = *decoded.scenario;
  kubeletOptionsFor(scenario);
  SimulatedClock clock(scenario.start);
  ClusterState state(clock);
  ModelRegistry models(Random(scenario.seed), scenario.start);
  if (auto built = buildCluster(scenario, state, models); !built) {
    check(!built.error().message.empty());
    const ScenarioDiagnostic d = diagnosticFor(scenario, built.error());
    check(d.error == built.error() && d.line >= 0);
  }
  return 0;
}
