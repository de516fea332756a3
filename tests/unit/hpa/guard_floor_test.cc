// The HPA guard's floor arithmetic against the examples of estafette-k8s-hpa-scaler's README.
#include "hpa/guard_floor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace attune::hpa {
namespace {

// What the HPA itself does with a utilization target (the seed's arithmetic): current ×
// (utilization / target), rounded up, kept within [minReplicas, maxReplicas].
std::int32_t hpaReplicas(std::int32_t current, double utilization, double target,
                         std::int32_t minReplicas, std::int32_t maxReplicas) {
  const auto desired = static_cast<std::int32_t>(std::ceil(current * utilization / target));
  return std::clamp(desired, minReplicas, maxReplicas);
}

GuardSettings ratio(double r) {
  GuardSettings s;
  s.scaleDownMaxRatio = r;
  return s;
}

GuardSettings query(double requestsPerReplica, double delta) {
  GuardSettings s;
  s.query = "sum(rate(nginx_http_requests_total{app='my-app'}[5m]))";
  s.requestsPerReplica = requestsPerReplica;
  s.delta = delta;
  return s;
}

api::ReplicaSet replicaSet(const std::string& name, const std::string& deployment,
                           std::int32_t replicas) {
  api::ReplicaSet rs;
  rs.metadata.name = name;
  rs.metadata.ownerReferences.push_back({"apps/v1", "Deployment", deployment, "uid", true});
  rs.status.replicas = replicas;
  return rs;
}

TEST(GuardFloor, RatioKeepsTheSeedsHpaAtEightyInsteadOfTwenty) {
  // 100 replicas at 10 % CPU against a 50 % target: the HPA alone goes to 20.
  EXPECT_EQ(hpaReplicas(100, 10, 50, 1, 200), 20);
  const FloorDecision d = decideFloor(ratio(0.2), {.currentReplicas = 100, .maxReplicas = 200});
  ASSERT_TRUE(d.minReplicas);
  EXPECT_EQ(*d.ratioFloor, 80);
  EXPECT_EQ(*d.minReplicas, 80);
  EXPECT_GE(hpaReplicas(100, 10, 50, *d.minReplicas, 200), 80);
}

TEST(GuardFloor, RatioStepsDownGeometricallyAndAlwaysLetsOneReplicaGo) {
  EXPECT_EQ(decideFloor(ratio(0.2), {.currentReplicas = 80, .maxReplicas = 200}).minReplicas, 64);
  EXPECT_EQ(decideFloor(ratio(0.29), {.currentReplicas = 100, .maxReplicas = 200}).minReplicas, 71);
  // 3 × 0.2 < 1: ceil(3 × 0.8) = 3 would pin the HPA at 3 for ever; one replica may go.
  EXPECT_EQ(decideFloor(ratio(0.2), {.currentReplicas = 3, .maxReplicas = 10}).minReplicas, 2);
  EXPECT_EQ(decideFloor(ratio(0.2), {.currentReplicas = 1, .maxReplicas = 10}).minReplicas, 1);
  // No current replicas (status not written yet): nothing to keep, minReplicas untouched.
  EXPECT_FALSE(decideFloor(ratio(0.2), {.currentReplicas = 0, .maxReplicas = 10}).minReplicas);
}

TEST(GuardFloor, QueryFloorIsCeilOfDeltaPlusResultOverRequestsPerReplica) {
  // The README's annotations: requestsPerReplica 2.5, delta -0.5. 30 req/s → ceil(11.5) = 12.
  FloorDecision d = decideFloor(query(2.5, -0.5), {.queryResult = 30, .maxReplicas = 50});
  EXPECT_EQ(d.queryFloor, 12);
  EXPECT_EQ(d.minReplicas, 12);
  // 25 req/s → ceil(9.5) = 10; without the delta ceil(10) = 10; with delta +0.5 → 11.
  EXPECT_EQ(decideFloor(query(2.5, -0.5), {.queryResult = 25, .maxReplicas = 50}).minReplicas, 10);
  EXPECT_EQ(decideFloor(query(2.5, 0), {.queryResult = 25, .maxReplicas = 50}).minReplicas, 10);
  EXPECT_EQ(decideFloor(query(2.5, 0.5), {.queryResult = 25, .maxReplicas = 50}).minReplicas, 11);
  // A collapsed request rate gives the lowest floor there is: 1.
  EXPECT_EQ(decideFloor(query(2.5, -0.5), {.queryResult = 0, .maxReplicas = 50}).minReplicas, 1);
}

TEST(GuardFloor, QueryFloorRoundsUpAnyFraction) {
  // 26 req/s at 2.5 per replica: 10.4 replicas are needed, so 11 (rounding would give 10).
  EXPECT_EQ(decideFloor(query(2.5, 0), {.queryResult = 26, .maxReplicas = 50}).minReplicas, 11);
  // With delta 0.3: ceil(10.7) = 11; a negative delta can take a whole replica off: ceil(9.4).
  EXPECT_EQ(decideFloor(query(2.5, 0.3), {.queryResult = 26, .maxReplicas = 50}).minReplicas, 11);
  EXPECT_EQ(decideFloor(query(2.5, -1), {.queryResult = 26, .maxReplicas = 50}).minReplicas, 10);
}

TEST(GuardFloor, WithBothTheLargerFloorWins) {
  GuardSettings both = query(2.5, 0);
  both.scaleDownMaxRatio = 0.2;
  // Query 12, ratio 80 → 80.
  FloorDecision d =
      decideFloor(both, {.queryResult = 30, .currentReplicas = 100, .maxReplicas = 200});
  EXPECT_EQ(d.queryFloor, 12);
  EXPECT_EQ(d.ratioFloor, 80);
  EXPECT_EQ(d.minReplicas, 80);
  // Query 120, ratio 16 → 120.
  d = decideFloor(both, {.queryResult = 300, .currentReplicas = 20, .maxReplicas = 200});
  EXPECT_EQ(d.queryFloor, 120);
  EXPECT_EQ(d.ratioFloor, 16);
  EXPECT_EQ(d.minReplicas, 120);
}

TEST(GuardFloor, NeverAboveMaxReplicas) {
  FloorDecision d = decideFloor(query(1, 0), {.queryResult = 500, .maxReplicas = 40});
  EXPECT_EQ(d.queryFloor, 500);
  EXPECT_TRUE(d.cappedAtMax);
  EXPECT_EQ(d.minReplicas, 40);
  // Overflowing arithmetic is capped too.
  EXPECT_EQ(decideFloor(query(1e-300, 0), {.queryResult = 1e300, .maxReplicas = 7}).minReplicas, 7);
}

TEST(GuardFloor, RolloutWithTwoNonEmptyReplicaSetsSkipsTheRatioStep) {
  const api::ScaleTargetRef web{"apps/v1", "Deployment", "web"};
  std::vector<api::ReplicaSet> sets{replicaSet("web-old", "web", 60),
                                    replicaSet("web-new", "web", 70),
                                    replicaSet("other-1", "other", 5)};
  EXPECT_TRUE(rolloutInProgress(web, sets));
  sets[0].status.replicas = 0;  // the old one scaled down: done
  EXPECT_FALSE(rolloutInProgress(web, sets));
  sets[2] = replicaSet("other-2", "other", 3);  // another Deployment's sets do not count
  EXPECT_FALSE(rolloutInProgress(web, sets));
  EXPECT_FALSE(rolloutInProgress({"apps/v1", "StatefulSet", "web"}, sets));

  GuardSettings s = ratio(0.2);
  s.deploymentChecking = true;
  const FloorInputs surging{.currentReplicas = 130, .rolloutInProgress = true, .maxReplicas = 200};
  FloorDecision d = decideFloor(s, surging);
  EXPECT_TRUE(d.ratioSkippedForRollout);
  EXPECT_FALSE(d.ratioFloor);
  EXPECT_FALSE(d.minReplicas) << "nothing else to compute: minReplicas stays";
  // With a query the query floor alone decides during the rollout.
  GuardSettings both = query(10, 0);
  both.scaleDownMaxRatio = 0.2;
  both.deploymentChecking = true;
  FloorInputs withQuery = surging;
  withQuery.queryResult = 300;
  EXPECT_EQ(decideFloor(both, withQuery).minReplicas, 30);
  // Without the checking annotation the rollout is not looked at.
  EXPECT_EQ(decideFloor(ratio(0.2), surging).minReplicas, 104);
}

TEST(GuardFloor, NoQueryValueLeavesMinReplicasAlone) {
  GuardSettings both = query(2.5, 0);
  both.scaleDownMaxRatio = 0.2;
  for (double missing : {std::nan(""), HUGE_VAL}) {
    FloorDecision d =
        decideFloor(both, {.queryResult = missing, .currentReplicas = 100, .maxReplicas = 200});
    EXPECT_TRUE(d.noData);
    EXPECT_FALSE(d.minReplicas);
  }
  FloorDecision d = decideFloor(both, {.currentReplicas = 100, .maxReplicas = 200});
  EXPECT_TRUE(d.noData);
  EXPECT_FALSE(d.minReplicas) << "not even the ratio floor is written on missing data";
  EXPECT_EQ(describe(d, {}), "the query gave no value");
}

TEST(GuardSettings, GuardedOnlyWhenTheAnnotationIsTrue) {
  api::ObjectMeta meta;
  EXPECT_FALSE(guarded(meta));
  meta.annotations["estafette.io/hpa-scaler"] = "True";
  EXPECT_FALSE(guarded(meta));
  meta.annotations["estafette.io/hpa-scaler"] = "true";
  EXPECT_TRUE(guarded(meta));
}

TEST(GuardSettings, ParsesTheSeedsAnnotationsWithDefaults) {
  auto defaults = parseGuardSettings({{"estafette.io/hpa-scaler", "true"}});
  ASSERT_TRUE(defaults) << defaults.error().toString();
  EXPECT_EQ(*defaults, GuardSettings{});

  auto s = parseGuardSettings(
      {{"estafette.io/hpa-scaler", "true"},
       {"estafette.io/hpa-scaler-prometheus-query", "sum(rate(x[5m])) by (app)"},
       {"estafette.io/hpa-scaler-requests-per-replica", "2.5"},
       {"estafette.io/hpa-scaler-delta", "-0.5"},
       {"estafette.io/hpa-scaler-scale-down-max-ratio", "0.2"},
       {"estafette.io/hpa-scaler-enable-scale-down-ratio-deployment-checking", "true"}});
  ASSERT_TRUE(s) << s.error().toString();
  EXPECT_EQ(s->query, "sum(rate(x[5m])) by (app)");
  EXPECT_EQ(s->requestsPerReplica, 2.5);
  EXPECT_EQ(s->delta, -0.5);
  EXPECT_EQ(s->scaleDownMaxRatio, 0.2);
  EXPECT_TRUE(s->deploymentChecking);
}

TEST(GuardSettings, BadValuesNameTheirAnnotation) {
  struct Case {
    std::string annotation;
    std::string value;
    std::string message;
  };
  const std::vector<Case> cases{
      {"estafette.io/hpa-scaler-requests-per-replica", "two", "want a number, got \"two\""},
      {"estafette.io/hpa-scaler-requests-per-replica", "0", "must be greater than 0, got \"0\""},
      {"estafette.io/hpa-scaler-delta", "1.5x", "want a number, got \"1.5x\""},
      {"estafette.io/hpa-scaler-delta", "NaN", "want a number, got \"NaN\""},
      {"estafette.io/hpa-scaler-scale-down-max-ratio", "20%", "want a number, got \"20%\""},
      {"estafette.io/hpa-scaler-scale-down-max-ratio", "1.2",
       "must be between 0 and 1, got \"1.2\""},
      {"estafette.io/hpa-scaler-enable-scale-down-ratio-deployment-checking", "yes",
       "want \"true\" or \"false\", got \"yes\""},
  };
  for (const Case& c : cases) {
    auto s = parseGuardSettings({{c.annotation, c.value}});
    ASSERT_FALSE(s) << c.annotation << "=" << c.value;
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(s.error().field, c.annotation);
    EXPECT_EQ(s.error().message, c.message);
  }
}

TEST(GuardFloor, DescribesHowTheFloorCameAbout) {
  GuardSettings both = query(2.5, 0);
  both.scaleDownMaxRatio = 0.2;
  const FloorInputs in{.queryResult = 30, .currentReplicas = 100, .maxReplicas = 50};
  EXPECT_EQ(describe(decideFloor(both, in), in),
            "query floor 12 (result 30), scale-down ratio floor 80 of 100 replicas, capped at "
            "maxReplicas 50");
}

}  // namespace
}  // namespace attune::hpa
