// The HPA guard against the in-process API server, with a fake query source: what it writes to
// minReplicas, the Events and metrics of each change, and that it never moves the floor on
// missing data.
#include "controller/hpa_guard.h"

#include <gtest/gtest.h>

#include <map>

#include "api/forwarding_cluster_api.h"
#include "core/clock.h"
#include "metrics/exposition/registry.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"

namespace attune::controller {
namespace {

using namespace std::chrono_literals;

// Answers each PromQL from a table; a query not in it has no samples.
class FakeQuery final : public metrics::ScalarQuery {
 public:
  Result<double> evaluate(std::string_view promql, Time) override {
    ++calls;
    auto it = answers.find(std::string(promql));
    if (it == answers.end()) return fail(ErrorCode::kNotFound, "query returned no samples");
    return it->second;
  }
  std::map<std::string, Result<double>> answers;
  int calls = 0;
};

// Makes the next updateHpa stale: someone else writes the HPA first.
class RacingApi final : public api::ForwardingClusterApi {
 public:
  RacingApi(api::ClusterApi& inner, sim::ClusterState& state)
      : ForwardingClusterApi(inner), state_(state) {}
  Result<api::HorizontalPodAutoscaler> updateHpa(const api::HorizontalPodAutoscaler& hpa) override {
    if (race) {
      race = false;
      api::HorizontalPodAutoscaler other = state_.hpas.get("shop", hpa.metadata.name).value();
      other.metadata.labels["touched"] = "yes";
      EXPECT_TRUE(inner().updateHpa(other));
    }
    return inner().updateHpa(hpa);
  }
  bool race = false;

 private:
  sim::ClusterState& state_;
};

constexpr std::string_view kQuery = "sum(rate(nginx_http_requests_total{app='web'}[5m]))";

class HpaGuardTest : public ::testing::Test {
 protected:
  SimulatedClock clock_{Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5))};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  RacingApi api_{cluster_, state_};
  FakeQuery query_;
  EventRecorder events_{api_, clock_};
  metrics::Registry registry_;
  HpaGuardMetrics metrics_{registry_};
  HpaGuard guard_{api_, query_, events_, metrics_, clock_, {}};

  // An HPA over Deployment `name` in `shop`, with 100 current replicas (the seed's example).
  void addHpa(const std::string& name, api::StringMap annotations, std::int32_t minReplicas = 20,
              std::int32_t maxReplicas = 200, std::int32_t currentReplicas = 100) {
    api::HorizontalPodAutoscaler hpa;
    hpa.metadata.namespace_ = "shop";
    hpa.metadata.name = name;
    hpa.metadata.uid = "uid-" + name;
    hpa.metadata.annotations = std::move(annotations);
    hpa.spec.scaleTargetRef = {"apps/v1", "Deployment", name};
    hpa.spec.minReplicas = minReplicas;
    hpa.spec.maxReplicas = maxReplicas;
    hpa.status.currentReplicas = currentReplicas;
    ASSERT_TRUE(state_.hpas.create(hpa));
  }
  void addReplicaSet(const std::string& name, const std::string& deployment,
                     std::int32_t replicas) {
    api::ReplicaSet rs;
    rs.metadata.namespace_ = "shop";
    rs.metadata.name = name;
    rs.metadata.ownerReferences.push_back({"apps/v1", "Deployment", deployment, "d-uid", true});
    rs.status.replicas = replicas;
    ASSERT_TRUE(state_.replicaSets.create(rs));
  }
  std::optional<std::int32_t> minReplicas(const std::string& name) {
    return cluster_.getHpa("shop", name).value().spec.minReplicas;
  }
  HpaGuardSummary pass() {
    auto summary = guard_.runPass();
    EXPECT_TRUE(summary) << summary.error().toString();
    return summary.value_or(HpaGuardSummary{});
  }
  std::vector<api::Event> eventsWith(std::string_view reason) {
    std::vector<api::Event> out;
    auto all = cluster_.listEvents({});
    for (api::Event& e : all.value().items) {
      if (e.reason == reason) out.push_back(std::move(e));
    }
    return out;
  }
  double metric(metrics::MetricFamily& family, const std::string& hpa) {
    return family.value({"shop", hpa});
  }
};

