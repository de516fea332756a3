#include "stats/store.h"

#include <gtest/gtest.h>

#include "stats_testing.h"

namespace attune::stats {
namespace {

using testing::at;

ContainerKey key(int i) {
  return {"ns", "Deployment/web", "web-" + std::to_string(i), i % 2 ? "app" : "sidecar"};
}

TEST(ContainerStatsStoreTest, KeepsContainersApart) {
  ContainerStatsStore store{StatsConfig{}};
  store.at(key(1)).add({.time = at(0), .cpuCores = 1, .memoryBytes = 10});
  store.at(key(2)).add({.time = at(0), .cpuCores = 2, .memoryBytes = 20});
  EXPECT_EQ(store.size(), 2u);
  EXPECT_NEAR(*store.find(key(2))->cpu().recentQuantile(at(0)), 2, 1e-6);
  EXPECT_EQ(store.find(key(3)), nullptr);
  EXPECT_TRUE(store.erase(key(1)));
  EXPECT_FALSE(store.erase(key(1)));
  EXPECT_EQ(store.size(), 1u);
  EXPECT_GT(store.statsBytes(), 0u);
}

TEST(ContainerStatsStoreTest, CheckpointRoundTrip) {
  ContainerStatsStore store{StatsConfig{}};
  for (int i = 0; i < 5; ++i) {
    for (int m = 0; m < 3000; ++m) {
      store.at(key(i)).add({.time = at(m * 60),
                            .cpuCores = 0.1 * (i + 1) + 0.001 * (m % 17),
                            .memoryBytes = 1e8 + m});
    }
  }
  const auto blob = store.checkpoint();
  auto back = ContainerStatsStore::restore(blob, store.config());
  ASSERT_TRUE(back.has_value()) << back.error().toString();
  ASSERT_EQ(back->size(), 5u);
  const Time now = at(3000 * 60);
  for (int i = 0; i < 5; ++i) {
    const ContainerStats* a = store.find(key(i));
    const ContainerStats* b = back->find(key(i));
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(a->cpu().quantile(now, 0.95), b->cpu().quantile(now, 0.95));
    EXPECT_EQ(a->memory().peak(now), b->memory().peak(now));
    EXPECT_EQ(a->cpu().recentQuantile(now), b->cpu().recentQuantile(now));
  }
  EXPECT_EQ(back->checkpoint(), blob);
  auto truncated =
      ContainerStatsStore::restore(std::span(blob).first(blob.size() / 2), store.config());
  ASSERT_FALSE(truncated.has_value());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos);
}

}  // namespace
}  // namespace attune::stats
