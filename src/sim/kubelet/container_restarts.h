// One container's restart cycle in the simulated kubelet: when it comes back after an exit, what
// its status says in between (waiting, reason CrashLoopBackOff), restartCount and lastState.
// Pure: every time is passed in; nothing reads a clock.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/backoff.h"
#include "core/time.h"

namespace attune::sim {

// The waiting reason a container reports between an exit and its restart.
inline constexpr std::string_view kCrashLoopBackOff = "CrashLoopBackOff";

// One run of a container that has ended: status.lastState.terminated in Kubernetes.
struct ContainerExit {
  Time startedAt;
  Time finishedAt;     // must be >= startedAt
  std::string reason;  // e.g. "Error", "OOMKilled", "Completed"
  int exitCode = 0;

  bool operator==(const ContainerExit&) const = default;
};

// A container's status at one moment.
struct ContainerRestartState {
  enum class Kind { kRunning, kWaiting };
  Kind kind = Kind::kRunning;
  std::string waitingReason;         // kCrashLoopBackOff when waiting; empty when running
  std::optional<Time> runningSince;  // when running and the start is known
  std::optional<Time> restartAt;     // when waiting: when the container is restarted
  int restartCount = 0;
  std::optional<ContainerExit> lastState;  // the most recent exit, if any
};

// Restart state of one container under restartPolicy Always/OnFailure (every exit is
// restarted; the restart-policy decision is the caller's). Not thread-safe; one owner.
//
// The first restart waits `policy.initial`, as the KEP advertises; the simulator does not model
// kubernetes#123602 (the real kubelet's free first restart).
class ContainerRestarts {
 public:
  explicit ContainerRestarts(BackoffPolicy policy) : backoff_(policy) {}

  // Records that the container, started at `exit.startedAt`, exited at `exit.finishedAt`, and
  // returns when the kubelet restarts it: finishedAt + the backoff delay. The curve starts again
  // from `initial` when the run lasted at least `policy.resetAfter` (10 minutes).
  // Requires: startedAt <= finishedAt, and startedAt >= the previous restart time (a container
  // cannot run again before it is restarted). Violations are asserted.
  Time exited(const ContainerExit& exit);

  // The status at `now`. Requires `now` >= the latest exit's finishedAt (no history is kept):
  // waiting with reason CrashLoopBackOff for now in [finishedAt, restartAt), running from
  // restartAt on. Before any exit the container is running (start unknown).
  // restartCount counts restarts that have happened by `now`.
  ContainerRestartState state(Time now) const;

  // Exits recorded so far.
  int exits() const { return exits_; }
  const BackoffPolicy& policy() const { return backoff_.policy(); }

 private:
  ExponentialBackoff backoff_;
  int exits_ = 0;
  std::optional<ContainerExit> last_;
  std::optional<Time> restartAt_;
};

}  // namespace attune::sim
