#include "recommend/krr_strategy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "recommend_testing.h"

namespace attune::recommend {
namespace {

using namespace attune::literals;
using namespace testing;

TEST(KrrStrategyTest, P95CpuAndBufferedMaxMemory) {
  constexpr std::int64_t kDay = 1440;
  stats::StatsConfig config;
  stats::ContainerStats s(config);
  const auto samples = minuteSamples(
      8 * kDay, [](std::int64_t m) { return 0.1 + 0.4 * scramble(m); },
      [](std::int64_t m) { return 2e8 + 1e8 * scramble(m + 7); });
  feed(s, samples);
  const api::AttunePolicySpec policy;
  const Recommendation r = makeKrrStrategy()->recommend(
      {.stats = s, .now = minute(8 * kDay - 1), .current = {.cpuLimit = 2000_m}, .policy = policy});
  ASSERT_TRUE(r.enoughData) << r.reason;

  const double p95 = lowerQuantile(cpuIn(samples, minute(kDay), minute(8 * kDay)), 0.95) * 1000;
  EXPECT_NEAR(cpuRequest(r), std::ceil(p95), p95 * 0.01 + 1);
  EXPECT_EQ(r.resources.cpuLimit, std::nullopt);  // krr removes CPU limits
  const double memory = maxOf(memoryIn(samples, minute(kDay), minute(8 * kDay))) * 1.15;
  EXPECT_NEAR(memoryRequest(r), memory, memory * 0.01 + 1);
  EXPECT_EQ(r.resources.memoryLimit, r.resources.memoryRequest);
  EXPECT_TRUE(explains(r, "memory: request = limit = max × (1 + 15%)"));
}

// An idle container (zero usage) still gets the policy's minimum, never a zero request.
TEST(KrrStrategyTest, IdleContainerIsClampedToThePolicyMinimum) {
  constexpr std::int64_t kDay = 1440;
  stats::StatsConfig config;
  stats::ContainerStats s(config);
  feed(s, minuteSamples(
              2 * kDay, [](std::int64_t) { return 0.0; }, [](std::int64_t) { return 0.0; }));
  api::AttunePolicySpec policy;
  policy.cpu.minAllowed = 50_m;
  policy.memory.minAllowed = 64_Mi;
  const Recommendation r = makeKrrStrategy()->recommend(
      {.stats = s, .now = minute(2 * kDay - 1), .current = {}, .policy = policy});
  ASSERT_TRUE(r.enoughData) << r.reason;
  EXPECT_EQ(cpuRequest(r), 50);
  EXPECT_EQ(memoryRequest(r), static_cast<double>((64_Mi).value()));
  EXPECT_EQ(r.resources.memoryLimit, r.resources.memoryRequest);  // raised with the request
  EXPECT_TRUE(explains(r, "cpu: clamped to the policy's [50m, 4]"));
}

}  // namespace
}  // namespace attune::recommend
