#include "webhook/pod_sizing.h"

#include <gtest/gtest.h>

#include "support/pod_builder.h"

namespace attune::webhook {
namespace {

using testing::PodBuilder;
using testing::resources;

api::OwnerReference controller(std::string kind, std::string name) {
  return api::OwnerReference{"apps/v1", std::move(kind), std::move(name), "uid-1", true};
}

TEST(WorkloadOfNewPod, AReplicaSetWithTheTemplateHashIsItsDeployment) {
  const auto pod = PodBuilder("shop", "")
                       .label("pod-template-hash", "7d9f8c6b5")
                       .owner(controller("ReplicaSet", "web-7d9f8c6b5"))
                       .build();
  const auto ref = workloadOfNewPod(pod, "shop");
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(*ref, (api::WorkloadRef{"shop", "Deployment", "web"}));
}

TEST(WorkloadOfNewPod, OtherControllersAreTheWorkloadAndABarePodHasNone) {
  const auto bareRs = PodBuilder("shop", "").owner(controller("ReplicaSet", "legacy")).build();
  EXPECT_EQ(*workloadOfNewPod(bareRs, "shop"), (api::WorkloadRef{"shop", "ReplicaSet", "legacy"}));
  const auto sts = PodBuilder("db", "pg-0").owner(controller("StatefulSet", "pg")).build();
  EXPECT_EQ(*workloadOfNewPod(sts, "db"), (api::WorkloadRef{"db", "StatefulSet", "pg"}));
  EXPECT_FALSE(workloadOfNewPod(PodBuilder("shop", "debug").build(), "shop").has_value());
  // A hash that is not the name's suffix does not make a Deployment.
  const auto mismatch = PodBuilder("shop", "")
                            .label("pod-template-hash", "abc")
                            .owner(controller("ReplicaSet", "web-7d9f8c6b5"))
                            .build();
  EXPECT_EQ(workloadOfNewPod(mismatch, "shop")->kind, "ReplicaSet");
}

TEST(PodSizingPatch, RequestsAtThePeakMemoryLimitAndNoCpuLimit) {
  const auto pod = PodBuilder("shop", "")
                       .container("app", resources("1", "2Gi", "2", "4Gi"))
                       .container("sidecar", resources("100m", "64Mi", "", ""))
                       .build();
  const std::vector<ContainerSizing> sizing{{.container = "app",
                                             .cpuRequest = Millicores(350),
                                             .memoryRequest = Bytes(600LL << 20),
                                             .memoryLimit = Bytes(1400LL << 20),
                                             .removeCpuLimit = true}};
  const auto ops = podSizingPatch(pod, sizing);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].op, api::JsonPatchOpType::kAdd);
  EXPECT_EQ(ops[0].path, "/spec/containers/0/resources");
  EXPECT_EQ(ops[0].value,
            R"({"limits":{"memory":"1400Mi"},"requests":{"cpu":"350m","memory":"600Mi"}})");
}

TEST(PodSizingPatch, OnlyTheNamedAmountsChangeAndOtherResourcesStay) {
  auto requirements = resources("1", "2Gi", "2", "4Gi");
  requirements.requests.set("ephemeral-storage", *Quantity::parse("1Gi"));
  const auto pod = PodBuilder("shop", "").container("app", requirements).build();
  // Memory only (the policy controls memory): CPU request and limit are kept.
  const std::vector<ContainerSizing> sizing{
      {.container = "app", .memoryRequest = Bytes(1LL << 30), .memoryLimit = Bytes(3LL << 30)}};
  const auto ops = podSizingPatch(pod, sizing);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].value, R"({"limits":{"cpu":"2","memory":"3Gi"},)"
                          R"("requests":{"cpu":"1","ephemeral-storage":"1Gi","memory":"1Gi"}})");
}

TEST(PodSizingPatch, AMemoryRequestAboveTheNewLimitIsLoweredToIt) {
  const auto pod = PodBuilder("shop", "").container("app", resources("", "3Gi", "", "")).build();
  const std::vector<ContainerSizing> sizing{{.container = "app", .memoryLimit = Bytes(2LL << 30)}};
  const auto ops = podSizingPatch(pod, sizing);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].value, R"({"limits":{"memory":"2Gi"},"requests":{"memory":"2Gi"}})");
}

TEST(PodSizingPatch, NothingForContainersNotNamedOrAlreadySized) {
  const auto pod =
      PodBuilder("shop", "").container("app", resources("350m", "600Mi", "", "1400Mi")).build();
  const std::vector<ContainerSizing> same{{.container = "app",
                                           .cpuRequest = Millicores(350),
                                           .memoryRequest = Bytes(600LL << 20),
                                           .memoryLimit = Bytes(1400LL << 20),
                                           .removeCpuLimit = true}};
  EXPECT_TRUE(podSizingPatch(pod, same).empty());
  const std::vector<ContainerSizing> other{{.container = "db", .cpuRequest = Millicores(5)}};
  EXPECT_TRUE(podSizingPatch(pod, other).empty());
}

}  // namespace
}  // namespace attune::webhook
