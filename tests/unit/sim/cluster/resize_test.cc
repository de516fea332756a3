// The resize subresource of the simulated cluster: what it accepts, what it rejects with which
// field path, and what an accepted resize leaves for the kubelet (only the new spec).
#include <gtest/gtest.h>

#include <vector>

#include "pod_builder.h"
#include "sim/cluster/cluster.h"

namespace attune::sim {
namespace {

using testing::burstablePod;
using testing::guaranteedPod;
using testing::resources;

class ResizeTest : public ::testing::Test {
 protected:
  ResizeTest() {
    EXPECT_TRUE(state_.createPod(guaranteedPod()));
    EXPECT_TRUE(state_.createPod(burstablePod()));
  }

  Result<api::Pod> resize(std::string_view pod, std::vector<api::ContainerResize> containers) {
    return cluster_.resizePod("team", pod, containers);
  }

  void expectRejected(const Result<api::Pod>& result, std::string_view field) {
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument) << result.error().toString();
    EXPECT_EQ(result.error().field, field) << result.error().toString();
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
};

TEST_F(ResizeTest, AcceptedResizeStoresDesiredAndBumpsGeneration) {
  const api::Pod before = *cluster_.getPod("team", "web");
  auto pod = resize("web", {{"app", resources("750m", "384Mi", "750m", "384Mi")}});
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->spec.containers[0].resources, resources("750m", "384Mi", "750m", "384Mi"));
  EXPECT_EQ(pod->metadata.generation, before.metadata.generation + 1);
  EXPECT_NE(pod->metadata.resourceVersion, before.metadata.resourceVersion);
  EXPECT_EQ(*cluster_.getPod("team", "web"), *pod);
  // The kubelet's part is not faked: no status change, no resize condition.
  EXPECT_EQ(pod->status, before.status);
  EXPECT_EQ(api::findCondition(pod->status.conditions, api::kPodResizeInProgress), nullptr);
}

TEST_F(ResizeTest, ResizeLeavesOtherContainersAsTheyWere) {
  auto pod = resize("api", {{"sidecar", resources("100m", "64Mi", "", "")}});
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->spec.containers[0].resources, burstablePod().spec.containers[0].resources);
  EXPECT_EQ(pod->spec.containers[1].resources, resources("100m", "64Mi", "", ""));
}

TEST_F(ResizeTest, NoOpResizeIsNotAWrite) {
  const api::Pod before = *cluster_.getPod("team", "web");
  auto pod = resize("web", {{"app", before.spec.containers[0].resources}});
  ASSERT_TRUE(pod);
  EXPECT_EQ(*pod, before);
}

TEST_F(ResizeTest, QosChangeGuaranteedToBurstableIsRejected) {
  // Only the requests move; the limits stay: the pod would become Burstable.
  expectRejected(resize("web", {{"app", resources("250m", "128Mi", "500m", "256Mi")}}), "spec");
  EXPECT_EQ(cluster_.getPod("team", "web")->metadata.generation, 1);
}

TEST_F(ResizeTest, QosChangeBurstableToGuaranteedIsRejected) {
  expectRejected(resize("api", {{"app", resources("1", "512Mi", "1", "512Mi")},
                                {"sidecar", resources("50m", "32Mi", "50m", "32Mi")}}),
                 "spec");
}

TEST_F(ResizeTest, UnknownContainerIsRejected) {
  expectRejected(resize("web", {{"nope", resources("1", "1Gi", "1", "1Gi")}}), "spec.containers");
}

TEST_F(ResizeTest, NegativeQuantityIsRejected) {
  expectRejected(resize("api", {{"app", resources("-100m", "128Mi", "1", "512Mi")}}),
                 "spec.containers[0].resources.requests.cpu");
  expectRejected(resize("api", {{"sidecar", resources("50m", "32Mi", "", "-1Mi")}}),
                 "spec.containers[1].resources.limits.memory");
}

TEST_F(ResizeTest, RequestAboveLimitIsRejected) {
  expectRejected(resize("api", {{"app", resources("2", "128Mi", "1", "512Mi")}}),
                 "spec.containers[0].resources.requests");
}

TEST_F(ResizeTest, NonCpuMemoryResourceChangeIsRejected) {
  api::ResourceRequirements r = resources("250m", "128Mi", "1", "512Mi");
  r.requests.set("ephemeral-storage", *Quantity::parse("1Gi"));
  expectRejected(resize("api", {{"app", r}}),
                 "spec.containers[0].resources.requests.ephemeral-storage");
}

TEST_F(ResizeTest, UnknownPodIsNotFound) {
  auto pod = resize("ghost", {{"app", resources("1", "1Gi", "1", "1Gi")}});
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace attune::sim

namespace attune::sim {
namespace {

using testing::burstablePod;
using testing::resources;

// The version rule for memory limits (KEP-1287): before v1.34 a decrease is refused unless the
// container's memory resizePolicy is RestartContainer; from v1.34 it is accepted.
class MemoryLimitDecreaseTest : public ::testing::Test {
 protected:
  MemoryLimitDecreaseTest() {
    EXPECT_TRUE(state_.createPod(burstablePod()));
    api::Pod restarts = burstablePod();
    restarts.metadata.name = "restarts";
    restarts.spec.containers[0].resizePolicy = {{"memory", "RestartContainer"}};
    EXPECT_TRUE(state_.createPod(restarts));
  }

  void runAt(std::string_view version) {
    state_.setKubernetesVersion(*api::parseServerVersion(version));
  }
  // app: 250m / 128Mi requests, limits 1 / 512Mi -> 256Mi.
  Result<api::Pod> lowerLimit(std::string_view pod) {
    std::vector<api::ContainerResize> containers = {
        {"app", resources("250m", "128Mi", "1", "256Mi")}};
    return cluster_.resizePod("team", pod, containers);
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
};

TEST_F(MemoryLimitDecreaseTest, TheServerReportsItsConfiguredVersion) {
  EXPECT_EQ(cluster_.getServerVersion()->gitVersion, "v1.34.0");
  runAt("v1.33.4");
  auto v = cluster_.getServerVersion();
  ASSERT_TRUE(v);
  EXPECT_EQ(v->minor, 33);
  EXPECT_EQ(v->patch, 4);
}

TEST_F(MemoryLimitDecreaseTest, Before134ADecreaseWithoutRestartContainerIsForbidden) {
  runAt("v1.33.4");
  auto refused = lowerLimit("api");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(refused.error().field, "spec.containers[0].resources.limits.memory");
  EXPECT_NE(refused.error().message.find("RestartContainer"), std::string::npos);
  EXPECT_EQ(cluster_.getPod("team", "api")->metadata.generation, 1);
  // With the restart policy the same decrease is accepted; increases never need it.
  EXPECT_TRUE(lowerLimit("restarts"));
  std::vector<api::ContainerResize> up = {{"app", resources("250m", "128Mi", "1", "1Gi")}};
  EXPECT_TRUE(cluster_.resizePod("team", "api", up));
}

TEST_F(MemoryLimitDecreaseTest, From134ADecreaseIsAccepted) {
  runAt("v1.34.2");
  auto pod = lowerLimit("api");
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->spec.containers[0].resources, resources("250m", "128Mi", "1", "256Mi"));
}

}  // namespace
}  // namespace attune::sim
