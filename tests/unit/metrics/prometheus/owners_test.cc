#include "metrics/prometheus/owners.h"

#include <gtest/gtest.h>

namespace attune::metrics {
namespace {

PromSeries series(Labels labels) { return PromSeries{std::move(labels), {Point{Time{}, 1}}}; }

PromSeries podOwner(std::string ns, std::string pod, std::string kind, std::string name,
                    std::string controller = "true") {
  return series({{"__name__", "kube_pod_owner"},
                 {"namespace", ns},
                 {"pod", pod},
                 {"owner_kind", kind},
                 {"owner_name", name},
                 {"owner_is_controller", controller}});
}

PromSeries parentOwner(std::string metric, std::string objectLabel, std::string ns,
                       std::string object, std::string kind, std::string name) {
  return series({{"__name__", metric},
                 {"namespace", ns},
                 {objectLabel, object},
                 {"owner_kind", kind},
                 {"owner_name", name},
                 {"owner_is_controller", "true"}});
}

PromSeries rsOwner(std::string ns, std::string rs, std::string kind, std::string name) {
  return parentOwner("kube_replicaset_owner", "replicaset", ns, rs, kind, name);
}

PromSeries jobOwner(std::string ns, std::string job, std::string kind, std::string name) {
  return parentOwner("kube_job_owner", "job_name", ns, job, kind, name);
}

TEST(ResolvePodOwners, FollowsEachOwnerChain) {
  auto owners = resolvePodOwners({
      podOwner("shop", "web-5d8f-abc", "ReplicaSet", "web-5d8f"),
      rsOwner("shop", "web-5d8f", "Deployment", "web"),
      podOwner("shop", "bare-rs-xyz", "ReplicaSet", "bare-rs"),
      rsOwner("shop", "bare-rs", "<none>", "<none>"),
      podOwner("shop", "unknown-rs-1", "ReplicaSet", "unknown-rs"),
      podOwner("data", "db-0", "StatefulSet", "db"),
      podOwner("ops", "agent-x", "DaemonSet", "agent"),
      podOwner("batch", "nightly-1-abc", "Job", "nightly-1"),
      jobOwner("batch", "nightly-1", "CronJob", "nightly"),
      podOwner("batch", "migrate-q", "Job", "migrate"),
      jobOwner("batch", "migrate", "<none>", "<none>"),
      podOwner("data", "lonely", "<none>", "<none>", "false"),
  });
  std::vector<PodOwner> want = {
      {"batch", "migrate-q", {"batch", "Job", "migrate"}},
      {"batch", "nightly-1-abc", {"batch", "CronJob", "nightly"}},
      {"data", "db-0", {"data", "StatefulSet", "db"}},
      {"data", "lonely", {"data", "Pod", "lonely"}},
      {"ops", "agent-x", {"ops", "DaemonSet", "agent"}},
      {"shop", "bare-rs-xyz", {"shop", "ReplicaSet", "bare-rs"}},
      {"shop", "unknown-rs-1", {"shop", "ReplicaSet", "unknown-rs"}},
      {"shop", "web-5d8f-abc", {"shop", "Deployment", "web"}},
  };
  ASSERT_EQ(owners.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(owners[i].ns, want[i].ns);
    EXPECT_EQ(owners[i].pod, want[i].pod);
    EXPECT_EQ(owners[i].workload, want[i].workload) << toString(owners[i].workload);
  }
}

TEST(ResolvePodOwners, ControllerOwnerWins) {
  auto owners = resolvePodOwners({
      podOwner("a", "p", "ConfigMap", "cm", "false"),
      podOwner("a", "p", "StatefulSet", "s", "true"),
      podOwner("a", "p", "Secret", "sec", "false"),
  });
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0].workload, (api::WorkloadRef{"a", "StatefulSet", "s"}));
}

TEST(ResolvePodOwners, SameNamesInOtherNamespacesDoNotMix) {
  auto owners = resolvePodOwners({
      podOwner("a", "web-1", "ReplicaSet", "web-rs"),
      rsOwner("b", "web-rs", "Deployment", "other"),
  });
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0].workload, (api::WorkloadRef{"a", "ReplicaSet", "web-rs"}));
}

TEST(ResolvePodOwners, NoPodsNoOwners) {
  EXPECT_TRUE(resolvePodOwners({rsOwner("a", "rs", "Deployment", "d")}).empty());
}

}  // namespace
}  // namespace attune::metrics
