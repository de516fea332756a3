// The HPA guard of a shard (HpaGuardOptions::shard, docs/sharding.md) guards the HPAs of its own
// namespaces only: over four namespaces and two shards, each HPA is guarded by exactly one shard
// and its minReplicas written by that shard alone.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "controller/hpa_guard.h"
#include "controller/shard.h"
#include "core/clock.h"
#include "metrics/exposition/registry.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"

namespace attune::controller {
namespace {

class NoQuery final : public metrics::ScalarQuery {
 public:
  Result<double> evaluate(std::string_view, Time) override {
    return fail(ErrorCode::kNotFound, "query returned no samples");
  }
};

TEST(HpaGuardShardTest, EachShardGuardsTheHpasOfItsOwnNamespacesOnly) {
  SimulatedClock clock{Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5))};
  sim::ClusterState state{clock};
  sim::Cluster cluster{state};
  const std::vector<std::string> namespaces{"team-a", "team-b", "team-c", "team-d"};
  std::map<int, std::size_t> owned;
  for (const std::string& ns : namespaces) {
    ++owned[shardOfNamespace(ns, 2)];
    api::HorizontalPodAutoscaler hpa;
    hpa.metadata.namespace_ = ns;
    hpa.metadata.name = "web";
    hpa.metadata.uid = "uid-" + ns;
    // A floor of at least 20 % of the 100 current replicas.
    hpa.metadata.annotations = {{"estafette.io/hpa-scaler", "true"},
                                {"estafette.io/hpa-scaler-scale-down-max-ratio", "0.2"}};
    hpa.spec.scaleTargetRef = {"apps/v1", "Deployment", "web"};
    hpa.spec.minReplicas = 20;
    hpa.spec.maxReplicas = 200;
    hpa.status.currentReplicas = 100;
    ASSERT_TRUE(state.hpas.create(hpa));
  }
  ASSERT_EQ(owned.size(), 2u) << "every namespace on one shard";

  NoQuery query;
  std::size_t guarded = 0;
  for (int shard = 0; shard < 2; ++shard) {
    EventRecorder events(cluster, clock);
    metrics::Registry registry;
    HpaGuardMetrics metrics(registry);
    HpaGuard guard(cluster, query, events, metrics, clock,
                   {.namespaces = {}, .shard = {.shard = shard, .total = 2}, .interval = {}});
    auto summary = guard.runPass();
    ASSERT_TRUE(summary.has_value()) << summary.error().toString();
    EXPECT_EQ(summary->guarded, owned[shard]) << "shard " << shard;
    EXPECT_EQ(summary->changed, owned[shard]) << "shard " << shard;
    guarded += summary->guarded;
    // What this shard wrote so far: the floors of its own namespaces, nothing else.
    for (const std::string& ns : namespaces) {
      const auto min = cluster.getHpa(ns, "web").value().spec.minReplicas;
      if (shardOfNamespace(ns, 2) == shard) {
        EXPECT_EQ(min, 80) << ns;
      } else if (shardOfNamespace(ns, 2) > shard) {
        EXPECT_EQ(min, 20) << ns << " written by shard " << shard;
      }
    }
  }
  EXPECT_EQ(guarded, namespaces.size());
}

}  // namespace
}  // namespace attune::controller
