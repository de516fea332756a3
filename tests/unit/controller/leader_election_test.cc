// LeaderElector on a Lease of the in-process cluster (sim::Cluster), several electors sharing
// one SimulatedClock: acquisition, standby, takeover after expiry, release, races decided by the
// resourceVersion precondition, and the renew deadline.
#include "controller/leader_election.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "api/forwarding_cluster_api.h"
#include "core/clock.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"

namespace attune::controller {
namespace {

using std::chrono::seconds;

// Forwards to another ClusterApi; lease calls can fail (transport errors) or run a hook just
// before an update reaches the inner api (a write racing ours).
class LeaseHookApi final : public api::ForwardingClusterApi {
 public:
  explicit LeaseHookApi(api::ClusterApi& inner) : ForwardingClusterApi(inner) {}

  bool unavailable = false;
  std::function<void()> beforeGetLease;  // runs once, e.g. to make the read take time
  std::function<void()> beforeUpdateLease;

  Result<api::Lease> getLease(std::string_view ns, std::string_view name) override {
    if (unavailable) return down();
    if (beforeGetLease) std::exchange(beforeGetLease, nullptr)();
    return inner().getLease(ns, name);
  }
  Result<api::Lease> createLease(const api::Lease& lease) override {
    if (unavailable) return down();
    return inner().createLease(lease);
  }
  Result<api::Lease> updateLease(const api::Lease& lease) override {
    if (unavailable) return down();
    if (beforeUpdateLease) std::exchange(beforeUpdateLease, nullptr)();
    return inner().updateLease(lease);
  }

 private:
  static std::unexpected<Error> down() {
    return fail(ErrorCode::kUnavailable, "connection refused");
  }
};

Time startTime() { return *parseRfc3339("2026-01-05T00:00:00Z"); }

class LeaderElectionTest : public ::testing::Test {
 protected:
  LeaderElectionOptions optionsFor(std::string identity) const {
    LeaderElectionOptions o;
    o.identity = std::move(identity);
    return o;  // 15s lease, 10s renew deadline, 2s retry period
  }

  api::Lease lease() {
    auto l = cluster_.getLease("attune-system", "attune-leader");
    EXPECT_TRUE(l.has_value());
    return l.value_or(api::Lease{});
  }

