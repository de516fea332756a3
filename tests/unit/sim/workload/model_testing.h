// Helpers for the usage model tests: building models from specs and sampling them.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/random.h"
#include "sim/workload/usage_model_factory.h"

namespace attune::sim::testing {

// A fixed simulated start: 2024-05-01T00:00:00Z.
inline const Time kStart = Time(std::chrono::seconds(1714521600));

// The model `kind` with `params`, on stream `stream` of seed 42; fails the test when invalid.
inline UsageModelPtr model(const std::string& kind,
                           std::map<std::string, double, std::less<>> params,
                           const std::string& stream = "w") {
  auto built = makeUsageModel({kind, std::move(params), {}}, Random(42).fork(stream));
  EXPECT_TRUE(built.has_value()) << (built ? "" : built.error().toString());
  return built ? std::move(*built) : nullptr;
}

// `n` samples taken every `step` from kStart, for a container started at kStart.
inline std::vector<Usage> sample(UsageModel& m, int n, Duration step) {
  std::vector<Usage> out;
  for (int i = 0; i < n; ++i) out.push_back(m.usage(kStart + i * step, i * step));
  return out;
}

}  // namespace attune::sim::testing