api::StringMap ratioAnnotations(const std::string& ratio) {
  return {{"estafette.io/hpa-scaler", "true"},
          {"estafette.io/hpa-scaler-scale-down-max-ratio", ratio}};
}

api::StringMap queryAnnotations() {
  return {{"estafette.io/hpa-scaler", "true"},
          {"estafette.io/hpa-scaler-prometheus-query", std::string(kQuery)},
          {"estafette.io/hpa-scaler-requests-per-replica", "2.5"},
          {"estafette.io/hpa-scaler-delta", "-0.5"}};
}

TEST_F(HpaGuardTest, RatioRaisesTheSeedsFloorTo80WithAnEventAndMetrics) {
  addHpa("web", ratioAnnotations("0.2"));
  addHpa("plain", {{"estafette.io/hpa-scaler-scale-down-max-ratio", "0.2"}});  // not enabled
  const HpaGuardSummary s = pass();
  EXPECT_EQ(s.guarded, 1u);
  EXPECT_EQ(s.changed, 1u);
  EXPECT_EQ(minReplicas("web"), 80);
  EXPECT_EQ(minReplicas("plain"), 20) << "an HPA without estafette.io/hpa-scaler is not touched";

  const auto changed = eventsWith(kMinReplicasChanged);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].type, "Normal");
  EXPECT_EQ(changed[0].involvedObject.kind, "HorizontalPodAutoscaler");
  EXPECT_EQ(changed[0].involvedObject.name, "web");
  EXPECT_EQ(changed[0].message, "minReplicas 20 → 80: scale-down ratio floor 80 of 100 replicas");
  EXPECT_EQ(metric(metrics_.minReplicas, "web"), 80);
  EXPECT_EQ(metric(metrics_.changes, "web"), 1);

  // Nothing changed since: no write, no event, no count.
  EXPECT_EQ(pass().changed, 0u);
  EXPECT_EQ(eventsWith(kMinReplicasChanged)[0].count, 1);
  EXPECT_EQ(metric(metrics_.changes, "web"), 1);
}

TEST_F(HpaGuardTest, QueryFloorFollowsTheRequestRateBothWays) {
  addHpa("web", queryAnnotations(), 3, 50, 4);
  query_.answers.emplace(std::string(kQuery), 30.0);  // ceil(-0.5 + 30 / 2.5) = 12
  pass();
  EXPECT_EQ(minReplicas("web"), 12);
  query_.answers.insert_or_assign(std::string(kQuery), 10.0);  // ceil(-0.5 + 4) = 4
  pass();
  EXPECT_EQ(minReplicas("web"), 4);
  EXPECT_EQ(metric(metrics_.changes, "web"), 2);
  const auto changed = eventsWith(kMinReplicasChanged);
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0].message, "minReplicas 3 → 12: query floor 12 (result 30)");
}

