// Leader election on a coordination.k8s.io/v1 Lease, with the semantics of client-go's
// leaderelection package: one replica holds the lease and renews it; the others stand by and
// take it over once it expires or is released.
//
// The elector is a step function with no thread of its own: a loop calls tryAcquireOrRenew()
// every retryPeriod and asks isLeader() before doing leader-only work. All time comes from the
// Clock, so tests drive several electors on one sim::Cluster with one SimulatedClock.
//
// Expiry is judged from the record itself: a lease is free when its holderIdentity is empty, or
// once now has reached renewTime + leaseDurationSeconds (a lease without renewTime or duration is
// free). Replicas' clocks must therefore agree to well within leaseDuration - renewDeadline.
#pragma once

#include <optional>
#include <string>

#include "api/cluster_api.h"
#include "api/k8s/lease.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/time.h"

namespace attune::controller {

struct LeaderElectionOptions {
  std::string namespace_ = "attune-system";
  std::string name = "attune-leader";
  // Unique per replica (e.g. "<hostname>_<pid>"); must not be empty.
  std::string identity;
  // How long a lease lasts after its last renewal before a standby may take it.
  Duration leaseDuration = std::chrono::seconds(15);
  // The leader gives up leadership when no renewal has succeeded for this long.
  // Must be shorter than leaseDuration.
  Duration renewDeadline = std::chrono::seconds(10);
  // How often the driving loop calls tryAcquireOrRenew().
  Duration retryPeriod = std::chrono::seconds(2);
};

// Checks the durations: all positive, retryPeriod < renewDeadline < leaseDuration, and a lease
// duration of at least one second (the Lease stores whole seconds). kInvalidArgument with the
// flag-style field name ("renewDeadline") otherwise; also rejects an empty identity, namespace
// or name.
Result<void> validate(const LeaderElectionOptions& options);

// What one step saw and did, for logs.
enum class ElectionOutcome {
  kAcquired,  // became leader: created the lease, or took over a free or expired one
  kRenewed,   // was leader, renewed
  kStandby,   // another replica holds a live lease
  kLost,      // was leader, no longer: another holds the lease, or the renew deadline passed
  kFailed,    // the API call failed (transport error, 5xx); leadership kept until the deadline
};
std::string_view toString(ElectionOutcome outcome);

struct ElectionStep {
  ElectionOutcome outcome = ElectionOutcome::kStandby;
  std::string holder;          // the holder identity last seen on the lease ("" when none)
  std::optional<Error> error;  // set with kFailed
};

// Not thread-safe: one loop drives it. `api` and `clock` must outlive the elector.
class LeaderElector {
 public:
  // `options` must pass validate() (asserted).
  LeaderElector(api::ClusterApi& api, Clock& clock, LeaderElectionOptions options);

  // One attempt, at clock.now() (the step's start: expiry is judged against it):
  // - no lease: create it holding it (leaseTransitions 0); kConflict (another replica created
  //   it first) means standby;
  // - held by us: renew (renewTime = the time the update is sent) with the read resourceVersion
  //   as precondition; on a kConflict the lease is read again once: held by another now →
  //   kLost, still ours → renewed with the new resourceVersion (a second kConflict is kFailed:
  //   the lease named us when last read, so leadership is kept until the renew deadline and
  //   the next step reads it again, as after any failed renewal);
  // - free (empty holder) or expired: take it over with the resourceVersion precondition
  //   (acquireTime = renewTime = the time the update is sent, leaseTransitions + 1);
  //   kConflict → standby (another replica won);
  // - held by another, live: standby (kLost when we believed we were leader).
  // Any other error is kFailed; a leader stays leader on kFailed until renewDeadline has passed
  // since its last successful renewal, then the step reports kLost.
  //
  // The Lease's times are stamped when each write is sent, not at the step's start: a step whose
  // read the API slowed (429 with Retry-After, retried resets) would otherwise land a renewTime
  // seconds old, and a standby stepping at the expiry it reads could take the Lease while the
  // renewal is on its way. The leader's own deadline still counts from the step's start, which
  // is no later than the renewTime it wrote, so it stops acting before a standby may start.
  ElectionStep tryAcquireOrRenew();

  // Whether we hold the lease: the last renewal succeeded less than renewDeadline ago (checked
  // against clock.now()).
  bool isLeader() const;

  // Gives the lease up if we hold it (or held it until the renew deadline passed and it may
  // still name us): holderIdentity cleared, leaseDurationSeconds 1, renewTime now, with the
  // last seen resourceVersion as precondition, so a standby takes it at its next step. Does
  // nothing (ok) when we never held it or it has meanwhile passed to another replica (kConflict).
  // Other API errors are returned; leadership ends either way.
  Result<void> release();

  // When the last successful renewal (or acquisition) happened; nullopt when not leader.
  const std::optional<Time>& lastRenewal() const { return lastRenewal_; }
  const LeaderElectionOptions& options() const { return options_; }
  // The lease as last read or written; nullopt before the first successful read.
  const std::optional<api::Lease>& observed() const { return observed_; }
  // When the lease last read expires while another replica holds it (renewTime +
  // leaseDurationSeconds): the first instant a step may take it over, unless it is renewed
  // meanwhile. nullopt when we hold it, when it is free, or before the first read.
  std::optional<Time> heldByAnotherUntil() const;

 private:
  ElectionStep create(Time now);
  ElectionStep renew(const api::Lease& lease, Time now, bool retryOnConflict);
  ElectionStep takeOver(const api::Lease& lease, Time now);
  ElectionStep standby(const std::string& holder);
  ElectionStep failed(Error error, Time now);
  void becameLeader(const api::Lease& stored, Time now);
  // renewTime + leaseDurationSeconds; nullopt when the lease is free (no holder) or lacks either
  // field, which counts as expired.
  static std::optional<Time> expiresAt(const api::LeaseSpec& spec);
  static bool expired(const api::LeaseSpec& spec, Time now);
  std::int32_t durationSeconds() const;

  api::ClusterApi& api_;
  Clock& clock_;
  LeaderElectionOptions options_;
  std::optional<api::Lease> observed_;
  std::optional<Time> lastRenewal_;  // set while leader
};

}  // namespace attune::controller
