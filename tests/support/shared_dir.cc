#include "support/shared_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace attune::testing {

std::filesystem::path sourceDir() { return ATTUNE_SOURCE_DIR; }

std::optional<std::filesystem::path> sharedDir() {
  std::filesystem::path dir = ATTUNE_SHARED_DIR;
  if (const char* env = std::getenv("ATTUNE_SHARED_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir / "fixtures", ec)) return std::nullopt;
  return dir;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return {};
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace attune::testing
