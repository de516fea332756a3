// checkMemoryLimitDecrease: the version rule, the usage floor with its margin, and failing
// closed on an unknown version or usage.
#include "rollout/memory_limit_decrease.h"

#include <gtest/gtest.h>

#include "support/pod_builder.h"

namespace attune::rollout {
namespace {

using namespace attune::literals;
using attune::testing::PodBuilder;
using attune::testing::resources;

api::Pod pod() {
  return PodBuilder("team", "web-0")
      .container("app", resources("250m", "256Mi", "", "1Gi"))
      .build();
}

// app: memory limit 1Gi -> `to`.
std::vector<ContainerChange> lowerTo(Bytes to) {
  api::ResourceValues current{.cpuRequest = 250_m, .memoryRequest = 256_Mi, .memoryLimit = 1_Gi};
  api::ResourceValues target = current;
  target.memoryLimit = to;
  return {{"app", current, target}};
}

std::optional<api::ServerVersion> v(std::string_view text) {
  return *api::parseServerVersion(text);
}

// `b` for container app of pod web-0 in team, nothing for any other.
ContainerMemoryUsage using_(Bytes b) {
  return [b](const api::Pod& p, std::string_view container) -> std::optional<Bytes> {
    if (p.metadata.namespace_ != "team" || p.metadata.name != "web-0" || container != "app") {
      return std::nullopt;
    }
    return b;
  };
}

TEST(MemoryLimitDecreaseCheckTest, Before134OnlyARestartContainerPolicyPasses) {
  auto skip = checkMemoryLimitDecrease(pod(), lowerTo(512_Mi), v("v1.33.1"), using_(100_Mi), 10);
  ASSERT_TRUE(skip);
  EXPECT_EQ(skip->reason, SkipReason::kMemoryLimitDecrease);
  EXPECT_NE(skip->message.find("v1.33.1"), std::string::npos) << skip->message;
  // Unknown version: the older rule.
  skip = checkMemoryLimitDecrease(pod(), lowerTo(512_Mi), std::nullopt, using_(100_Mi), 10);
  ASSERT_TRUE(skip);
  EXPECT_EQ(skip->reason, SkipReason::kMemoryLimitDecrease);

  api::Pod restarts = pod();
  restarts.spec.containers[0].resizePolicy = {{"memory", "RestartContainer"}};
  EXPECT_FALSE(checkMemoryLimitDecrease(restarts, lowerTo(512_Mi), v("v1.33.1"), {}, 10));
}

TEST(MemoryLimitDecreaseCheckTest, From134TheLimitMustClearUsagePlusTheMargin) {
  EXPECT_FALSE(checkMemoryLimitDecrease(pod(), lowerTo(512_Mi), v("v1.34.0"), using_(400_Mi), 10));
  // 480Mi + 10 % = 528Mi > 512Mi.
  auto skip = checkMemoryLimitDecrease(pod(), lowerTo(512_Mi), v("v1.34.0"), using_(480_Mi), 10);
  ASSERT_TRUE(skip);
  EXPECT_EQ(skip->reason, SkipReason::kMemoryLimitUsageFloor);
  // Margin 0: strictly above the usage.
  EXPECT_TRUE(checkMemoryLimitDecrease(pod(), lowerTo(512_Mi), v("v1.35.0"), using_(512_Mi), 0));
  EXPECT_FALSE(checkMemoryLimitDecrease(pod(), lowerTo(512_Mi), v("v1.35.0"), using_(511_Mi), 0));
}

TEST(MemoryLimitDecreaseCheckTest, NoUsageFailsClosedAndIncreasesAreNotChecked) {
  auto skip = checkMemoryLimitDecrease(pod(), lowerTo(512_Mi), v("v1.34.0"), {}, 10);
  ASSERT_TRUE(skip);
  EXPECT_EQ(skip->reason, SkipReason::kMemoryLimitUsageFloor);
  EXPECT_FALSE(checkMemoryLimitDecrease(pod(), lowerTo(2_Gi), v("v1.33.0"), {}, 10));
}

}  // namespace
}  // namespace attune::rollout
