// Shard ownership (controller/shard.h): the namespace → shard function is balanced, moves few
// namespaces when the number of shards changes, and never changes between releases; the flags'
// assignment and the StatefulSet ordinal are checked with errors naming the flag.
#include "controller/shard.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace attune::controller {
namespace {

// 10,000 names shaped like real namespaces: teams, environments, numbered tenants.
std::vector<std::string> namespaces(int count) {
  static const char* const kPrefixes[] = {"team", "payments", "prod", "staging", "tenant", "ml"};
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    names.push_back(std::string(kPrefixes[i % 6]) + "-" + std::to_string(i));
  }
  return names;
}

TEST(ShardTest, TenThousandNamespacesSpreadEvenlyOverThreeFiveAndSevenShards) {
  const auto names = namespaces(10000);
  for (const int total : {3, 5, 7}) {
    std::vector<int> counts(static_cast<std::size_t>(total), 0);
    for (const std::string& ns : names) {
      const int shard = shardOfNamespace(ns, total);
      ASSERT_GE(shard, 0);
      ASSERT_LT(shard, total);
      ++counts[static_cast<std::size_t>(shard)];
    }
    const double fair = 10000.0 / total;
    // A uniformly random assignment's standard deviation: sqrt(n p (1 - p)), about 1.4% of a
    // fair share at three shards, 2.4% at seven. Every shard within four of them, and within 2%
    // of a third at three shards.
    const double sigma = std::sqrt(10000.0 * (1.0 / total) * (1.0 - 1.0 / total));
    for (int s = 0; s < total; ++s) {
      const int owned = counts[static_cast<std::size_t>(s)];
      EXPECT_LT(std::abs(owned - fair), 4 * sigma)
          << "shard " << s << " of " << total << ": " << owned;
      if (total == 3) {
        EXPECT_LT(std::abs(owned - fair) / fair, 0.02) << "shard " << s << ": " << owned;
      }
    }
  }
}

TEST(ShardTest, AddingAShardMovesAboutOneInMPlusOneNamespacesAllToTheNewShard) {
  const auto names = namespaces(10000);
  for (int total = 1; total <= 8; ++total) {
    int moved = 0;
    for (const std::string& ns : names) {
      const int before = shardOfNamespace(ns, total);
      const int after = shardOfNamespace(ns, total + 1);
      if (before == after) continue;
      ++moved;
      EXPECT_EQ(after, total) << ns << " moved from " << before << " to an old shard";
    }
    const double expected = 10000.0 / (total + 1);
    EXPECT_LT(std::abs(moved - expected) / expected, 0.1)
        << total << " -> " << total + 1 << " shards moved " << moved;
  }
}

TEST(ShardTest, RemovingTheLastShardMovesOnlyItsNamespaces) {
  const auto names = namespaces(10000);
  for (int total = 2; total <= 8; ++total) {
    for (const std::string& ns : names) {
      const int before = shardOfNamespace(ns, total);
      if (before != total - 1) {
        EXPECT_EQ(shardOfNamespace(ns, total - 1), before) << ns;
      }
    }
  }
}

TEST(ShardTest, ModuloHashingWouldMoveMostNamespacesWhereJumpHashingMovesAQuarter) {
  // The reason for a consistent hash: 3 → 4 shards with hash % M moves about three quarters.
  const auto names = namespaces(10000);
  int jumpMoved = 0;
  int moduloMoved = 0;
  for (const std::string& ns : names) {
    if (shardOfNamespace(ns, 3) != shardOfNamespace(ns, 4)) ++jumpMoved;
    if (namespaceKey(ns) % 3 != namespaceKey(ns) % 4) ++moduloMoved;
  }
  EXPECT_LT(jumpMoved, 2750);
  EXPECT_GT(moduloMoved, 7000);
}

