// Reading scenario files (docs/scenarios.md). Nothing here throws.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/yaml/source_map.h"
#include "core/error.h"
#include "sim/scenario/scenario.h"

namespace attune::sim {

// One problem in a scenario file: the error (code, message, field path such as
// "spec.workloads[2].containers[0].model.memoryBytes") and its 1-based source line and column
// (0 when unknown).
using ScenarioDiagnostic = api::SourceDiagnostic;

// The outcome of decoding: a scenario when there is no error; otherwise every error found (wrong
// types, malformed quantities and durations, unknown fields, missing required fields, values out
// of range, references to things that do not exist, invalid usage models and inline
// AttunePolicies), ordered by line.
struct DecodedScenario {
  std::optional<Scenario> scenario;
  std::vector<ScenarioDiagnostic> errors;
};

// Decodes and checks one scenario document. Relative trace paths are resolved against
// `baseDir` (the scenario file's directory); nothing is read from disk. A YAML syntax error is
// reported as the only error, with its position.
DecodedScenario decodeScenario(std::string_view yaml, const std::filesystem::path& baseDir = {});

// Reads `file` and decodes it with baseDir = its directory. kNotFound when it cannot be read
// (the decode errors are in the DecodedScenario, not in the Result).
Result<DecodedScenario> readScenarioFile(const std::filesystem::path& file);

// "FILE:LINE: path: message" (without ":LINE" when the line is unknown, without "path: " when
// the error is not about one field).
std::string formatDiagnostic(std::string_view file, const ScenarioDiagnostic& diagnostic);

// A diagnostic for an error found after decoding (e.g. by Simulation::create), positioned at
// the line where scenario.sources recorded its field (or the field's nearest ancestor).
ScenarioDiagnostic diagnosticFor(const Scenario& scenario, const Error& error);

// The text of examples/scenarios/demo.yaml, compiled into the binary.
std::string_view builtinDemoScenario();
// The built-in demo, decoded (it is checked by tests to decode without error).
DecodedScenario decodeBuiltinDemo();

}  // namespace attune::sim
