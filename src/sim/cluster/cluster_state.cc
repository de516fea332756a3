#include "sim/cluster/cluster_state.h"

#include <algorithm>
#include <charconv>
#include <utility>

namespace attune::sim {
namespace {

// The numeric value of a resourceVersion this cluster handed out.
Result<std::uint64_t> parseResourceVersion(std::string_view rv) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), value);
  if (ec != std::errc() || end != rv.data() + rv.size()) {
    return fail(ErrorCode::kInvalidArgument, "invalid resourceVersion \"" + std::string(rv) + "\"",
                "resourceVersion");
  }
  return value;
}

std::uint64_t versionOf(const api::WatchEvent<api::Pod>& e) {
  return parseResourceVersion(e.object.metadata.resourceVersion).value_or(0);
}

}  // namespace

ClusterState::ClusterState(Clock& clock) : clock_(clock), versioner_(clock) {
  pods.setObserver([this](api::WatchEventType type, const api::Pod& pod) {
    podLog_.push_back(api::WatchEvent<api::Pod>{type, pod, {}});
  });
}

Result<api::Pod> ClusterState::createPod(api::Pod pod) {
  if (pod.status.qosClass.empty()) {
    pod.status.qosClass = std::string(api::qosClassName(api::computeQosClass(pod.spec)));
  }
  return pods.create(std::move(pod));
}

Result<api::WatchBatch<api::Pod>> ClusterState::podEventsAfter(
    const api::ListOptions& options, std::string_view resourceVersion) const {
  std::uint64_t after = 0;
  if (!resourceVersion.empty()) {
    auto parsed = parseResourceVersion(resourceVersion);
    if (!parsed) return std::unexpected(parsed.error());
    after = *parsed;
  }
  api::WatchBatch<api::Pod> batch;
  batch.resourceVersion =
      resourceVersion.empty() ? std::to_string(versioner_.current()) : std::string(resourceVersion);
  auto first = std::partition_point(podLog_.begin(), podLog_.end(),
                                    [&](const auto& e) { return versionOf(e) <= after; });
  for (auto it = first; it != podLog_.end(); ++it) {
    // Later events advance the resume point even when filtered out, so they are not rescanned.
    batch.resourceVersion = it->object.metadata.resourceVersion;
    if (listMatches(options, it->object.metadata)) batch.events.push_back(*it);
  }
  return batch;
}

void ClusterState::recordPendingResize(const api::Pod& pod) {
  pendingResizes_.push_back(
      PendingResize{pod.metadata.namespace_, pod.metadata.name, pod.metadata.generation});
}

std::vector<PendingResize> ClusterState::takePendingResizes() {
  return std::exchange(pendingResizes_, {});
}

Result<void> ClusterState::evictPod(std::string_view ns, std::string_view name) {
  auto pod = pods.erase(ns, name);
  if (!pod) return std::unexpected(pod.error());
  evictions_.push_back(EvictionRecord{std::move(*pod), clock_.now()});
  return {};
}

}  // namespace attune::sim
