#include "pod_builder.h"

namespace attune::sim::testing {

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
