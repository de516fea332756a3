#include <fmt/core.h>

#include "cli/commands.h"

namespace attune::cli {

void addVersionCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand("version", "Print the attune version and API version");
  cmd->callback([&exitCode] {
    fmt::print("attune {}\nAPI: attune.io/v1alpha1 AttunePolicy\n", ATTUNE_VERSION);
    exitCode = 0;
  });
}

}  // namespace attune::cli
