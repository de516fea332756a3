// Running a program as a user would, for integration tests.
#pragma once

#include <string>

namespace attune::testing {

struct CommandRun {
  int exitCode = -1;  // -1 when the program did not exit normally
  std::string out;    // standard output
  std::string err;    // standard error
};

// Runs `commandLine` through /bin/sh and collects its exit code, stdout and stderr.
CommandRun runCommand(const std::string& commandLine);

}  // namespace attune::testing
