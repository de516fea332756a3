// Helpers shared by the trace backend tests: test data, scratch files, time points.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/time.h"
#include "metrics/metrics_source.h"

namespace attune::metrics::testing {

// tests/unit/metrics/trace/data in the source tree.
std::filesystem::path dataDir();

// An empty directory for the current test (under GoogleTest's TempDir, named after the test),
// removed when the process exits if every test passed.
std::filesystem::path freshDir();

// Writes `contents` to dir/name and returns the path.
std::filesystem::path writeFile(const std::filesystem::path& dir, std::string_view name,
                                std::string_view contents);

// Loads `contents` as a trace file named `fileName` in a fresh directory, expecting an error;
// returns it with that directory removed from the front of its message.
Error loadError(std::string_view fileName, std::string_view contents);

inline Time unixTime(std::int64_t seconds) { return Time(std::chrono::seconds(seconds)); }

// The raw samples in [start, end] (step 0).
inline Range rawRange(Time start, Time end) { return Range{start, end, Duration::zero()}; }

}  // namespace attune::metrics::testing
