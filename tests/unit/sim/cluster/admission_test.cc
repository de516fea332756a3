// ResourceQuota accounting and admission, and LimitRanger defaults and validation, in the
// simulated cluster: quotas' used follows every pod change, over-quota and out-of-range
// resizes are refused with the API server's 403.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pod_builder.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/limit_ranger.h"

namespace attune::sim {
namespace {

using testing::burstablePod;
using testing::guaranteedPod;
using testing::PodBuilder;
using testing::resources;

Quantity q(std::string_view text) { return Quantity::parse(text).value(); }

std::string used(const api::ResourceQuota& quota, std::string_view name) {
  const Quantity* value = quota.used.find(name);
  return value ? value->toString() : "<absent>";
}

class AdmissionTest : public ::testing::Test {
 protected:
  api::ResourceQuota createQuota(std::vector<std::string> scopes = {}) {
    api::ResourceQuota quota;
    quota.metadata.namespace_ = "team";
    quota.metadata.name = scopes.empty() ? "compute" : "besteffort";
    quota.scopes = std::move(scopes);
    quota.specHard.set("requests.cpu", q("1"));
    quota.specHard.set("requests.memory", q("1Gi"));
    quota.specHard.set("limits.cpu", q("4"));
    quota.specHard.set("limits.memory", q("2Gi"));
    quota.specHard.set("pods", q("3"));
    quota.specHard.set("services", q("5"));
    quota.used.set("services", q("2"));  // counted by an evaluator the simulation lacks
    return *state_.resourceQuotas.create(quota);
  }

  api::ResourceQuota quota(std::string_view name = "compute") {
    return *state_.resourceQuotas.get("team", name);
  }

  void createLimitRange(api::LimitRangeItem item) {
    api::LimitRange range;
    range.metadata.namespace_ = "team";
    range.metadata.name = "limits";
    range.limits.push_back(std::move(item));
    ASSERT_TRUE(state_.limitRanges.create(range));
  }

  Result<api::Pod> resize(std::string_view pod, std::vector<api::ContainerResize> containers) {
    return cluster_.resizePod("team", pod, containers);
  }

  static void expectForbidden(const auto& result, std::string_view message) {
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::kForbidden) << result.error().toString();
    EXPECT_EQ(result.error().message, message);
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
};

TEST_F(AdmissionTest, QuotaUsedFollowsPodCreateResizeDeleteAndEviction) {
  createQuota();
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  ASSERT_TRUE(state_.createPod(burstablePod()));
  ASSERT_TRUE(state_.createPod(PodBuilder("other", "elsewhere")
                                   .container("app", resources("4", "4Gi", "4", "4Gi"))
                                   .build()));
  auto listed = cluster_.listResourceQuotas({.namespace_ = "team"});
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->items.size(), 1u);
  api::ResourceQuota current = listed->items[0];
  EXPECT_EQ(current.hard, current.specHard);
  // web 500m/256Mi (= limits); api: app 250m/128Mi (limits 1/512Mi) + sidecar 50m/32Mi.
  EXPECT_EQ(used(current, "requests.cpu"), "800m");
  EXPECT_EQ(used(current, "requests.memory"), "416Mi");
  EXPECT_EQ(used(current, "limits.cpu"), "1500m");
  EXPECT_EQ(used(current, "limits.memory"), "768Mi");
  EXPECT_EQ(used(current, "pods"), "2");
  EXPECT_EQ(used(current, "services"), "2");
  EXPECT_EQ(used(current, "cpu"), "<absent>");  // not in spec.hard
  EXPECT_EQ(current.metadata.generation, 1);    // status writes only

  ASSERT_TRUE(resize("web", {{"app", resources("200m", "128Mi", "200m", "128Mi")}}));
  EXPECT_EQ(used(quota(), "requests.cpu"), "500m");
  EXPECT_EQ(used(quota(), "limits.memory"), "640Mi");

  ASSERT_TRUE(state_.deletePod("team", "api"));
  EXPECT_EQ(used(quota(), "requests.cpu"), "200m");
  EXPECT_EQ(used(quota(), "pods"), "1");

