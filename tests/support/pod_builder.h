// PodBuilder: the one builder of typed pods (api::Pod) for tests, next to the realistic pod JSON
// of pod_json.h. Immutable: every method returns a new builder, so a partly built pod can be
// shared and varied. Quantities written as strings parse as the API server's would.
//
//   PodBuilder("team", "web").node("n1").container("app", resources("500m", "512Mi", "1", "1Gi"))
//       .ready(t0 - 1h).build()
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/k8s/meta.h"
#include "api/k8s/pod.h"
#include "core/quantity.h"
#include "core/time.h"
#include "core/units.h"

namespace attune::testing {

// Requirements from quantity strings; an empty string leaves that amount absent.
api::ResourceRequirements resources(std::string_view cpuRequest, std::string_view memoryRequest,
                                    std::string_view cpuLimit, std::string_view memoryLimit);

class PodBuilder {
 public:
  // Pod `ns`/`name` in phase Running: no labels, owner, node, containers or statuses.
  PodBuilder(std::string ns, std::string name);

  [[nodiscard]] PodBuilder label(std::string key, std::string value) const;
  [[nodiscard]] PodBuilder labels(api::StringMap labels) const;  // replaces every label
  [[nodiscard]] PodBuilder owner(api::OwnerReference reference) const;
  [[nodiscard]] PodBuilder node(std::string name) const;
  [[nodiscard]] PodBuilder phase(std::string phase) const;
  // Adds a container (no status).
  [[nodiscard]] PodBuilder container(std::string name,
                                     api::ResourceRequirements requirements = {}) const;
  // Set one amount of the last container added (there must be one).
  [[nodiscard]] PodBuilder cpuRequest(Millicores cpu) const;
  [[nodiscard]] PodBuilder cpuLimit(Millicores cpu) const;
  [[nodiscard]] PodBuilder memoryRequest(Bytes memory) const;
  [[nodiscard]] PodBuilder memoryLimit(Bytes memory) const;
  // Ready since `since`: a condition Ready=True from then and, for every container added so
  // far, a status that is ready, running since `since`, with `restartCount` restarts and the
  // container's resources as applied.
  [[nodiscard]] PodBuilder ready(Time since, std::int32_t restartCount = 0) const;

  api::Pod build() const { return pod_; }

 private:
  // A copy of this builder with `change` applied to its pod.
  template <typename Change>
  PodBuilder with(Change change) const {
    PodBuilder out = *this;
    change(out.pod_);
    return out;
  }

  api::Pod pod_;
};

}  // namespace attune::testing
