// computeQosClass follows Kubernetes' ComputePodQOS.
#include <gtest/gtest.h>

#include "api/k8s/decode.h"
#include "api/k8s/pod.h"

namespace attune::api {
namespace {

Quantity q(const char* text) { return *Quantity::parse(text); }

// Requirements from "cpu/memory" request and limit strings; "" leaves the amount unset.
ResourceRequirements res(const char* reqCpu, const char* reqMem, const char* limCpu,
                         const char* limMem) {
  ResourceRequirements r;
  if (*reqCpu) r.requests.cpu = q(reqCpu);
  if (*reqMem) r.requests.memory = q(reqMem);
  if (*limCpu) r.limits.cpu = q(limCpu);
  if (*limMem) r.limits.memory = q(limMem);
  return r;
}

PodSpec podWith(std::initializer_list<ResourceRequirements> containers) {
  PodSpec spec;
  int i = 0;
  for (const ResourceRequirements& r : containers) {
    std::string name = "c";  // not "c" + std::string: GCC 12 -Wrestrict false positive at -O2
    name += std::to_string(i++);
    spec.containers.push_back(Container{.name = name, .resources = r});
  }
  return spec;
}

TEST(K8sQosClass, BestEffortWithoutCpuOrMemory) {
  EXPECT_EQ(computeQosClass(PodSpec{}), QosClass::kBestEffort);
  EXPECT_EQ(computeQosClass(podWith({res("", "", "", ""), res("", "", "", "")})),
            QosClass::kBestEffort);
  ResourceRequirements storageOnly;
  storageOnly.requests.set("ephemeral-storage", q("1Gi"));
  EXPECT_EQ(computeQosClass(podWith({storageOnly})), QosClass::kBestEffort);
  EXPECT_EQ(computeQosClass(podWith({res("0", "0", "0", "0")})), QosClass::kBestEffort);
}

TEST(K8sQosClass, GuaranteedWhenEveryContainerHasEqualRequestsAndLimits) {
  EXPECT_EQ(computeQosClass(podWith(
                {res("500m", "1Gi", "500m", "1Gi"), res("1", "256Mi", "1000m", "268435456")})),
            QosClass::kGuaranteed);
}

TEST(K8sQosClass, BurstableCases) {
  // Requests below limits.
  EXPECT_EQ(computeQosClass(podWith({res("250m", "512Mi", "1", "1Gi")})), QosClass::kBurstable);
  // Requests only.
  EXPECT_EQ(computeQosClass(podWith({res("250m", "512Mi", "", "")})), QosClass::kBurstable);
  // Memory not limited.
  EXPECT_EQ(computeQosClass(podWith({res("1", "1Gi", "1", "")})), QosClass::kBurstable);
  // Limits without requests (a spec the API server has not defaulted yet).
  EXPECT_EQ(computeQosClass(podWith({res("", "", "1", "1Gi")})), QosClass::kBurstable);
  // One Guaranteed container and one BestEffort container.
  EXPECT_EQ(computeQosClass(podWith({res("1", "1Gi", "1", "1Gi"), res("", "", "", "")})),
            QosClass::kBurstable);
  // Per container, not summed: 100m+200m requests vs 200m+100m limits is still Burstable.
  EXPECT_EQ(computeQosClass(
                podWith({res("100m", "1Gi", "200m", "1Gi"), res("200m", "1Gi", "100m", "1Gi")})),
            QosClass::kBurstable);
}

TEST(K8sQosClass, InitContainersCount) {
  PodSpec spec = podWith({res("1", "1Gi", "1", "1Gi")});
  spec.initContainers.push_back(Container{.name = "init", .resources = res("100m", "", "", "")});
  EXPECT_EQ(computeQosClass(spec), QosClass::kBurstable);
  spec.initContainers[0].resources = res("100m", "64Mi", "100m", "64Mi");
  EXPECT_EQ(computeQosClass(spec), QosClass::kGuaranteed);
}

TEST(K8sQosClass, PodLevelResourcesDecide) {
  PodSpec spec = podWith({res("", "", "", ""), res("100m", "", "", "")});
  spec.resources = res("2", "4Gi", "2", "4Gi");
  EXPECT_EQ(computeQosClass(spec), QosClass::kGuaranteed);
  spec.resources = res("1", "4Gi", "2", "4Gi");
  EXPECT_EQ(computeQosClass(spec), QosClass::kBurstable);
  spec.resources = ResourceRequirements{};
  EXPECT_EQ(computeQosClass(spec), QosClass::kBestEffort);
}

TEST(K8sQosClass, FromDecodedPodJson) {
  auto pod = decodePod(R"({"spec":{"containers":[
      {"name":"a","resources":{"requests":{"cpu":"1","memory":"2Gi"},
                               "limits":{"cpu":"1","memory":"2Gi"}}}]}})");
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(computeQosClass(pod->spec), QosClass::kGuaranteed);
  EXPECT_EQ(qosClassName(computeQosClass(pod->spec)), "Guaranteed");
  EXPECT_EQ(qosClassName(QosClass::kBestEffort), "BestEffort");
  EXPECT_EQ(qosClassName(QosClass::kBurstable), "Burstable");
}

}  // namespace
}  // namespace attune::api
