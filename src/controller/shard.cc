#include "controller/shard.h"

#include <cassert>
#include <charconv>

namespace attune::controller {

std::uint64_t namespaceKey(std::string_view namespace_) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64 offset basis
  for (const char c : namespace_) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;  // FNV prime
  }
  // SplitMix64's finaliser: names differing in one trailing character end up far apart.
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

int jumpConsistentHash(std::uint64_t key, int buckets) {
  assert(buckets >= 1);
  std::int64_t b = -1;
  std::int64_t j = 0;
  while (j < buckets) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = static_cast<std::int64_t>(
        static_cast<double>(b + 1) *
        (static_cast<double>(1LL << 31) / static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<int>(b);
}

int shardOfNamespace(std::string_view namespace_, int totalShards) {
  assert(totalShards >= 1);
  return jumpConsistentHash(namespaceKey(namespace_), totalShards);
}

bool ShardAssignment::owns(std::string_view namespace_) const {
  if (total <= 1) return true;
  if (namespace_.empty()) return ownsClusterScope();
  return shardOfNamespace(namespace_, total) == shard;
}

Result<int> ordinalFromPodName(std::string_view podName, const std::string& field) {
  const auto invalid = [&] {
    return fail(ErrorCode::kInvalidArgument,
                "want a StatefulSet pod name ending in -<ordinal> (e.g. attune-controller-2), "
                "got \"" +
                    std::string(podName) + "\"",
                field);
  };
  const std::size_t dash = podName.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return invalid();
  const std::string_view digits = podName.substr(dash + 1);
  if (digits.empty() || digits.size() > 9) return invalid();
  if (digits.size() > 1 && digits.front() == '0') return invalid();
  for (const char c : digits) {
    if (c < '0' || c > '9') return invalid();
  }
  int ordinal = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
  return ordinal;
}

Result<ShardAssignment> shardAssignment(std::optional<int> shard, int total,
                                        std::optional<std::string> podName) {
  if (total < 1) {
    return fail(ErrorCode::kInvalidArgument, "must be at least 1, got " + std::to_string(total),
                "--total-shards");
  }
  if (shard && podName) {
    return fail(ErrorCode::kInvalidArgument, "give either --shard or --shard-from-pod-name",
                "--shard");
  }
  ShardAssignment a{.shard = 0, .total = total};
  if (podName) {
    auto ordinal = ordinalFromPodName(*podName, "POD_NAME (--shard-from-pod-name)");
    if (!ordinal) return std::unexpected(ordinal.error());
    a.shard = *ordinal % total;
    return a;
  }
  if (shard) {
    if (*shard < 0 || *shard >= total) {
      return fail(ErrorCode::kInvalidArgument,
                  "must be in [0, " + std::to_string(total) + ") for --total-shards " +
                      std::to_string(total) + ", got " + std::to_string(*shard),
                  "--shard");
    }
    a.shard = *shard;
  }
  return a;
}

std::string shardLeaseName(const std::string& base, const ShardAssignment& assignment) {
  if (!assignment.sharded()) return base;
  return base + "-shard-" + std::to_string(assignment.shard);
}

}  // namespace attune::controller
