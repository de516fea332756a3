// policy/v1 PodDisruptionBudget: the decoder on a LIST-shaped wire object (tests/unit/api/k8s/
// data, written as the API server returns one), the encoder's round trip and its zero counts,
// and IntOrString's percentages as the disruption controller scales them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "api/k8s/encode_objects.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

std::string fixture() {
  return testing::readFile(testing::sourceDir() /
                           "tests/unit/api/k8s/data/policy.v1.PodDisruptionBudget.json");
}

TEST(PdbCodec, DecodesEveryFieldOfTheWireObject) {
  auto pdb = decodePodDisruptionBudget(fixture());
  ASSERT_TRUE(pdb) << pdb.error().toString();
  EXPECT_EQ(pdb->metadata.name, "web");
  EXPECT_EQ(pdb->metadata.namespace_, "shop");
  EXPECT_EQ(pdb->metadata.generation, 2);
  EXPECT_EQ(pdb->spec.minAvailable, IntOrString::ofString("60%"));
  EXPECT_FALSE(pdb->spec.maxUnavailable);
  ASSERT_TRUE(pdb->spec.selector);
  EXPECT_EQ(pdb->spec.selector->matchLabels.at("app"), "web");
  ASSERT_EQ(pdb->spec.selector->matchExpressions.size(), 1u);
  EXPECT_EQ(pdb->spec.selector->matchExpressions[0].values[0], "frontend");
  EXPECT_EQ(pdb->spec.unhealthyPodEvictionPolicy, kAlwaysAllow);
  const PdbStatus& s = pdb->status;
  EXPECT_EQ(s.observedGeneration, 2);
  EXPECT_EQ(s.currentHealthy, 5);
  EXPECT_EQ(s.desiredHealthy, 3);
  EXPECT_EQ(s.disruptionsAllowed, 1);
  EXPECT_EQ(s.expectedPods, 5);
  ASSERT_EQ(s.disruptedPods.size(), 1u);
  EXPECT_EQ(s.disruptedPods[0].name, "web-7d9f8b6c5d-x2k4p");
  EXPECT_EQ(s.disruptedPods[0].at, *parseRfc3339("2026-01-05T10:03:15Z"));
  ASSERT_EQ(s.conditions.size(), 1u);
  EXPECT_EQ(s.conditions[0].type, kDisruptionAllowedCondition);
  EXPECT_EQ(s.conditions[0].reason, kSufficientPodsReason);
}

TEST(PdbCodec, EncodingRoundTripsAndNamesTheKind) {
  auto pdb = decodePodDisruptionBudget(fixture());
  ASSERT_TRUE(pdb);
  const std::string encoded = encodeObjectJson(*pdb);
  auto again = decodePodDisruptionBudget(encoded);
  ASSERT_TRUE(again) << again.error().toString();
  EXPECT_EQ(*again, *pdb);
  const auto json = nlohmann::json::parse(encoded);
  EXPECT_EQ(json["apiVersion"], "policy/v1");
  EXPECT_EQ(json["kind"], "PodDisruptionBudget");
  EXPECT_EQ(json["spec"]["minAvailable"], "60%");
  EXPECT_EQ(json["status"]["disruptedPods"]["web-7d9f8b6c5d-x2k4p"], "2026-01-05T10:03:15Z");
}

TEST(PdbCodec, IntegerBudgetsAndZeroCountsAreWritten) {
  PodDisruptionBudget pdb;
  pdb.metadata.name = "db";
  pdb.spec.maxUnavailable = IntOrString::ofInt(1);
  pdb.spec.selector.emplace();  // {}: every pod of the namespace
  const auto json = nlohmann::json::parse(encodeObjectJson(pdb));
  EXPECT_EQ(json["spec"]["maxUnavailable"], 1);
  EXPECT_TRUE(json["spec"]["selector"].is_object());
  EXPECT_FALSE(json["spec"].contains("minAvailable"));
  EXPECT_EQ(json["status"]["disruptionsAllowed"], 0);
  EXPECT_EQ(json["status"]["expectedPods"], 0);
  auto again = decodePodDisruptionBudget(json.dump());
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, pdb);
}

TEST(PdbCodec, ListsDecode) {
  const std::string list = R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudgetList",
      "metadata":{"resourceVersion":"7"},"items":[)" +
                           fixture() + "]}";
  auto decoded = decodeList<PodDisruptionBudget>(list);
  ASSERT_TRUE(decoded) << decoded.error().toString();
  ASSERT_EQ(decoded->items.size(), 1u);
  EXPECT_EQ(decoded->resourceVersion, "7");
}

TEST(PdbCodec, ABudgetThatIsNeitherNumberNorStringIsAnErrorAtItsField) {
  auto decoded = decodePodDisruptionBudget(R"({"spec":{"minAvailable":true}})");
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().field, "spec.minAvailable");
}

TEST(PdbCodec, APodNamedTwiceInDisruptedPodsKeepsItsLastTime) {
  // A JSON map with a repeated key, and a repeated disruptedPods field: one entry per pod, the
  // last time written, so the budget re-encodes to the same object.
  auto decoded = decodePodDisruptionBudget(R"({"status":{
      "disruptedPods":{"b":"2026-01-05T10:00:00Z","a":"2026-01-05T10:01:00Z",
                       "b":"2026-01-05T10:02:00Z"},
      "disruptedPods":{"a":"2026-01-05T10:03:00Z","c":"2026-01-05T10:04:00Z"}}})");
  ASSERT_TRUE(decoded) << decoded.error().toString();
  const auto& pods = decoded->status.disruptedPods;
  ASSERT_EQ(pods.size(), 3u);
  EXPECT_EQ(pods[0].name, "a");
  EXPECT_EQ(pods[0].at, *parseRfc3339("2026-01-05T10:03:00Z"));
  EXPECT_EQ(pods[1].name, "b");
  EXPECT_EQ(pods[1].at, *parseRfc3339("2026-01-05T10:02:00Z"));
  EXPECT_EQ(pods[2].name, "c");

  auto again = decodePodDisruptionBudget(encodeObjectJson(*decoded));
  ASSERT_TRUE(again) << again.error().toString();
  EXPECT_EQ(*again, *decoded);
}

TEST(IntOrString, PercentagesScaleRoundingUpOrDown) {
  EXPECT_EQ(scaledValue(IntOrString::ofInt(3), 10, true), 3);
  EXPECT_EQ(scaledValue(IntOrString::ofString("50%"), 5, true), 3);   // 2.5 → 3
  EXPECT_EQ(scaledValue(IntOrString::ofString("50%"), 5, false), 2);  // 2.5 → 2
  EXPECT_EQ(scaledValue(IntOrString::ofString("34%"), 3, true), 2);   // 1.02 → 2
  EXPECT_EQ(scaledValue(IntOrString::ofString("100%"), 7, true), 7);
  EXPECT_EQ(scaledValue(IntOrString::ofString("0%"), 7, true), 0);
  EXPECT_FALSE(scaledValue(IntOrString::ofString("50"), 5, true));
  EXPECT_FALSE(scaledValue(IntOrString::ofString("%"), 5, true));
  EXPECT_FALSE(scaledValue(IntOrString::ofString("half%"), 5, true));
}

}  // namespace
}  // namespace attune::api
