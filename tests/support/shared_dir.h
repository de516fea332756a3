// Locating test inputs: the repository's own files and the shared reference material.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace attune::testing {

// The repository root (for examples/, deploy/ and tests/ data).
std::filesystem::path sourceDir();

// The shared reference directory (fixtures, traces), or nullopt when it is absent. Honours the
// ATTUNE_SHARED_DIR environment variable before the configured default.
std::optional<std::filesystem::path> sharedDir();

// Reads a whole file; fails the current test (and returns "") when it cannot be read.
std::string readFile(const std::filesystem::path& path);

}  // namespace attune::testing

// Skips the current test with a clear message when the shared directory is absent, and binds
// `var` to its path otherwise.
#define ATTUNE_REQUIRE_SHARED_DIR(var)                                              \
  auto var##_opt = ::attune::testing::sharedDir();                                  \
  if (!var##_opt) {                                                                 \
    GTEST_SKIP() << "../shared is absent (set ATTUNE_SHARED_DIR to run this test)"; \
  }                                                                                 \
  const std::filesystem::path var = *var##_opt
