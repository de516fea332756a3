// The run loop of `attune controller`, in two parts:
// - ElectionDriver: a leader-election step every retry period (controller::LeaderElector),
//   logging leadership changes and publishing whether this replica leads;
// - OperatorLoop: a readiness check until it first succeeds, and while leader a reconcile pass
//   every reconcile interval (the controller's periodic resync) and, between passes, a poll
//   every iteration (the caches brought up to date and the controller's work queue served, so
//   a new pod or a cooldown ending is acted on within seconds). Passes are synchronous, so a
//   shutdown request seen between iterations never interrupts one (in-flight resizes finish their
//   annotations and history).
// runThreaded (the binary) drives the election on its own thread, so that a slow pass (an
// unreachable Prometheus retried with backoff) cannot keep the lease from being renewed;
// runInline (tests) alternates both on one thread. Time comes from the Clock and waiting from
// the caller's Wait function, so tests drive the loop with a SimulatedClock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/logging.h"
#include "controller/leader_election.h"
#include "core/clock.h"
#include "core/error.h"
#include "metrics/exposition/registry.h"

namespace attune::cli {

// What /healthz and /readyz report, written by the loop and read by HTTP threads. Thread-safe.
class OperatorHealth {
 public:
  // The loop completed an iteration at `now`.
  void beat(Time now) { lastBeat_.store(now.time_since_epoch().count()); }
  // Whether an iteration completed within `tolerance` before `now` (false before the first).
  bool alive(Time now, Duration tolerance) const;
  void setReady() { ready_.store(true); }
  bool ready() const { return ready_.load(); }

 private:
  std::atomic<Duration::rep> lastBeat_{0};
  std::atomic<bool> ready_{false};
};

// Leader election steps, with logs and the attune_leader gauge (1 while leader; label `lease`:
// the Lease's name, one per shard when sharded).
class ElectionDriver {
 public:
  // Every reference must outlive the driver; `clock` must be thread-safe when leader() is
  // called from another thread than step().
  ElectionDriver(controller::LeaderElector& elector, Clock& clock, Logger& log,
                 metrics::Registry& registry);

  // An election step when one is due (the first call, then every retryPeriod); returns how long
  // until the next is due. A standby whose observed lease expires before the next retry steps
  // again at that expiry instead, so a dead leader's lease is taken over as it expires rather
  // than up to a retry period later. step() and release() must be called from one thread.
  Duration step();
  // Thread-safe: whether the last renewal succeeded less than renewDeadline before now.
  bool leader() const;
  // Gives the lease up (when held) and logs it; leader() is false afterwards.
  void release();

 private:
  void publish();

  controller::LeaderElector& elector_;
  Clock& clock_;
  Logger& log_;
  metrics::MetricFamily& gauge_;
  std::atomic<Duration::rep> leaderUntil_{0};  // renewal + renewDeadline; 0: not leader
  bool wasLeader_ = false;
  std::optional<Time> nextStep_;
  std::string lastHolder_;  // holder last logged while standing by
  std::string lastError_;   // the previous step's failure, so a repeated one is logged once
};

// What one reconcile pass did, for its log line.
struct PassSummary {
  std::size_t policies = 0;
  std::size_t resizes = 0;
  std::size_t resizesFailed = 0;
  std::size_t resizesSkipped = 0;
  std::size_t reverts = 0;
  // Some of the policies it reconciled, "namespace/name" (a work-queue run's; at most a few
  // dozen): `policies` counts them all.
  std::vector<std::string> named;
};

struct OperatorLoopOptions {
  Duration reconcileInterval = std::chrono::minutes(1);
  // The longest wait between iterations (the /healthz heartbeat period).
  Duration tick = std::chrono::seconds(2);
  // /healthz fails once no iteration has completed for this long (a stuck pass or API call).
  Duration stallTimeout = std::chrono::minutes(2);
  // Whether a successful pass is logged with its PassSummary (off when the pass logs its own
  // summary, as the HPA guard does).
  bool logPasses = true;
};

class OperatorLoop {
 public:
  // One reconcile pass (the controller's reconcileAll, after any cache sync).
  using Pass = std::function<Result<PassSummary>()>;
  // Readiness: the first cluster sync and metrics check. Called every iteration until it
  // succeeds; an error is logged (once per distinct message) and retried.
  using ReadinessCheck = std::function<Result<void>()>;
  // Whether this replica may reconcile now (ElectionDriver::leader, or always true).
  using Leader = std::function<bool()>;
  // Between passes: what the work queue has due (Controller::reconcileDue, after the caches'
  // sync). Its summary is logged when it reconciled a policy; an error is logged once per
  // distinct message.
  using Poll = std::function<Result<PassSummary>()>;

  // Every reference must outlive the loop.
  OperatorLoop(Clock& clock, Leader leader, Pass pass, ReadinessCheck ready, Logger& log,
               OperatorHealth& health, OperatorLoopOptions options);

  // Sets the poll run on iterations without a pass (none by default).
  void setPoll(Poll poll) { poll_ = std::move(poll); }

  // One iteration at clock.now(): the readiness check until it first succeeds; then, while
  // leader, a pass when one is due (at once after becoming leader, then every
  // reconcileInterval from the previous pass's start), else the poll. Pass errors are logged
  // and the loop continues. Returns how long to wait before the next iteration (at most
  // options.tick).
  Duration step();

  std::uint64_t passes() const { return passes_; }
  // Whether the readiness check has succeeded.
  bool ready() const { return health_.ready(); }

 private:
  void runPass();
  void runPoll();

  Clock& clock_;
  Leader leader_;
  Pass pass_;
  Poll poll_;
  ReadinessCheck ready_;
  Logger& log_;
  OperatorHealth& health_;
  OperatorLoopOptions options_;
  std::optional<Time> nextPass_;    // unset: due as soon as leader
  std::string lastReadinessError_;  // so a repeated failure is logged once
  std::string lastPollError_;       // likewise
  std::uint64_t passes_ = 0;
};

// Waits up to `d` (>= 0); returns true when shutdown has been requested.
using Wait = std::function<bool(Duration d)>;

// One thread: driver->step() (when a driver is given) and loop.step(), then wait for the
// sooner of their answers, until wait returns true; then releases the lease. The loop's Leader
// should be the driver's leader().
void runInline(OperatorLoop& loop, ElectionDriver* driver, const Wait& wait, Logger& log);

// Sleeps through `clock` until `due`, in sleeps of at most `slice`, returning early once `stop`
// is set. The time left is read from the clock after every sleep: counting the slices instead
// would add each sleep's overshoot (scheduling latency, which grows when the cores are busy) to
// the wait, and a standby stepping at a lease's expiry would step late by all of it.
void sleepUntil(Clock& clock, Time due, const std::atomic<bool>& stop, Duration slice);

// loop.step() and wait on the calling thread; driver.step() on a thread of its own that sleeps
// through `clock` (a SystemClock) and stops within ~100 ms of shutdown. While a ready replica
// stands by, the calling thread looks at its leadership every ~100 ms, so that a takeover is
// reconciled at once rather than up to a tick later. When wait returns true: the election thread
// is stopped and joined, then the lease released.
void runThreaded(OperatorLoop& loop, ElectionDriver& driver, Clock& clock, const Wait& wait,
                 Logger& log);

}  // namespace attune::cli