  api::Eviction eviction;
  eviction.metadata.namespace_ = "team";
  eviction.metadata.name = "web";
  ASSERT_TRUE(cluster_.evictPod(eviction));
  EXPECT_EQ(used(quota(), "requests.cpu"), "0");
  EXPECT_EQ(used(quota(), "requests.memory"), "0");
  EXPECT_EQ(used(quota(), "pods"), "0");
}

TEST_F(AdmissionTest, QuotaCreatedAfterPodsCountsThemAndTerminalPodsAreFree) {
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  ASSERT_TRUE(state_.createPod(
      PodBuilder("team", "done").container("app", resources("1", "1Gi", "", "")).build()));
  createQuota();
  EXPECT_EQ(used(quota(), "requests.cpu"), "1500m");
  EXPECT_EQ(used(quota(), "pods"), "2");
  // A pod that finished (phase written by the kubelet through the store) is no longer charged.
  ASSERT_TRUE(state_.pods.modify("team", "done", "", [](api::Pod& p) -> Result<Change> {
    p.status.phase = "Succeeded";
    return Change::kMetadata;
  }));
  EXPECT_EQ(used(quota(), "requests.cpu"), "500m");
  EXPECT_EQ(used(quota(), "pods"), "1");
}

TEST_F(AdmissionTest, QuotaIsWrittenOnlyWhenUsedChangesAndMatchesAFullRecompute) {
  createQuota();
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  const std::string rv = quota().metadata.resourceVersion;
  ASSERT_TRUE(cluster_.patchPodAnnotations("team", "web", {{"a", "1"}}, ""));
  EXPECT_EQ(quota().metadata.resourceVersion, rv);
  ASSERT_TRUE(state_.createPod(burstablePod()));
  ASSERT_TRUE(resize("api", {{"app", resources("300m", "128Mi", "1", "512Mi")}}));
  ASSERT_TRUE(state_.deletePod("team", "web"));
  const api::ResourceQuota incremental = quota();
  state_.refreshQuotaUsage();
  EXPECT_EQ(quota(), incremental);
  EXPECT_EQ(used(incremental, "requests.cpu"), "350m");
}

TEST_F(AdmissionTest, QuotaSpecChangesAndRecreationAreRecomputed) {
  createQuota();
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  auto changed = state_.resourceQuotas.modify("team", "compute", "", [](auto& quota) {
    quota.specHard.set("cpu", q("10"));
    return Result<Change>(Change::kSpec);
  });
  ASSERT_TRUE(changed);
  EXPECT_EQ(quota().hard, quota().specHard);
  EXPECT_EQ(used(quota(), "cpu"), "500m");

  const api::ResourceQuota before = quota();
  ASSERT_TRUE(state_.resourceQuotas.erase("team", "compute"));
  ASSERT_TRUE(state_.createPod(burstablePod()));  // no quota: nothing to charge
  api::ResourceQuota again = before;
  again.used = {};
  ASSERT_TRUE(state_.resourceQuotas.create(again));
  EXPECT_EQ(used(quota(), "requests.cpu"), "800m");
  EXPECT_EQ(used(quota(), "pods"), "2");
}

TEST_F(AdmissionTest, QuotaScopesSelectPods) {
  createQuota({"BestEffort"});
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  ASSERT_TRUE(state_.createPod(PodBuilder("team", "besteffort").container("app", {}).build()));
  EXPECT_EQ(used(quota("besteffort"), "pods"), "1");
  EXPECT_EQ(used(quota("besteffort"), "requests.cpu"), "0");
}

TEST_F(AdmissionTest, ResizeAboveQuotaIsForbiddenAndWithinIsAccepted) {
  createQuota();
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  ASSERT_TRUE(state_.createPod(burstablePod()));
  const api::Pod before = *cluster_.getPod("team", "web");
  // requests.cpu: 800m used + 250m more > 1.
  expectForbidden(resize("web", {{"app", resources("750m", "256Mi", "750m", "256Mi")}}),
                  "pods \"web\" is forbidden: exceeded quota: compute, requested: "
                  "requests.cpu=250m, used: requests.cpu=800m, limited: requests.cpu=1");
  EXPECT_EQ(*cluster_.getPod("team", "web"), before);
  EXPECT_EQ(used(quota(), "requests.cpu"), "800m");

  auto within = resize("web", {{"app", resources("700m", "384Mi", "700m", "384Mi")}});
  ASSERT_TRUE(within) << within.error().toString();
  EXPECT_EQ(used(quota(), "requests.cpu"), "1");
  // At the limit, a decrease is always accepted, and an unchanged resource is not checked.
  ASSERT_TRUE(resize("api", {{"app", resources("200m", "256Mi", "1", "512Mi")}}));
  EXPECT_EQ(used(quota(), "requests.cpu"), "950m");
}

TEST_F(AdmissionTest, PodCreationAboveQuotaIsForbidden) {
  createQuota();
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  expectForbidden(state_.createPod(PodBuilder("team", "big")
                                       .container("app", resources("600m", "64Mi", "1", "64Mi"))
                                       .build()),
                  "pods \"big\" is forbidden: exceeded quota: compute, requested: "
                  "requests.cpu=600m, used: requests.cpu=500m, limited: requests.cpu=1");
  EXPECT_FALSE(state_.pods.find("team", "big"));
  EXPECT_EQ(used(quota(), "pods"), "1");
}

TEST_F(AdmissionTest, LimitRangeDefaultsFillMissingRequestsAndLimitsOnCreate) {
  api::LimitRangeItem item;
  item.type = "Container";
  item.defaultRequest.set("cpu", q("100m"));
  item.defaultRequest.set("memory", q("128Mi"));
  item.default_.set("cpu", q("500m"));
  item.default_.set("memory", q("256Mi"));
  createLimitRange(item);
  auto pod = state_.createPod(PodBuilder("team", "bare")
                                  .container("app", {})
                                  .container("limited", resources("", "", "2", ""))
                                  .build());
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->spec.containers[0].resources, resources("100m", "128Mi", "500m", "256Mi"));
  // A limit without a request gives the request (API defaulting, before LimitRanger).
  EXPECT_EQ(pod->spec.containers[1].resources, resources("2", "128Mi", "2", "256Mi"));
  EXPECT_EQ(pod->status.qosClass, "Burstable");
  EXPECT_EQ(pod->metadata.annotations.at(std::string(kLimitRangerAnnotation)),
            "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit "
            "for container app; memory request for container limited; memory limit for "
            "container limited");
  // Without a LimitRange nothing is defaulted.
  auto other = state_.createPod(PodBuilder("other", "bare").container("app", {}).build());
  EXPECT_TRUE(other->spec.containers[0].resources.requests.empty());
  EXPECT_FALSE(other->metadata.annotations.contains(std::string(kLimitRangerAnnotation)));
}

