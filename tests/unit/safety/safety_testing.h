// Small builders for the safety tests: a running pod with one or two containers, and a record.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "api/k8s/pod.h"
#include "core/quantity.h"
#include "core/time.h"
#include "safety/resize_record.h"
#include "support/pod_builder.h"

namespace attune::safety::testing {

using namespace attune::literals;
using namespace std::chrono_literals;

inline Time t0() { return parseRfc3339("2025-03-01T12:00:00Z").value(); }
inline Quantity q(std::string_view text) { return Quantity::parse(text).value(); }

// Container "app" with 500m/512Mi requests and 1/1Gi limits, running and Ready since before t0.
inline api::Pod runningPod(std::string name = "web-1") {
  return attune::testing::PodBuilder("team", std::move(name))
      .node("n1")
      .container("app", attune::testing::resources("500m", "512Mi", "1", "1Gi"))
      .ready(t0() - 1h, 3)
      .build();
}

// The record of resizing runningPod()'s "app" at t0 from 500m/512Mi to 250m/384Mi (limits
// scaled), restart count 3 at the time.
inline ResizeRecord appRecord() {
  ResizeRecord r;
  r.resizedAt = t0();
  r.workload = "web";
  r.policy = "web-policy";
  ContainerRecord c;
  c.name = "app";
  c.original = {500_m, 1000_m, 512_Mi, 1_Gi};
  c.target = {250_m, 500_m, 384_Mi, 768_Mi};
  c.restartCount = 3;
  r.containers.push_back(c);
  return r;
}

// runningPod() after the resize of appRecord() was applied by the kubelet.
inline api::Pod resizedPod() {
  api::Pod pod = runningPod();
  api::ResourceRequirements& r = pod.spec.containers[0].resources;
  r = withResourceValues(r, appRecord().containers[0].target);
  pod.status.containerStatuses[0].resources = r;
  return pod;
}

}  // namespace attune::safety::testing
