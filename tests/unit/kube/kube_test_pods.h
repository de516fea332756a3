// The pods the informer and CachedClusterApi tests start from, built with the shared PodBuilder.
#pragma once

#include <string>
#include <utility>

#include "api/k8s/pod.h"
#include "support/pod_builder.h"

namespace attune::kube::testing {

// A Burstable pod with one container "app" (100m/64Mi requests, 500m/256Mi limits) and
// `labels`, owned by ReplicaSet `owner` when not empty.
inline api::Pod makePod(std::string ns, std::string name, std::string owner = "",
                        api::StringMap labels = {}) {
  auto pod = attune::testing::PodBuilder(std::move(ns), std::move(name))
                 .labels(std::move(labels))
                 .container("app", attune::testing::resources("100m", "64Mi", "500m", "256Mi"));
  if (owner.empty()) return pod.build();
  return pod.owner({"apps/v1", "ReplicaSet", std::move(owner), "uid-rs", true}).build();
}

}  // namespace attune::kube::testing
