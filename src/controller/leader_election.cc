#include "controller/leader_election.h"

#include <cassert>
#include <chrono>
#include <utility>

namespace attune::controller {
namespace {

std::int32_t wholeSeconds(Duration d) {
  return static_cast<std::int32_t>(std::chrono::ceil<std::chrono::seconds>(d).count());
}

}  // namespace

Result<void> validate(const LeaderElectionOptions& o) {
  if (o.identity.empty()) return fail(ErrorCode::kInvalidArgument, "must not be empty", "identity");
  if (o.namespace_.empty()) {
    return fail(ErrorCode::kInvalidArgument, "must not be empty", "namespace");
  }
  if (o.name.empty()) return fail(ErrorCode::kInvalidArgument, "must not be empty", "name");
  if (o.retryPeriod <= Duration::zero()) {
    return fail(ErrorCode::kInvalidArgument, "must be positive", "retryPeriod");
  }
  if (o.leaseDuration < std::chrono::seconds(1)) {
    return fail(ErrorCode::kInvalidArgument, "must be at least 1s", "leaseDuration");
  }
  if (o.renewDeadline <= o.retryPeriod) {
    return fail(ErrorCode::kInvalidArgument,
                "must be longer than the retry period (" + formatDuration(o.retryPeriod) + ")",
                "renewDeadline");
  }
  if (o.leaseDuration <= o.renewDeadline) {
    return fail(ErrorCode::kInvalidArgument,
                "must be longer than the renew deadline (" + formatDuration(o.renewDeadline) + ")",
                "leaseDuration");
  }
  return {};
}

std::string_view toString(ElectionOutcome outcome) {
  switch (outcome) {
    case ElectionOutcome::kAcquired:
      return "acquired";
    case ElectionOutcome::kRenewed:
      return "renewed";
    case ElectionOutcome::kStandby:
      return "standby";
    case ElectionOutcome::kLost:
      return "lost";
    case ElectionOutcome::kFailed:
      return "failed";
  }
  return "unknown";
}

LeaderElector::LeaderElector(api::ClusterApi& api, Clock& clock, LeaderElectionOptions options)
    : api_(api), clock_(clock), options_(std::move(options)) {
  assert(validate(options_).has_value());
}

bool LeaderElector::isLeader() const {
  return lastRenewal_ && clock_.now() - *lastRenewal_ < options_.renewDeadline;
}

std::int32_t LeaderElector::durationSeconds() const { return wholeSeconds(options_.leaseDuration); }

std::optional<Time> LeaderElector::expiresAt(const api::LeaseSpec& spec) {
  if (spec.holderIdentity.empty()) return std::nullopt;
  if (!spec.renewTime || !spec.leaseDurationSeconds) return std::nullopt;
  return *spec.renewTime + std::chrono::seconds(*spec.leaseDurationSeconds);
}

bool LeaderElector::expired(const api::LeaseSpec& spec, Time now) {
  const std::optional<Time> at = expiresAt(spec);
  return !at || *at <= now;
}

std::optional<Time> LeaderElector::heldByAnotherUntil() const {
  if (!observed_ || observed_->spec.holderIdentity == options_.identity) return std::nullopt;
  return expiresAt(observed_->spec);
}

ElectionStep LeaderElector::tryAcquireOrRenew() {
  const Time now = clock_.now();
  auto lease = api_.getLease(options_.namespace_, options_.name);
  if (!lease) {
    if (lease.error().code == ErrorCode::kNotFound) return create(now);
    return failed(lease.error(), now);
  }
  observed_ = *lease;
  const api::LeaseSpec& spec = lease->spec;
  if (spec.holderIdentity == options_.identity) return renew(*lease, now, true);
  if (expired(spec, now)) return takeOver(*lease, now);
  return standby(spec.holderIdentity);
}

ElectionStep LeaderElector::create(Time now) {
  const Time sent = clock_.now();
  api::Lease lease;
  lease.metadata.namespace_ = options_.namespace_;
  lease.metadata.name = options_.name;
  lease.spec.holderIdentity = options_.identity;
  lease.spec.leaseDurationSeconds = durationSeconds();
  lease.spec.acquireTime = sent;
  lease.spec.renewTime = sent;
  lease.spec.leaseTransitions = 0;
  auto stored = api_.createLease(lease);
  if (!stored) {
    // Another replica created it between our read and our create.
    if (stored.error().code == ErrorCode::kConflict) return standby({});
    return failed(stored.error(), now);
  }
  becameLeader(*stored, now);
  return {ElectionOutcome::kAcquired, options_.identity, std::nullopt};
}

ElectionStep LeaderElector::renew(const api::Lease& lease, Time now, bool retryOnConflict) {
  const bool wasLeader = isLeader();
  const Time sent = clock_.now();
  api::Lease next = lease;
  next.spec.renewTime = sent;
  next.spec.leaseDurationSeconds = durationSeconds();
  if (!next.spec.acquireTime) next.spec.acquireTime = sent;
  auto stored = api_.updateLease(next);
  if (!stored) {
    if (stored.error().code != ErrorCode::kConflict || !retryOnConflict) {
      return failed(stored.error(), now);
    }
    // Someone else wrote the lease: read it again to see who holds it now.
    auto again = api_.getLease(options_.namespace_, options_.name);
    if (!again) return failed(again.error(), now);
    observed_ = *again;
    if (again->spec.holderIdentity == options_.identity) return renew(*again, now, false);
    return standby(again->spec.holderIdentity);
  }
  becameLeader(*stored, now);
  // A lease still naming us after a restart, or after the renew deadline passed, is acquired
  // again rather than renewed.
  return {wasLeader ? ElectionOutcome::kRenewed : ElectionOutcome::kAcquired, options_.identity,
          std::nullopt};
}

ElectionStep LeaderElector::takeOver(const api::Lease& lease, Time now) {
  const Time sent = clock_.now();
  api::Lease next = lease;
  next.spec.holderIdentity = options_.identity;
  next.spec.leaseDurationSeconds = durationSeconds();
  next.spec.acquireTime = sent;
  next.spec.renewTime = sent;
  next.spec.leaseTransitions = lease.spec.leaseTransitions.value_or(0) + 1;
  auto stored = api_.updateLease(next);
  if (!stored) {
    // Another standby took it over first.
    if (stored.error().code == ErrorCode::kConflict) return standby(lease.spec.holderIdentity);
    return failed(stored.error(), now);
  }
  becameLeader(*stored, now);
  return {ElectionOutcome::kAcquired, options_.identity, std::nullopt};
}

ElectionStep LeaderElector::standby(const std::string& holder) {
  const bool wasLeader = lastRenewal_.has_value();
  lastRenewal_.reset();
  return {wasLeader ? ElectionOutcome::kLost : ElectionOutcome::kStandby, holder, std::nullopt};
}

ElectionStep LeaderElector::failed(Error error, Time now) {
  std::string holder = observed_ ? observed_->spec.holderIdentity : std::string();
  if (lastRenewal_ && now - *lastRenewal_ >= options_.renewDeadline) {
    lastRenewal_.reset();
    return {ElectionOutcome::kLost, std::move(holder), std::move(error)};
  }
  return {ElectionOutcome::kFailed, std::move(holder), std::move(error)};
}

void LeaderElector::becameLeader(const api::Lease& stored, Time now) {
  observed_ = stored;
  lastRenewal_ = now;
}

Result<void> LeaderElector::release() {
  // Released also after the renew deadline passed: the lease may still name us.
  const bool held = lastRenewal_.has_value();
  lastRenewal_.reset();
  if (!held || !observed_) return {};
  const Time now = clock_.now();
  api::Lease next = *observed_;
  if (next.spec.holderIdentity != options_.identity) return {};
  next.spec.holderIdentity.clear();
  next.spec.leaseDurationSeconds = 1;
  next.spec.renewTime = now;
  next.spec.acquireTime = now;
  // The precondition keeps us from clearing a lease another replica has taken meanwhile.
  auto stored = api_.updateLease(next);
  if (!stored) {
    if (stored.error().code == ErrorCode::kConflict) return {};
    return std::unexpected(stored.error());
  }
  observed_ = *stored;
  return {};
}

}  // namespace attune::controller
