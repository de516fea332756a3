#include "sim/control/control_plane.h"

namespace attune::sim {

void ControlPlane::tick(ClusterState& state, Time now, const PodUsageReader& readUsage) {
  hpas_.tick(state, now, readUsage);
  deployments_.scale(state, now);
  replicaSets_.tick(state, now);
  statefulSets_.tick(state, now);
  daemonSets_.tick(state, now);
  jobs_.tick(state, now);
  deployments_.updateStatus(state, now);
  scheduler_.tick(state, now);
  disruptions_.tick(state, now);
}

}  // namespace attune::sim