TEST_F(HpaGuardTest, AFailedOrEmptyQueryLeavesMinReplicasAndWarns) {
  api::StringMap both = queryAnnotations();
  both["estafette.io/hpa-scaler-scale-down-max-ratio"] = "0.2";  // would give 80 on its own
  addHpa("web", both);                                           // its query fails
  api::StringMap empty = queryAnnotations();
  empty["estafette.io/hpa-scaler-prometheus-query"] = "absent_series";  // no samples
  addHpa("api", empty);
  query_.answers.emplace(std::string(kQuery),
                         fail(ErrorCode::kUnavailable, "prometheus query failed (refused)"));

  for (int i = 0; i < 2; ++i) {
    const HpaGuardSummary s = pass();
    EXPECT_EQ(s.queryFailures, 2u);
    EXPECT_EQ(s.changed, 0u);
    clock_.advance(1min);
  }
  EXPECT_EQ(minReplicas("web"), 20);
  EXPECT_EQ(minReplicas("api"), 20);
  const auto warnings = eventsWith(kHpaGuardQueryFailed);
  ASSERT_EQ(warnings.size(), 2u);
  for (const api::Event& w : warnings) {
    EXPECT_EQ(w.type, "Warning");
    EXPECT_EQ(w.count, 2) << "one Event per HPA, counted";
  }
  EXPECT_NE(warnings[0].message.find("minReplicas stays 20"), std::string::npos)
      << warnings[0].message;
  EXPECT_EQ(metric(metrics_.queryFailures, "web"), 2);
  EXPECT_EQ(metric(metrics_.minReplicas, "web"), 20);
  EXPECT_TRUE(eventsWith(kMinReplicasChanged).empty());
}

TEST_F(HpaGuardTest, RolloutWithTwoNonEmptyReplicaSetsSkipsTheRatioStep) {
  api::StringMap annotations = ratioAnnotations("0.2");
  annotations["estafette.io/hpa-scaler-enable-scale-down-ratio-deployment-checking"] = "true";
  addHpa("web", annotations, 20, 200, 130);
  addReplicaSet("web-old", "web", 60);
  addReplicaSet("web-new", "web", 70);
  pass();
  EXPECT_EQ(minReplicas("web"), 20) << "surging replicas must not raise the floor";

  ASSERT_TRUE(state_.replicaSets.modify("shop", "web-old", "", [](api::ReplicaSet& rs) {
    rs.status.replicas = 0;
    return Result<sim::Change>(sim::Change::kSpec);
  }));
  pass();
  EXPECT_EQ(minReplicas("web"), 104);  // ceil(130 × 0.8)
}

TEST_F(HpaGuardTest, AConflictIsRetriedAtTheNextInterval) {
  addHpa("web", ratioAnnotations("0.2"));
  api_.race = true;
  HpaGuardSummary s = pass();
  EXPECT_EQ(s.conflicts, 1u);
  EXPECT_EQ(minReplicas("web"), 20);
  EXPECT_TRUE(eventsWith(kMinReplicasChanged).empty());
  s = pass();
  EXPECT_EQ(s.changed, 1u);
  EXPECT_EQ(minReplicas("web"), 80);
  EXPECT_EQ(cluster_.getHpa("shop", "web").value().metadata.labels.at("touched"), "yes");
}

TEST_F(HpaGuardTest, NeverAboveMaxReplicas) {
  addHpa("web", queryAnnotations(), 3, 10, 4);
  query_.answers.emplace(std::string(kQuery), 1000.0);
  pass();
  EXPECT_EQ(minReplicas("web"), 10);
}

TEST_F(HpaGuardTest, AnInvalidAnnotationWarnsAndNamesIt) {
  api::StringMap annotations = ratioAnnotations("20%");
  addHpa("web", annotations);
  EXPECT_EQ(pass().failed, 1u);
  EXPECT_EQ(minReplicas("web"), 20);
  const auto warnings = eventsWith(kHpaGuardInvalidAnnotation);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].message,
            "estafette.io/hpa-scaler-scale-down-max-ratio: want a number, got \"20%\"; "
            "minReplicas stays 20");
}

TEST_F(HpaGuardTest, RunsOncePerInterval) {
  addHpa("web", queryAnnotations(), 3, 50, 4);
  query_.answers.emplace(std::string(kQuery), 30.0);
  EXPECT_TRUE(guard_.runDue());
  EXPECT_FALSE(guard_.runDue());
  clock_.advance(59s);
  EXPECT_FALSE(guard_.runDue());
  clock_.advance(1s);
  EXPECT_TRUE(guard_.runDue());
  EXPECT_EQ(query_.calls, 2);
}

}  // namespace
}  // namespace attune::controller
