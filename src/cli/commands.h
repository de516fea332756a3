// Subcommand registration for the `attune` binary. Each function adds one subcommand tree to
// the application; the subcommand's callback stores its process exit code in `exitCode`.
#pragma once

#include <CLI/CLI.hpp>

namespace attune::cli {

// `attune controller --prometheus-url URL [flags]` (docs/operator.md)
void addControllerCommand(CLI::App& app, int& exitCode);
// `attune hpa-guard --prometheus-url URL [flags]` (docs/hpa.md)
void addHpaGuardCommand(CLI::App& app, int& exitCode);
// `attune policy validate FILE... [-o yaml|json]`
void addPolicyCommand(CLI::App& app, int& exitCode);
// `attune recommend (--prometheus URL | --trace PATH...) [flags]` (docs/recommend.md)
void addRecommendCommand(CLI::App& app, int& exitCode);
// `attune backtest [SCENARIO | --trace PATH] [flags]`, also under its old name `attune simulate`:
// the controller backtested on the simulated cluster (docs/simulate-report.md)
void addBacktestCommand(CLI::App& app, int& exitCode);
// `attune sim [run] [SCENARIO] [flags]` and `attune sim serve`: the simulated cluster alone
// (docs/scenarios.md, docs/sim-serve.md)
void addSimCommand(CLI::App& app, int& exitCode);
// `attune plugin (status|recommendations|explain|history|preview|savings) [flags]`: the kubectl
// plugin's commands under the attune binary (docs/kubectl-plugin.md)
void addPluginCommand(CLI::App& app, int& exitCode);
// The same commands at the top of `app`: the binary run as `kubectl-attune`
void addPluginCommands(CLI::App& app, int& exitCode);
// `attune version`
void addVersionCommand(CLI::App& app, int& exitCode);

}  // namespace attune::cli
