#include "sim/cluster/cluster_state.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

#include "sim/cluster/limit_ranger.h"
#include "sim/cluster/resize_validation.h"

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

// How admission errors name a pod: `pods "web"`.
std::string podSubject(const api::ObjectMeta& meta) {
  return "pods \"" + (meta.name.empty() ? meta.generateName : meta.name) + "\"";
}

}  // namespace

ClusterState::ClusterState(Clock& clock) : clock_(clock), versioner_(clock) {
  pods.setObserver([this](api::WatchEventType type, const api::Pod& pod) {
    podLog_.push_back(api::WatchEvent<api::Pod>{type, pod, {}});
    onPodWritten(type, pod);
  });
  resourceQuotas.setObserver([this](api::WatchEventType type, const api::ResourceQuota& quota) {
    onQuotaWritten(type, quota);
  });
}

Result<api::Pod> ClusterState::createPod(api::Pod pod) {
  const std::vector<api::LimitRange> ranges =
      limitRanges.list({.namespace_ = pod.metadata.namespace_});
  applyPodDefaults(pod, ranges);
  if (podAdmission_) {
    auto admitted = podAdmission_(std::move(pod));
    if (!admitted) return std::unexpected(admitted.error());
    pod = std::move(*admitted);
  }
  if (auto ok = validatePodResources(pod.spec); !ok) return std::unexpected(ok.error());
  const std::string subject = podSubject(pod.metadata);
  if (auto ok = validateLimitRanges(pod.spec, ranges, subject); !ok) {
    return std::unexpected(ok.error());
  }
  if (pod.status.qosClass.empty()) {
    pod.status.qosClass = std::string(api::qosClassName(api::computeQosClass(pod.spec)));
  }
  if (auto charge = quotaChargeOf(pod)) {
    if (auto ok = admitQuota(pod, nullptr, *charge); !ok) return std::unexpected(ok.error());
  }
  return pods.create(std::move(pod));
}

Result<api::Pod> ClusterState::deletePod(std::string_view ns, std::string_view name) {
  return pods.erase(ns, name);
}

Result<void> ClusterState::admitPodResize(const api::Pod& pod, const api::PodSpec& spec) const {
  const std::string subject = podSubject(pod.metadata);
  if (auto ok = validateLimitRanges(spec, limitRanges.list({.namespace_ = pod.metadata.namespace_}),
                                    subject);
      !ok) {
    return ok;
  }
  api::Pod resized = pod;
  resized.spec = spec;
  auto before = quotaChargeOf(pod);
  auto after = quotaChargeOf(resized);
  if (!after) return {};
  return admitQuota(pod, before ? &*before : nullptr, *after);
}

Result<void> ClusterState::admitQuota(const api::Pod& pod, const QuotaCharge* before,
                                      const QuotaCharge& after) const {
  Result<void> result;
  const std::string subject = podSubject(pod.metadata);
  resourceQuotas.forEachInNamespace(pod.metadata.namespace_, [&](const api::ResourceQuota& q) {
    if (!result || !quotaScopesMatch(q.scopes, after)) return;
    result = admitQuotaCharge(q, before ? &before->usage : nullptr, after.usage, subject);
  });
  return result;
}

Result<api::Namespace> ClusterState::ensureNamespace(std::string_view name) {
  if (const api::Namespace* existing = namespaces.find("", name)) return *existing;
  api::Namespace ns;
  ns.metadata.name = std::string(name);
  ns.phase = "Active";
  return namespaces.create(std::move(ns));
}

