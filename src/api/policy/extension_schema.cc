#include "api/policy/extension_schema.h"

#include <algorithm>
#include <iterator>

namespace attune::api::internal {
namespace {

// Fields this project adds to the public AttunePolicy schema; "modeled" marks the ones
// policy_fields.h reads and writes, the rest are accepted without effect. Keep docs/policy.md
// ("Extensions") and the CRD's "Extension (not in the public attune.io API): ..." descriptions in
// step.
constexpr SchemaField kExtensionFields[] = {
    {"AttunePolicySpec", "containerPolicies", "[]ContainerResourcePolicy"},
    {"AttunePolicySpec", "nodeOptimization", "NodeOptimization"},  // modeled
    {"AttunePolicySpec", "strategy", ""},                          // modeled
    {"AttunePolicyStatus", "consecutiveReverts", ""},              // modeled
    {"AttunePolicyStatus", "gitopsPR", "GitOpsPRStatus"},
    {"AttunePolicyStatus", "lastResizeTime", ""},             // modeled
    {"AttunePolicyStatus", "observedGeneration", ""},         // modeled
    {"CanaryStatus", "workloads", "[]CanaryWorkloadStatus"},  // modeled
    {"CanaryWorkloadStatus", "phase", ""},                    // modeled
    {"CanaryWorkloadStatus", "pods", ""},                     // modeled
    {"CanaryWorkloadStatus", "startTime", ""},                // modeled
    {"CanaryWorkloadStatus", "workload", ""},                 // modeled
    {"CloudWatchConfig", "cpuUnit", ""},
    {"ContainerRecommendation", "rationale", ""},  // modeled
    {"ContainerResourcePolicy", "containerName", ""},
    {"ContainerResourcePolicy", "cpu", "ResourceConfig"},
    {"ContainerResourcePolicy", "memory", "ResourceConfig"},
    {"GitOpsPRStatus", "driftFingerprint", ""},
    {"GitOpsPRStatus", "lastAttempt", ""},
    {"GitOpsPRStatus", "url", ""},
    {"GitOpsPullRequestConfig", "allowPrivateEndpoints", ""},
    {"HPATargetBound", "max", ""},
    {"HPATargetBound", "min", ""},
    {"HPATargetBounds", "cpu", "HPATargetBound"},
    {"HPATargetBounds", "memory", "HPATargetBound"},
    {"NodeOptimization", "enabled", ""},          // modeled
    {"NodeOptimization", "evictionRanking", ""},  // modeled
    {"OOMBump", "hold", ""},
    {"OOMBump", "maxBumps", ""},
    {"OOMBump", "minBump", ""},
    {"OOMBump", "ratio", ""},
    {"ResizeHistoryEntry", "pod", ""},  // modeled
    {"ResourceConfig", "limitMultiplier", ""},
    {"ResourceConfig", "oomBump", "OOMBump"},
    {"ResourceConfig", "surge", "Surge"},
    {"StartupBoost", "excludeFromHistory", ""},
    {"Surge", "percentile", ""},
    {"Surge", "triggerRatio", ""},
    {"Surge", "window", ""},
    {"UpdateStrategy", "hpaTargetBounds", "HPATargetBounds"},
    {"UpdateStrategy", "maxCpuIncreasePerMinute", ""},
    {"UpdateStrategy", "maxMemoryIncreasePerMinute", ""},
};
static_assert(std::is_sorted(std::begin(kExtensionFields), std::end(kExtensionFields), fieldOrder),
              "kExtensionFields must stay sorted by (owner, name)");

}  // namespace

std::span<const SchemaField> extensionFields() { return kExtensionFields; }

}  // namespace attune::api::internal
