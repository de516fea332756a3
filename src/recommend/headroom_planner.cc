#include "recommend/headroom_planner.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace attune::recommend {
namespace {

constexpr std::size_t kMemory = 0;
constexpr std::size_t kCpu = 1;

// A pod's totals per resource, indexed kMemory / kCpu.
struct PodTotals {
  const PodDemand* pod;
  std::array<std::int64_t, 2> base{};
  std::array<std::int64_t, 2> maxHeadroom{};
  bool evictable;
};

std::array<std::int64_t, 2> baseOf(const ContainerDemand& c) {
  return {c.memoryBase.value(), c.cpuBase.value()};
}
std::array<std::int64_t, 2> headroomOf(const ContainerDemand& c) {
  return {std::max<std::int64_t>(0, c.memoryHeadroom.value()),
          std::max<std::int64_t>(0, c.cpuHeadroom.value())};
}

PodTotals totalsOf(const PodDemand& pod) {
  PodTotals t{.pod = &pod,
              .evictable = pod.workloadKind != api::TargetKind::kDaemonSet &&
                           pod.ranking != EvictionRanking::kNoEviction};
  for (const ContainerDemand& c : pod.containers) {
    for (std::size_t r : {kMemory, kCpu}) {
      t.base[r] += baseOf(c)[r];
      t.maxHeadroom[r] = std::max(t.maxHeadroom[r], headroomOf(c)[r]);
    }
  }
  return t;
}

bool fits(const std::vector<PodTotals>& pods, std::size_t r, std::int64_t available) {
  std::int64_t base = 0;
  std::int64_t headroom = 0;
  for (const PodTotals& p : pods) {
    base += p.base[r];
    headroom = std::max(headroom, p.maxHeadroom[r]);
  }
  return base + headroom <= available;
}

// Evicts pods (steps 3 and 4) until resource `r` fits; false if it never does.
bool evictUntilFits(std::vector<PodTotals>& pods, std::size_t r, std::int64_t available,
                    std::vector<Eviction>& evictions) {
  // Lowest priority first; stable so that input order breaks the remaining ties.
  std::stable_sort(pods.begin(), pods.end(), [r](const PodTotals& a, const PodTotals& b) {
    if (a.evictable != b.evictable) return a.evictable;
    if (a.pod->ranking != b.pod->ranking) return a.pod->ranking < b.pod->ranking;
    return a.maxHeadroom[r] > b.maxHeadroom[r];
  });
  while (!fits(pods, r, available)) {
    if (pods.empty() || !pods.front().evictable) return false;
    evictions.push_back({pods.front().pod->name, r == kCpu ? Resource::kCpu : Resource::kMemory});
    pods.erase(pods.begin());
  }
  return true;
}

// floor(max × h / total), exact.
std::int64_t share(std::int64_t max, std::int64_t h, std::int64_t total) {
  if (total <= 0) return 0;
  return static_cast<std::int64_t>(static_cast<__int128>(max) * h / total);
}

}  // namespace

EvictionRanking defaultEvictionRanking(api::TargetKind kind, int replicas) {
  return kind == api::TargetKind::kStatefulSet || replicas <= 1 ? EvictionRanking::kMedium
                                                                : EvictionRanking::kLow;
}

NodePlan HeadroomPlanner::plan(const NodeCapacity& node, std::span<const PodDemand> pods) const {
  NodePlan out;
  out.availableCpu = node.allocatableCpu - node.reservedCpu;
  out.availableMemory = node.allocatableMemory - node.reservedMemory;

  std::vector<PodTotals> alive;
  for (const PodDemand& p : pods) alive.push_back(totalsOf(p));
  out.memoryFits = evictUntilFits(alive, kMemory, out.availableMemory.value(), out.evictions);
  out.cpuFits = evictUntilFits(alive, kCpu, out.availableCpu.value(), out.evictions);

  std::array<std::int64_t, 2> maxHeadroom{};
  std::array<std::int64_t, 2> totalHeadroom{};
  for (const PodTotals& p : alive) {
    for (const ContainerDemand& c : p.pod->containers) {
      for (std::size_t r : {kMemory, kCpu}) {
        maxHeadroom[r] = std::max(maxHeadroom[r], headroomOf(c)[r]);
        totalHeadroom[r] += headroomOf(c)[r];
      }
    }
  }
  out.sharedMemoryHeadroom = Bytes(maxHeadroom[kMemory]);
  out.sharedCpuHeadroom = Millicores(maxHeadroom[kCpu]);

  for (const PodDemand& pod : pods) {
    const bool survived =
        std::any_of(alive.begin(), alive.end(), [&](const PodTotals& t) { return t.pod == &pod; });
    if (!survived) continue;
    for (const ContainerDemand& c : pod.containers) {
      const auto h = headroomOf(c);
      out.containers.push_back(
          {.pod = pod.name,
           .container = c.name,
           .cpuRequest =
               c.cpuBase + Millicores(share(maxHeadroom[kCpu], h[kCpu], totalHeadroom[kCpu])),
           .memoryRequest = c.memoryBase + Bytes(share(maxHeadroom[kMemory], h[kMemory],
                                                       totalHeadroom[kMemory]))});
    }
  }
  return out;
}

}  // namespace attune::recommend
