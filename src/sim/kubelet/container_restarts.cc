#include "sim/kubelet/container_restarts.h"

#include <cassert>

namespace attune::sim {

Time ContainerRestarts::exited(const ContainerExit& exit) {
  assert(exit.startedAt <= exit.finishedAt);
  assert(!restartAt_ || exit.startedAt >= *restartAt_);
  backoff_.healthySince(exit.startedAt);
  const Duration delay = backoff_.failure(exit.finishedAt);
  ++exits_;
  last_ = exit;
  restartAt_ = exit.finishedAt + delay;
  return *restartAt_;
}

ContainerRestartState ContainerRestarts::state(Time now) const {
  ContainerRestartState s;
  s.lastState = last_;
  if (!restartAt_) return s;  // never exited: running, start unknown
  assert(now >= last_->finishedAt);
  if (now < *restartAt_) {
    s.kind = ContainerRestartState::Kind::kWaiting;
    s.waitingReason = kCrashLoopBackOff;
    s.restartAt = restartAt_;
    s.restartCount = exits_ - 1;
  } else {
    s.runningSince = restartAt_;
    s.restartCount = exits_;
  }
  return s;
}

}  // namespace attune::sim
