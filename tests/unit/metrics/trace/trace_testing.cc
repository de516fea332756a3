#include "trace_testing.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <system_error>
#include <vector>

#include "metrics/trace/trace_source.h"
#include "support/shared_dir.h"

namespace attune::metrics::testing {

std::filesystem::path dataDir() {
  return attune::testing::sourceDir() / "tests/unit/metrics/trace/data";
}

namespace {

// The directories freshDir() made in this process: removed at its exit when every test passed
// (kept for a look otherwise).
std::vector<std::filesystem::path>& madeDirs() {
  static std::vector<std::filesystem::path> dirs;
  return dirs;
}

void removeMadeDirs() {
  if (!::testing::UnitTest::GetInstance()->Passed()) return;
  for (const auto& dir : madeDirs()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
}

}  // namespace

std::filesystem::path freshDir() {
  if (madeDirs().empty()) std::atexit(removeMadeDirs);
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("attune_trace_") + info->test_suite_name() + "_" + info->name();
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  madeDirs().push_back(dir);
  return dir;
}

std::filesystem::path writeFile(const std::filesystem::path& dir, std::string_view name,
                                std::string_view contents) {
  const auto path = dir / name;
  std::ofstream out(path, std::ios::binary);
  out << contents;
  return path;
}

Error loadError(std::string_view fileName, std::string_view contents) {
  const auto dir = freshDir();
  auto source = TraceSource::load({writeFile(dir, fileName, contents)});
  EXPECT_FALSE(source.has_value()) << "loading " << fileName << " should fail";
  if (source) return Error{};
  Error error = source.error();
  const std::string prefix = (dir / "").string();
  if (error.message.starts_with(prefix)) error.message.erase(0, prefix.size());
  return error;
}

}  // namespace attune::metrics::testing