TEST(ShardTest, TheMappingIsPinnedSoThatReleasesAgree) {
  // Changing these values would make two versions disagree about owners during an upgrade.
  EXPECT_EQ(namespaceKey(""), 17665956581633026203ULL);
  EXPECT_EQ(shardOfNamespace("default", 3), 2);
  EXPECT_EQ(shardOfNamespace("kube-system", 3), 1);
  EXPECT_EQ(shardOfNamespace("apps", 2), 1);
  EXPECT_EQ(shardOfNamespace("payments-7", 10), 0);
  EXPECT_EQ(jumpConsistentHash(0, 1), 0);
  EXPECT_EQ(jumpConsistentHash(123456789, 1000), 294);
}

TEST(ShardTest, OneShardOwnsEverythingAndClusterScopedObjectsBelongToShardZero) {
  const ShardAssignment single;
  EXPECT_FALSE(single.sharded());
  EXPECT_TRUE(single.owns("anything"));
  EXPECT_TRUE(single.owns(""));
  const ShardAssignment zero{.shard = 0, .total = 3};
  const ShardAssignment two{.shard = 2, .total = 3};
  EXPECT_TRUE(zero.owns(""));
  EXPECT_FALSE(two.owns(""));
  EXPECT_TRUE(zero.ownsClusterScope());
  EXPECT_FALSE(two.ownsClusterScope());
  int owners = 0;
  for (int s = 0; s < 3; ++s) owners += ShardAssignment{.shard = s, .total = 3}.owns("apps");
  EXPECT_EQ(owners, 1);
}

TEST(ShardTest, OrdinalsAreReadFromStatefulSetPodNames) {
  EXPECT_EQ(ordinalFromPodName("attune-controller-2", "POD_NAME").value(), 2);
  EXPECT_EQ(ordinalFromPodName("a-0", "POD_NAME").value(), 0);
  EXPECT_EQ(ordinalFromPodName("attune-17", "POD_NAME").value(), 17);
  for (const std::string bad : {"", "attune", "attune-", "-3", "attune-x1", "attune-1x",
                                "attune-01", "attune-+1", "attune-1234567890"}) {
    auto got = ordinalFromPodName(bad, "POD_NAME");
    ASSERT_FALSE(got.has_value()) << bad;
    EXPECT_EQ(got.error().field, "POD_NAME") << bad;
    EXPECT_NE(got.error().message.find("-<ordinal>"), std::string::npos) << got.error().message;
  }
}

TEST(ShardTest, TheFlagsGiveAnAssignmentOrAnErrorNamingTheFlag) {
  auto plain = shardAssignment(std::nullopt, 1, std::nullopt);
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->shard, 0);
  EXPECT_EQ(plain->total, 1);
  auto second = shardAssignment(1, 3, std::nullopt);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->shard, 1);
  // Six replicas of three shards: ordinals 1 and 4 both serve shard 1.
  EXPECT_EQ(shardAssignment(std::nullopt, 3, "attune-1")->shard, 1);
  EXPECT_EQ(shardAssignment(std::nullopt, 3, "attune-4")->shard, 1);
  EXPECT_EQ(shardAssignment(std::nullopt, 3, "attune-5")->shard, 2);

  EXPECT_EQ(shardAssignment(std::nullopt, 0, std::nullopt).error().field, "--total-shards");
  EXPECT_EQ(shardAssignment(3, 3, std::nullopt).error().field, "--shard");
  EXPECT_EQ(shardAssignment(-1, 3, std::nullopt).error().field, "--shard");
  EXPECT_EQ(shardAssignment(0, 3, "attune-0").error().field, "--shard");
  auto badPod = shardAssignment(std::nullopt, 3, "attune-controller");
  ASSERT_FALSE(badPod.has_value());
  EXPECT_EQ(badPod.error().field, "POD_NAME (--shard-from-pod-name)");
}

TEST(ShardTest, EachShardHasItsOwnLease) {
  EXPECT_EQ(shardLeaseName("attune-leader", {.shard = 0, .total = 1}), "attune-leader");
  EXPECT_EQ(shardLeaseName("attune-leader", {.shard = 0, .total = 3}), "attune-leader-shard-0");
  EXPECT_EQ(shardLeaseName("attune-leader", {.shard = 2, .total = 3}), "attune-leader-shard-2");
}

}  // namespace
}  // namespace attune::controller
