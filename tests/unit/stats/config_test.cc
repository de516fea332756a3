#include "stats/config.h"

#include <gtest/gtest.h>

namespace attune::stats {
namespace {

using namespace std::chrono_literals;

TEST(StatsConfigTest, HistoryCoveringRoundsUpToWholeDaysWithinTheLimits) {
  EXPECT_EQ(historyCovering(10min), 24h);
  EXPECT_EQ(historyCovering(24h), 24h);
  EXPECT_EQ(historyCovering(24h + 1s), 48h);
  EXPECT_EQ(historyCovering(168h), 168h);
  EXPECT_EQ(historyCovering(24h * 100), 24h * 62);
  StatsConfig config;
  config.cpu.history = config.memory.history = historyCovering(90min);
  EXPECT_TRUE(config.validate().has_value());
}

TEST(StatsConfigTest, AHistoryOfPartDaysIsRejectedWithItsField) {
  StatsConfig config;
  config.memory.history = 36h;
  auto valid = config.validate();
  ASSERT_FALSE(valid.has_value());
  EXPECT_EQ(valid.error().field, "memory.history");
}

}  // namespace
}  // namespace attune::stats
