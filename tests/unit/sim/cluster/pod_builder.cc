#include "pod_builder.h"

#include <utility>

namespace attune::sim::testing {
namespace {

void setIfGiven(api::ResourceList& list, std::string_view name, std::string_view text) {
  if (!text.empty()) list.set(name, Quantity::parse(text).value());
}

}  // namespace

api::ResourceRequirements resources(std::string_view cpuRequest, std::string_view memRequest,
                                    std::string_view cpuLimit, std::string_view memLimit) {
  api::ResourceRequirements r;
  setIfGiven(r.requests, "cpu", cpuRequest);
  setIfGiven(r.requests, "memory", memRequest);
  setIfGiven(r.limits, "cpu", cpuLimit);
  setIfGiven(r.limits, "memory", memLimit);
  return r;
}

PodBuilder::PodBuilder(std::string ns, std::string name) {
  pod_.metadata.namespace_ = std::move(ns);
  pod_.metadata.name = std::move(name);
  pod_.status.phase = "Running";
}

PodBuilder& PodBuilder::label(std::string key, std::string value) {
  pod_.metadata.labels.insert_or_assign(std::move(key), std::move(value));
  return *this;
}

PodBuilder& PodBuilder::container(std::string name, api::ResourceRequirements resources) {
  api::Container c;
  c.name = std::move(name);
  c.resources = std::move(resources);
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::phase(std::string phase) {
  pod_.status.phase = std::move(phase);
  return *this;
}

api::Pod guaranteedPod() {
  return PodBuilder("team", "web")
      .label("app", "web")
      .container("app", resources("500m", "256Mi", "500m", "256Mi"))
      .build();
}

api::Pod burstablePod() {
  return PodBuilder("team", "api")
      .label("app", "api")
      .container("app", resources("250m", "128Mi", "1", "512Mi"))
      .container("sidecar", resources("50m", "32Mi", "", ""))
      .build();
}

}  // namespace attune::sim::testing