void ClusterState::onPodWritten(api::WatchEventType type, const api::Pod& pod) {
  auto nsIt = quotaNamespaces_.find(pod.metadata.namespace_);
  if (nsIt == quotaNamespaces_.end()) return;
  auto& charges = nsIt->second.charges;
  std::optional<QuotaCharge> after;
  if (type != api::WatchEventType::kDeleted) after = quotaChargeOf(pod);
  std::optional<QuotaCharge> before;
  if (auto it = charges.find(pod.metadata.name); it != charges.end()) {
    before = std::move(it->second);
    charges.erase(it);
  }
  if (after) charges.emplace(pod.metadata.name, *after);
  if (before == after) return;

  const std::string ns = pod.metadata.namespace_;
  std::vector<std::pair<std::string, api::ResourceQuota>> changed;
  resourceQuotas.forEachInNamespace(ns, [&](const api::ResourceQuota& q) {
    api::ResourceList used = q.used;
    if (before && quotaScopesMatch(q.scopes, *before)) addCharge(used, before->usage, q.hard, -1);
    if (after && quotaScopesMatch(q.scopes, *after)) addCharge(used, after->usage, q.hard, +1);
    if (!(used == q.used)) {
      api::ResourceQuota next = q;
      next.used = std::move(used);
      changed.emplace_back(q.metadata.name, std::move(next));
    }
  });
  for (auto& [name, q] : changed) writeQuotaStatus(ns, name, std::move(q.hard), std::move(q.used));
}

void ClusterState::onQuotaWritten(api::WatchEventType type, const api::ResourceQuota& quota) {
  if (writingQuotaStatus_) return;
  // `quota` is the stored object, which the writes below replace: copy what is needed first.
  const std::string ns = quota.metadata.namespace_;
  const std::string name = quota.metadata.name;
  switch (type) {
    case api::WatchEventType::kAdded: {
      auto [it, inserted] = quotaNamespaces_.try_emplace(ns);
      if (inserted) chargeNamespace(ns, it->second);
      ++it->second.quotas;
      recomputeQuota(ns, name);
      return;
    }
    case api::WatchEventType::kModified:
      recomputeQuota(ns, name);
      return;
    case api::WatchEventType::kDeleted:
      if (auto it = quotaNamespaces_.find(ns);
          it != quotaNamespaces_.end() && --it->second.quotas == 0) {
        quotaNamespaces_.erase(it);
      }
      return;
    case api::WatchEventType::kBookmark:
    case api::WatchEventType::kError:
      return;
  }
}

void ClusterState::chargeNamespace(const std::string& ns, NamespaceQuotas& quotas) const {
  quotas.charges.clear();
  pods.forEachInNamespace(ns, [&](const api::Pod& pod) {
    if (auto charge = quotaChargeOf(pod)) quotas.charges.emplace(pod.metadata.name, *charge);
  });
}

void ClusterState::recomputeQuota(const std::string& ns, const std::string& name) {
  const api::ResourceQuota* quota = resourceQuotas.find(ns, name);
  auto nsIt = quotaNamespaces_.find(ns);
  if (!quota || nsIt == quotaNamespaces_.end()) return;
  api::ResourceList used = baseUsed(*quota);
  for (const auto& [pod, charge] : nsIt->second.charges) {
    if (quotaScopesMatch(quota->scopes, charge)) addCharge(used, charge.usage, quota->specHard, +1);
  }
  writeQuotaStatus(ns, name, quota->specHard, std::move(used));
}

void ClusterState::writeQuotaStatus(const std::string& ns, const std::string& name,
                                    api::ResourceList hard, api::ResourceList used) {
  writingQuotaStatus_ = true;
  (void)resourceQuotas.modify(ns, name, "", [&](api::ResourceQuota& q) -> Result<Change> {
    if (q.hard == hard && q.used == used) return Change::kNone;
    q.hard = std::move(hard);
    q.used = std::move(used);
    return Change::kMetadata;
  });
  writingQuotaStatus_ = false;
}

void ClusterState::refreshQuotaUsage() {
  std::vector<std::pair<std::string, std::string>> keys;
  resourceQuotas.forEach([&](const api::ResourceQuota& q) {
    keys.emplace_back(q.metadata.namespace_, q.metadata.name);
  });
  for (auto& [ns, quotas] : quotaNamespaces_) chargeNamespace(ns, quotas);
  for (const auto& [ns, name] : keys) recomputeQuota(ns, name);
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

Result<void> ClusterState::evictPod(std::string_view ns, std::string_view name) {
  auto pod = pods.erase(ns, name);
  if (!pod) return std::unexpected(pod.error());
  evictions_.push_back(EvictionRecord{std::move(*pod), clock_.now()});
  return {};
}

}  // namespace attune::sim
