// attune: in-place right-sizing of Kubernetes pod CPU and memory.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"attune right-sizes the CPU and memory of running Kubernetes pods in place, safely.",
               "attune"};
  app.require_subcommand(1);
  app.fallthrough(false);
  int exitCode = 0;
  attune::cli::addBacktestCommand(app, exitCode);
  attune::cli::addControllerCommand(app, exitCode);
  attune::cli::addHpaGuardCommand(app, exitCode);
  attune::cli::addPolicyCommand(app, exitCode);
  attune::cli::addRecommendCommand(app, exitCode);
  attune::cli::addSimCommand(app, exitCode);
  attune::cli::addVersionCommand(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports parse errors with codes 100 and up; every usage error of attune exits 2.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return exitCode;
}
