// Decoding the AttunePolicies the API server returns (kube/wire.h).
#include "kube/wire.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace attune::kube::wire
