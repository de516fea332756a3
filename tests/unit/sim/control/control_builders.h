// Small builders of nodes, pods and workloads for the sim/control tests, and a fixture clock.
#pragma once

#include <string>
#include <string_view>

#include "api/k8s/node.h"
#include "api/k8s/pod.h"
#include "core/time.h"

namespace attune::sim::testing {

// 2026-01-01T00:00:00Z.
Time fixedTime();

// A Ready node with `cpu` and `memory` allocatable ("4", "8Gi").
api::Node readyNode(std::string name, std::string_view cpu, std::string_view memory);
// Adds a taint.
api::Node tainted(api::Node node, std::string key, std::string value, std::string effect);

// A pending pod "team/<name>" with one container "app" requesting `cpu` and `memory`.
api::Pod pendingPod(std::string name, std::string_view cpu, std::string_view memory);

// A pod template labelled app=<app> whose container "app" runs `image` requesting 100m/64Mi.
api::PodTemplateSpec podTemplate(std::string app, std::string image);

}  // namespace attune::sim::testing