TEST_F(AdmissionTest, LimitRangeMaxGivesTheDefaultLimit) {
  api::LimitRangeItem item;
  item.type = "Container";
  item.max.set("cpu", q("2"));
  createLimitRange(item);
  auto pod = state_.createPod(PodBuilder("team", "bare").container("app", {}).build());
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->spec.containers[0].resources, resources("2", "", "2", ""));
}

TEST_F(AdmissionTest, ResizeOutsideLimitRangeIsForbidden) {
  ASSERT_TRUE(state_.createPod(guaranteedPod()));
  api::LimitRangeItem item;
  item.type = "Container";
  item.min.set("memory", q("64Mi"));
  item.max.set("cpu", q("2"));
  createLimitRange(item);
  expectForbidden(resize("web", {{"app", resources("4", "256Mi", "4", "256Mi")}}),
                  "pods \"web\" is forbidden: maximum cpu usage per Container is 2, but limit "
                  "is 4");
  expectForbidden(resize("web", {{"app", resources("500m", "32Mi", "500m", "32Mi")}}),
                  "pods \"web\" is forbidden: minimum memory usage per Container is 64Mi, but "
                  "request is 32Mi");
  expectForbidden(resize("web", {{"app", resources("3", "32Mi", "3", "32Mi")}}),
                  "pods \"web\" is forbidden: [minimum memory usage per Container is 64Mi, but "
                  "request is 32Mi, maximum cpu usage per Container is 2, but limit is 3]");
  EXPECT_EQ(cluster_.getPod("team", "web")->metadata.generation, 1);
  auto within = resize("web", {{"app", resources("2", "64Mi", "2", "64Mi")}});
  ASSERT_TRUE(within) << within.error().toString();
  EXPECT_EQ(within->metadata.generation, 2);
}

TEST_F(AdmissionTest, PodCreationOutsideLimitRangeIsForbidden) {
  api::LimitRangeItem item;
  item.type = "Pod";
  item.max.set("memory", q("512Mi"));
  createLimitRange(item);
  // Pod totals of limits: app's 512Mi (the sidecar has no limit) is within the maximum.
  EXPECT_TRUE(state_.createPod(burstablePod()));
  expectForbidden(state_.createPod(PodBuilder("team", "two")
                                       .container("a", resources("", "", "1", "300Mi"))
                                       .container("b", resources("", "", "1", "300Mi"))
                                       .build()),
                  "pods \"two\" is forbidden: maximum memory usage per Pod is 512Mi, but limit is "
                  "600Mi");
}

TEST_F(AdmissionTest, RequestAboveLimitAfterDefaultsIsInvalid) {
  api::LimitRangeItem item;
  item.type = "Container";
  item.default_.set("cpu", q("500m"));
  createLimitRange(item);
  auto pod = state_.createPod(
      PodBuilder("team", "greedy").container("app", resources("1", "", "", "")).build());
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(pod.error().field, "spec.containers[0].resources.requests");
}

}  // namespace
}  // namespace attune::sim
