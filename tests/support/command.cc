#include "support/command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attune::testing {

CommandRun runCommand(const std::string& commandLine) {
  CommandRun run;
  std::string errTemplate =
      (std::filesystem::temp_directory_path() / "attune-stderr-XXXXXX").string();
  int fd = mkstemp(errTemplate.data());
  if (fd < 0) return run;
  close(fd);
  const std::string command = commandLine + " 2>" + errTemplate;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe != nullptr) {
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = fread(buf.data(), 1, buf.size(), pipe)) > 0;) {
      run.out.append(buf.data(), n);
    }
    const int status = pclose(pipe);
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::ifstream err(errTemplate);
  std::ostringstream text;
  text << err.rdbuf();
  run.err = text.str();
  std::filesystem::remove(errTemplate);
  return run;
}

}  // namespace attune::testing
