// coordination.k8s.io/v1 Lease, the lock of leader election.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/k8s/meta.h"

namespace attune::api {

struct LeaseSpec {
  std::string holderIdentity;
  std::optional<std::int32_t> leaseDurationSeconds;
  std::optional<Time> acquireTime;  // MicroTime (microsecond precision on the wire)
  std::optional<Time> renewTime;    // MicroTime
  std::optional<std::int32_t> leaseTransitions;

  bool operator==(const LeaseSpec&) const = default;
};

struct Lease {
  ObjectMeta metadata;
  LeaseSpec spec;

  bool operator==(const Lease&) const = default;
};

}  // namespace attune::api
