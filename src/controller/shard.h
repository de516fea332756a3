// Sharding the controller over namespaces (docs/sharding.md). With `--total-shards M`, shard N
// (0 <= N < M) reconciles only the policies of the namespaces shardOfNamespace maps to N; it
// holds its own Lease, so each shard has its own leader and hot standby.
//
// The mapping is a pure function of the namespace's name and M: every replica, of any version
// that keeps this function, computes the same owner without talking to the others. It is jump
// consistent hashing (Lamping and Veach, 2014) of a 64-bit FNV-1a hash of the name, finalised
// with SplitMix64: balanced (each shard owns about 1/M of the namespaces), and when M grows to
// M + 1 only about 1/(M + 1) of the namespaces move, all of them to the new shard M; when M
// shrinks to M - 1 only the namespaces of shard M - 1 move. The function must never change
// between releases (tests pin its values): two versions computing different owners during a
// rolling upgrade would both act on the same namespaces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace attune::controller {

// The shard in [0, totalShards) that owns `namespace_`; totalShards must be >= 1 (asserted).
int shardOfNamespace(std::string_view namespace_, int totalShards);

// The hash shardOfNamespace places: FNV-1a 64 of the bytes, then the SplitMix64 finaliser.
std::uint64_t namespaceKey(std::string_view namespace_);

// Jump consistent hashing: the bucket in [0, buckets) of `key` (buckets >= 1).
int jumpConsistentHash(std::uint64_t key, int buckets);

// Which shard this replica is.
struct ShardAssignment {
  int shard = 0;
  int total = 1;

  bool sharded() const { return total > 1; }
  // Whether this shard acts on objects of `namespace_` (always, unsharded). Cluster-scoped
  // objects (an empty namespace) belong to shard 0.
  bool owns(std::string_view namespace_) const;
  // Whether this shard does the cluster-scoped work (node taints): shard 0.
  bool ownsClusterScope() const { return shard == 0; }
};

// The StatefulSet ordinal at the end of a pod name ("attune-3" → 3). kInvalidArgument naming
// `field` (e.g. "POD_NAME") when the name does not end in "-<digits>" (no sign, no leading zero
// other than "0" itself, at most 9 digits).
Result<int> ordinalFromPodName(std::string_view podName, const std::string& field);

// The assignment of the flags: `shard` (--shard) or, when `podName` is set (--shard-from-pod-name
// with $POD_NAME), the pod's ordinal modulo `total` — a StatefulSet of total × k replicas runs k
// replicas of every shard, ordinals s, s + M, s + 2M, ... serving shard s. Errors name the flag:
// --total-shards below 1, --shard outside [0, total), both a --shard and a pod name, a pod name
// without an ordinal.
Result<ShardAssignment> shardAssignment(std::optional<int> shard, int total,
                                        std::optional<std::string> podName);

// The Lease of `assignment`'s leader election: `base` unsharded, else "<base>-shard-<N>".
std::string shardLeaseName(const std::string& base, const ShardAssignment& assignment);

}  // namespace attune::controller
