// Decoding the AttunePolicies the API server returns (kube/wire.h).
#include "kube/wire.h"

#include <gtest/gtest.h>

#include <string>

#include "../api/policy/policy_test_util.h"
#include "api/policy/policy_codec.h"

namespace attune::kube::wire {
namespace {

constexpr std::string_view kPolicy = R"({
  "apiVersion": "attune.io/v1alpha1", "kind": "AttunePolicy",
  "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7",
               "managedFields": [{"manager": "kubectl"}]},
  "spec": {"targetRef": {"kind": "Deployment", "name": "web"},
           "updateStrategy": {"type": "Recommend"}}
})";

// The positions of the re-serialised document mean nothing to anyone: a cached policy, copied
// out on every read, carries none.
TEST(WireTest, APolicyFromTheServerCarriesNoSourcePositions) {
  auto policy = decodePolicy(kPolicy);
  ASSERT_TRUE(policy) << policy.error().toString();
  EXPECT_EQ(policy->metadata.name, "web");
  EXPECT_EQ(policy->metadata.resourceVersion, "7");
  EXPECT_EQ(policy->sources.find("spec.targetRef.kind").line, 0);
  auto list = decodePolicyList(R"({"metadata": {"resourceVersion": "9"}, "items": [)" +
                               std::string(kPolicy) + "]}");
  ASSERT_TRUE(list) << list.error().toString();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].sources.find("spec.targetRef.kind").line, 0);
}

// The API server's JSON is decoded without printing it and parsing it again as YAML: the policy is
// the one decodePolicies() reads from the same text, every field and the status included; a
// string that reads as a number, a boolean or null stays a string; an invalid field is named.
TEST(WireTest, APolicyFromTheServerIsTheOneItsTextDecodesTo) {
  auto full = api::decodePolicies(api::testing::kFullPolicy);
  ASSERT_EQ(full.size(), 1u);
  ASSERT_TRUE(full[0].policy);
  api::AttunePolicy policy = *full[0].policy;
  policy.metadata.resourceVersion = "12";
  policy.metadata.labels = {{"count", "5"}, {"flag", "true"}, {"none", "null"}, {"f", "1.5"}};
  const std::string json = api::encodePolicyJson(policy);
  auto viaText = api::decodePolicies(json);
  ASSERT_EQ(viaText.size(), 1u);
  ASSERT_TRUE(viaText[0].policy);
  ASSERT_TRUE(viaText[0].errors.empty()) << viaText[0].errors[0].error.toString();
  viaText[0].policy->sources = {};
  auto decoded = decodePolicy(json);
  ASSERT_TRUE(decoded) << decoded.error().toString();
  EXPECT_EQ(*decoded, *viaText[0].policy);
  EXPECT_EQ(decoded->metadata.labels.at("count"), "5");
  EXPECT_EQ(decoded->metadata.labels.at("flag"), "true");
  EXPECT_EQ(decoded->metadata.labels.at("none"), "null");
  EXPECT_EQ(decoded->status, full[0].policy->status);

  auto invalid = decodePolicy(R"({"apiVersion": "attune.io/v1alpha1", "kind": "AttunePolicy",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"targetRef": {"kind": "Deployment", "name": "web"}, "cpu": {"percentile": "high"}}})");
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code, ErrorCode::kInternal);
  EXPECT_NE(invalid.error().toString().find("spec.cpu.percentile"), std::string::npos)
      << invalid.error().toString();
}

}  // namespace
}  // namespace attune::kube::wire
