// Fuzzes the trace-file readers: the input is written to a per-process temporary file "7.csv"
// (plain text, or gzip data, which LineReader inflates) and read with readTraceFiles, so the
// header picks the Bitbrains GWA-T-12 or the Attune CSV reader. For any input nothing crashes or
// throws, and every error names the file: "FILE:LINE: message" (or "FILE: empty file"). For
// data read without error, after finalize() every series is in strictly increasing time order
// with finite, non-negative usage values, and each container's first row is not after its last.
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <source_location>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "metrics/trace/trace_files.h"

namespace {

using namespace attune;
using namespace attune::metrics;

using attune::fuzz::check;

// The temporary trace file of this process, in a directory removed at exit.
struct TempTrace {
  std::filesystem::path dir;
  std::filesystem::path file;

  TempTrace() {
    dir = std::filesystem::temp_directory_path() /
          ("attune-fuzz-trace-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    file = dir / "7.csv";
  }
  ~TempTrace() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

template <typename Series>
void checkIncreasing(const Series& series) {
  for (std::size_t i = 1; i < series.size(); ++i) check(series[i - 1].time < series[i].time);
}

void checkUsage(const std::vector<Point>& points) {
  checkIncreasing(points);
  for (const Point& p : points) check(std::isfinite(p.value) && p.value >= 0);
}

void checkError(const Error& error, const std::string& file) {
  const std::string& m = error.message;
  check(m.starts_with(file + ":"));
  std::size_t i = file.size() + 1;
  if (m.compare(i, std::string::npos, " empty file") == 0) return;
  const std::size_t digits = i;
  while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) ++i;
  check(i > digits && i < m.size() && m[i] == ':');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const TempTrace temp;
  {
    std::ofstream out(temp.file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    check(static_cast<bool>(out));
  }

  auto trace = readTraceFiles({temp.file}, "bitbrains");
  if (!trace) {
    check(trace.error().code == ErrorCode::kInvalidArgument);
    checkError(trace.error(), temp.file.string());
    return 0;
  }
  for (const auto& [id, container] : trace->containers()) {
    checkUsage(container.cpuUsage);
    checkUsage(container.memoryWorkingSet);
    checkIncreasing(container.psiCpuWaiting);
    checkIncreasing(container.cpuThrottleRatio);
    checkIncreasing(container.resources);
    checkIncreasing(container.restarts);
    checkIncreasing(container.oomKills);
    check(container.first <= container.last);
  }
  return 0;
}
