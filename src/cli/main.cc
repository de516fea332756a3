// attune: in-place right-sizing of Kubernetes pod CPU and memory.
#include <CLI/CLI.hpp>

#include <string_view>

#include "cli/commands.h"

namespace {

// Run as `kubectl-attune` (kubectl finds plugins on PATH by that name; a symlink to attune):
// the plugin's commands at the top level, `kubectl attune status -A`.
bool runAsKubectlPlugin(const char* argv0) {
  const std::string_view path(argv0 == nullptr ? "" : argv0);
  const auto slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return name == "kubectl-attune";
}

int parseAndRun(CLI::App& app, int argc, char** argv, const int& exitCode) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports parse errors with codes 100 and up; every usage error of attune exits 2.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  int exitCode = 0;
  if (argc > 0 && runAsKubectlPlugin(argv[0])) {
    CLI::App plugin{
        "kubectl attune: the state of Attune's AttunePolicies, their recommendations "
        "and resizes (docs/kubectl-plugin.md).",
        "kubectl attune"};
    plugin.require_subcommand(1);
    attune::cli::addPluginCommands(plugin, exitCode);
    attune::cli::addVersionCommand(plugin, exitCode);
    return parseAndRun(plugin, argc, argv, exitCode);
  }
  CLI::App app{"attune right-sizes the CPU and memory of running Kubernetes pods in place, safely.",
               "attune"};
  app.require_subcommand(1);
  app.fallthrough(false);
  attune::cli::addBacktestCommand(app, exitCode);
  attune::cli::addControllerCommand(app, exitCode);
  attune::cli::addHpaGuardCommand(app, exitCode);
  attune::cli::addPluginCommand(app, exitCode);
  attune::cli::addPolicyCommand(app, exitCode);
  attune::cli::addRecommendCommand(app, exitCode);
  attune::cli::addSimCommand(app, exitCode);
  attune::cli::addVersionCommand(app, exitCode);
  return parseAndRun(app, argc, argv, exitCode);
}
