// Small builders of pods for the sim/cluster tests.
#pragma once

#include <string>
#include <string_view>

#include "api/k8s/pod.h"

namespace attune::sim::testing {

// Requirements from quantity strings; an empty string leaves that amount absent.
api::ResourceRequirements resources(std::string_view cpuRequest, std::string_view memRequest,
                                    std::string_view cpuLimit, std::string_view memLimit);

class PodBuilder {
 public:
  PodBuilder(std::string ns, std::string name);
  PodBuilder& label(std::string key, std::string value);
  PodBuilder& container(std::string name, api::ResourceRequirements resources);
  PodBuilder& phase(std::string phase);
  api::Pod build() const { return pod_; }

 private:
  api::Pod pod_;
};

// A pod "team/web" with one Guaranteed container "app": 500m / 256Mi.
api::Pod guaranteedPod();
// A pod "team/api" with containers "app" (250m/128Mi requests, 1/512Mi limits) and "sidecar"
// (50m/32Mi requests only): Burstable.
api::Pod burstablePod();

}  // namespace attune::sim::testing