  SimulatedClock clock_{startTime()};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
};

TEST_F(LeaderElectionTest, SingleReplicaCreatesTheLeaseAndRenewsIt) {
  LeaderElector a(cluster_, clock_, optionsFor("a"));
  EXPECT_FALSE(a.isLeader());
  EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  EXPECT_TRUE(a.isLeader());
  api::Lease l = lease();
  EXPECT_EQ(l.spec.holderIdentity, "a");
  EXPECT_EQ(l.spec.leaseDurationSeconds, 15);
  EXPECT_EQ(l.spec.leaseTransitions, 0);
  EXPECT_EQ(l.spec.acquireTime, startTime());

  clock_.advance(seconds(2));
  EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kRenewed);
  l = lease();
  EXPECT_EQ(l.spec.renewTime, startTime() + seconds(2));
  EXPECT_EQ(l.spec.acquireTime, startTime());
  EXPECT_TRUE(a.isLeader());
}

TEST_F(LeaderElectionTest, SecondReplicaStandsBy) {
  LeaderElector a(cluster_, clock_, optionsFor("a"));
  LeaderElector b(cluster_, clock_, optionsFor("b"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  for (int i = 0; i < 20; ++i) {
    clock_.advance(seconds(2));
    EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kRenewed);
    ElectionStep step = b.tryAcquireOrRenew();
    EXPECT_EQ(step.outcome, ElectionOutcome::kStandby);
    EXPECT_EQ(step.holder, "a");
    EXPECT_FALSE(b.isLeader());
  }
  EXPECT_EQ(lease().spec.holderIdentity, "a");
  EXPECT_EQ(lease().spec.leaseTransitions, 0);
}

TEST_F(LeaderElectionTest, StandbyTakesOverWithinTheLeaseDurationAfterTheLeaderStops) {
  LeaderElector a(cluster_, clock_, optionsFor("a"));
  LeaderElector b(cluster_, clock_, optionsFor("b"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  clock_.advance(seconds(2));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kRenewed);
  const Time lastRenewal = clock_.now();
  // `a` stops renewing (its process hangs or dies); `b` keeps trying every retry period.
  std::optional<Time> tookOver;
  for (int i = 0; i < 20 && !tookOver; ++i) {
    clock_.advance(seconds(2));
    if (b.tryAcquireOrRenew().outcome == ElectionOutcome::kAcquired) tookOver = clock_.now();
  }
  ASSERT_TRUE(tookOver.has_value());
  EXPECT_GT(*tookOver, lastRenewal + seconds(15));               // not while a's lease lived
  EXPECT_LE(*tookOver, lastRenewal + seconds(15) + seconds(2));  // within one retry of expiry
  EXPECT_TRUE(b.isLeader());
  EXPECT_EQ(lease().spec.holderIdentity, "b");
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
  EXPECT_EQ(lease().spec.acquireTime, *tookOver);
  // `a` has passed its renew deadline long ago, and its next step sees b's lease.
  EXPECT_FALSE(a.isLeader());
  ElectionStep step = a.tryAcquireOrRenew();
  EXPECT_EQ(step.outcome, ElectionOutcome::kLost);
  EXPECT_EQ(step.holder, "b");
  EXPECT_FALSE(a.isLeader());
}

TEST_F(LeaderElectionTest, ALeaseIsFreeFromTheInstantItExpires) {
  LeaderElector a(cluster_, clock_, optionsFor("a"));
  LeaderElector b(cluster_, clock_, optionsFor("b"));
  EXPECT_FALSE(b.heldByAnotherUntil().has_value());  // nothing read yet
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  const Time renewed = clock_.now();
  EXPECT_FALSE(a.heldByAnotherUntil().has_value());  // a holds it
  clock_.advance(seconds(1));
  ASSERT_EQ(b.tryAcquireOrRenew().outcome, ElectionOutcome::kStandby);
  ASSERT_TRUE(b.heldByAnotherUntil().has_value());
  EXPECT_EQ(*b.heldByAnotherUntil(), renewed + seconds(15));
  // A millisecond before the expiry the lease is still a's; at the expiry it is free.
  clock_.advance(seconds(14) - std::chrono::milliseconds(1));
  EXPECT_EQ(b.tryAcquireOrRenew().outcome, ElectionOutcome::kStandby);
  clock_.advance(std::chrono::milliseconds(1));
  EXPECT_EQ(b.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  EXPECT_EQ(lease().spec.acquireTime, renewed + seconds(15));
  EXPECT_FALSE(b.heldByAnotherUntil().has_value());  // b holds it now
  // a's next step sees b's lease, live until b's renewal plus the lease duration.
  EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kLost);
  EXPECT_EQ(*a.heldByAnotherUntil(), renewed + seconds(30));
}

TEST_F(LeaderElectionTest, WritesAreStampedWhenSentNotWhenTheStepStarted) {
  // A read the API slows (a 429 and its Retry-After) must not land a renewal already seconds
  // old: a standby stepping at the expiry it read would take the Lease from a live leader.
  LeaseHookApi api(cluster_);
  LeaderElector a(api, clock_, optionsFor("a"));
  LeaderElector b(api, clock_, optionsFor("b"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  const Time acquired = clock_.now();
  EXPECT_EQ(lease().spec.renewTime, acquired);
  clock_.advance(seconds(2));
  const Time stepStart = clock_.now();
  api.beforeGetLease = [&] { clock_.advance(seconds(3)); };
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kRenewed);
  EXPECT_EQ(lease().spec.renewTime, stepStart + seconds(3));
  // The leader's deadline counts from the step's start, before the renewTime it wrote: it stops
  // acting 10 s after stepStart, 8 s before the Lease it wrote expires.
  ASSERT_TRUE(a.lastRenewal().has_value());
  EXPECT_EQ(*a.lastRenewal(), stepStart);
  clock_.advance(stepStart + seconds(10) - std::chrono::milliseconds(1) - clock_.now());
  EXPECT_TRUE(a.isLeader());
  clock_.advance(std::chrono::milliseconds(1));
  EXPECT_FALSE(a.isLeader());
  // b steps at the expiry of the renewal as written; its slowed read stamps the takeover when
  // the update is sent.
  ASSERT_EQ(b.tryAcquireOrRenew().outcome, ElectionOutcome::kStandby);
  ASSERT_TRUE(b.heldByAnotherUntil().has_value());
  EXPECT_EQ(*b.heldByAnotherUntil(), stepStart + seconds(3) + seconds(15));
  clock_.advance(*b.heldByAnotherUntil() - clock_.now());
  api.beforeGetLease = [&] { clock_.advance(seconds(1)); };
  ASSERT_EQ(b.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  EXPECT_EQ(lease().spec.acquireTime, stepStart + seconds(19));
  EXPECT_EQ(lease().spec.renewTime, stepStart + seconds(19));
}

TEST_F(LeaderElectionTest, ReleaseHandsTheLeaseOverAtOnce) {
  LeaderElector a(cluster_, clock_, optionsFor("a"));
  LeaderElector b(cluster_, clock_, optionsFor("b"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  ASSERT_EQ(b.tryAcquireOrRenew().outcome, ElectionOutcome::kStandby);
  clock_.advance(seconds(1));
  ASSERT_TRUE(a.release().has_value());
  EXPECT_FALSE(a.isLeader());
  EXPECT_EQ(lease().spec.holderIdentity, "");
  EXPECT_EQ(lease().spec.leaseDurationSeconds, 1);
  // No waiting for the 15 s lease: the standby's next step takes it.
  EXPECT_EQ(b.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  EXPECT_EQ(lease().spec.holderIdentity, "b");
  EXPECT_EQ(lease().spec.leaseDurationSeconds, 15);
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
  // Releasing again, or by a replica that does not hold the lease, changes nothing.
  ASSERT_TRUE(a.release().has_value());
  EXPECT_EQ(lease().spec.holderIdentity, "b");
}

TEST_F(LeaderElectionTest, TheLoserOfATakeoverRaceStandsBy) {
  LeaseHookApi slow(cluster_);
  LeaderElector a(cluster_, clock_, optionsFor("a"));
  LeaderElector b(slow, clock_, optionsFor("b"));
  LeaderElector c(cluster_, clock_, optionsFor("c"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  clock_.advance(seconds(16));  // a's lease has expired
  // b has read the expired lease; c takes it over before b's update arrives.
  slow.beforeUpdateLease = [&] {
    EXPECT_EQ(c.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  };
  ElectionStep step = b.tryAcquireOrRenew();
  EXPECT_EQ(step.outcome, ElectionOutcome::kStandby);
  EXPECT_FALSE(b.isLeader());
  EXPECT_TRUE(c.isLeader());
  EXPECT_EQ(lease().spec.holderIdentity, "c");
  EXPECT_EQ(lease().spec.leaseTransitions, 1);
}

TEST_F(LeaderElectionTest, ALeaderWhoseRenewConflictsWithATakeoverStepsDown) {
  LeaseHookApi api(cluster_);
  LeaderElector a(api, clock_, optionsFor("a"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  clock_.advance(seconds(2));
  // Between a's read and a's renew, another replica writes the lease as its own.
  api.beforeUpdateLease = [&] {
    api::Lease taken = lease();
    taken.spec.holderIdentity = "b";
    taken.spec.renewTime = clock_.now();
    ASSERT_TRUE(cluster_.updateLease(taken).has_value());
  };
  ElectionStep step = a.tryAcquireOrRenew();
  EXPECT_EQ(step.outcome, ElectionOutcome::kLost);
  EXPECT_EQ(step.holder, "b");
  EXPECT_FALSE(a.isLeader());
  EXPECT_EQ(lease().spec.holderIdentity, "b");
}

TEST_F(LeaderElectionTest, ARenewConflictThatLeavesTheLeaseOursIsRetried) {
  LeaseHookApi api(cluster_);
  LeaderElector a(api, clock_, optionsFor("a"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  clock_.advance(seconds(2));
  api.beforeUpdateLease = [&] {
    api::Lease labelled = lease();
    labelled.metadata.labels["team"] = "platform";
    ASSERT_TRUE(cluster_.updateLease(labelled).has_value());
  };
  EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kRenewed);
  EXPECT_TRUE(a.isLeader());
  EXPECT_EQ(lease().spec.renewTime, clock_.now());
}

TEST_F(LeaderElectionTest, ARenewThatConflictsTwiceWhileTheLeaseStaysOursKeepsLeadership) {
  LeaseHookApi api(cluster_);
  LeaderElector a(api, clock_, optionsFor("a"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  clock_.advance(seconds(2));
  // Before each of a's two writes (the hook runs once; it sets itself again for the second),
  // something else writes the lease, leaving it a's.
  int writes = 0;
  std::function<void()> relabel = [&] {
    api::Lease labelled = lease();
    labelled.metadata.labels["write"] = std::to_string(++writes);
    ASSERT_TRUE(cluster_.updateLease(labelled).has_value());
    if (writes < 2) api.beforeUpdateLease = relabel;
  };
  api.beforeUpdateLease = relabel;
  const ElectionStep step = a.tryAcquireOrRenew();
  EXPECT_EQ(writes, 2);
  EXPECT_EQ(step.outcome, ElectionOutcome::kFailed);
  ASSERT_TRUE(step.error.has_value());
  EXPECT_EQ(step.error->code, ErrorCode::kConflict);
  EXPECT_EQ(step.holder, "a");
  EXPECT_TRUE(a.isLeader());  // the lease names a: leadership holds until the renew deadline
  clock_.advance(seconds(2));
  EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kRenewed);
  EXPECT_EQ(lease().spec.holderIdentity, "a");
  EXPECT_EQ(lease().spec.leaseTransitions, 0);
}

TEST_F(LeaderElectionTest, RenewFailuresPastTheRenewDeadlineEndLeadership) {
  LeaseHookApi api(cluster_);
  LeaderElector a(api, clock_, optionsFor("a"));
  ASSERT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  api.unavailable = true;
  for (int i = 1; i <= 4; ++i) {  // t = 2, 4, 6, 8 s: still within the 10 s deadline
    clock_.advance(seconds(2));
    ElectionStep step = a.tryAcquireOrRenew();
    EXPECT_EQ(step.outcome, ElectionOutcome::kFailed);
    ASSERT_TRUE(step.error.has_value());
    EXPECT_EQ(step.error->code, ErrorCode::kUnavailable);
    EXPECT_TRUE(a.isLeader());
  }
  clock_.advance(seconds(2));  // t = 10 s
  EXPECT_FALSE(a.isLeader());
  EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kLost);
  // The API server is back before the lease expired: the lease still names `a`, which takes
  // it again.
  api.unavailable = false;
  clock_.advance(seconds(2));
  EXPECT_EQ(a.tryAcquireOrRenew().outcome, ElectionOutcome::kAcquired);
  EXPECT_TRUE(a.isLeader());
  EXPECT_EQ(lease().spec.leaseTransitions, 0);
}

TEST_F(LeaderElectionTest, OptionsAreValidated) {
  EXPECT_TRUE(validate(optionsFor("a")).has_value());
  EXPECT_EQ(validate(optionsFor("")).error().field, "identity");
  LeaderElectionOptions o = optionsFor("a");
  o.renewDeadline = seconds(20);
  EXPECT_EQ(validate(o).error().field, "leaseDuration");
  o = optionsFor("a");
  o.retryPeriod = seconds(10);
  EXPECT_EQ(validate(o).error().field, "renewDeadline");
  o = optionsFor("a");
  o.retryPeriod = Duration::zero();
  EXPECT_EQ(validate(o).error().field, "retryPeriod");
}

}  // namespace
}  // namespace attune::controller
