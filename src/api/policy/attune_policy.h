// The AttunePolicy API (attune.io/v1alpha1, namespaced): typed spec and status.
//
// Field names follow the public Go operator with the same API group, so a user's existing
// AttunePolicy YAML decodes unchanged. Optional fields are std::optional (or an empty string or
// container) until applyDefaults() fills them; after defaulting every defaulted field is set.
// Fields of the public API this implementation does not act on, and the extensions it accepts
// without acting on them, are kept verbatim in `preserved` so that re-encoding a policy never
// loses them. Fields this project adds beyond the public API are extensions
// (extension_schema.h). Decoding, defaulting, validation and encoding live in
// policy_codec.h, policy_defaults.h and policy_validation.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/meta.h"
#include "api/k8s/resource_values.h"
#include "api/policy/resize_schedule.h"
#include "api/yaml/source_map.h"
#include "core/error.h"
#include "core/time.h"
#include "core/units.h"

namespace attune::api {

inline constexpr std::string_view kPolicyApiVersion = "attune.io/v1alpha1";
inline constexpr std::string_view kPolicyKind = "AttunePolicy";

// ---- Enumerations. Each has a name table in enumerator order; toString() and the decoder use
// ---- it, so the spelling on the wire is defined in exactly one place.

enum class TargetKind { kDeployment, kStatefulSet, kDaemonSet, kCronJob, kJob, kReplicaSet };
inline constexpr std::array<std::string_view, 6> kTargetKindNames = {
    "Deployment", "StatefulSet", "DaemonSet", "CronJob", "Job", "ReplicaSet"};

// The graduated rollout modes, safest first (see the safety seed).
enum class UpdateMode { kObserve, kRecommend, kOneShot, kCanary, kAuto };
inline constexpr std::array<std::string_view, 5> kUpdateModeNames = {"Observe", "Recommend",
                                                                     "OneShot", "Canary", "Auto"};

enum class ControlledValues { kRequestsOnly, kRequestsAndLimits };
inline constexpr std::array<std::string_view, 2> kControlledValuesNames = {"RequestsOnly",
                                                                           "RequestsAndLimits"};

// How per-pod usage series are reduced to one series per container.
enum class PodAggregation { kMax, kAvg, kNone };
inline constexpr std::array<std::string_view, 3> kPodAggregationNames = {"Max", "Avg", "None"};

// Which recommendation algorithm sizes the containers (our extension, `spec.strategy`).
enum class RecommendationStrategy { kAttune, kCruisekube, kAdaptive };
inline constexpr std::array<std::string_view, 3> kRecommendationStrategyNames = {
    "attune", "cruisekube", "adaptive"};

// How readily the node optimiser evicts a workload's pods to make a node fit (our extension,
// `spec.nodeOptimization.evictionRanking` and the `attune.io/eviction-ranking` annotation):
// Low first, then Medium, then High; NoEviction never.
enum class EvictionRanking { kLow, kMedium, kHigh, kNoEviction };
inline constexpr std::array<std::string_view, 4> kEvictionRankingNames = {"Low", "Medium", "High",
                                                                          "NoEviction"};

// Runtime-oriented memory defaults (`spec.runtimeProfile`, runtime_profile.h); unset and
// generic change nothing.
enum class RuntimeProfile { kGeneric, kJava, kPython, kGolang, kNodejs };
inline constexpr std::array<std::string_view, 5> kRuntimeProfileNames = {
    "generic", "java", "python", "golang", "nodejs"};

// Outcome of one resize. Attune writes Success (a resize that landed; as the public operator),
// Reverted, Failed, Evicted and Skipped (an extension value); Applied (what earlier versions
// wrote for Success) and TemplatePatched are accepted.
enum class ResizeResult {
  kApplied,
  kReverted,
  kFailed,
  kSkipped,
  kSuccess,
  kEvicted,
  kTemplatePatched
};
inline constexpr std::array<std::string_view, 7> kResizeResultNames = {
    "Applied", "Reverted", "Failed", "Skipped", "Success", "Evicted", "TemplatePatched"};

enum class ResizedResource { kCpu, kMemory, kCpuAndMemory, kTemplate };
inline constexpr std::array<std::string_view, 4> kResizedResourceNames = {"cpu", "memory",
                                                                          "cpu+memory", "template"};

enum class ResizeMethod { kInPlace, kEviction, kTemplatePersistence };
inline constexpr std::array<std::string_view, 3> kResizeMethodNames = {"InPlace", "Eviction",
                                                                       "TemplatePersistence"};

// When an SLO guardrail's value breaches its threshold (updateStrategy.sloGuardrails).
enum class SloComparison { kAbove, kBelow };
inline constexpr std::array<std::string_view, 2> kSloComparisonNames = {"above", "below"};
// updateStrategy.resizeMethod: what happens when an in-place resize cannot be carried out.
// InPlaceOnly (the default) waits for the next pass; InPlaceOrRecreate evicts the pod so that
// its workload recreates it (docs/recreate-fallback.md).
enum class ResizeFallback { kInPlaceOnly, kInPlaceOrRecreate };
inline constexpr std::array<std::string_view, 2> kResizeFallbackNames = {"InPlaceOnly",
                                                                         "InPlaceOrRecreate"};

// The wire spelling of an enumerator (never empty for a valid enumerator).
std::string_view toString(TargetKind v);
std::string_view toString(UpdateMode v);
std::string_view toString(ControlledValues v);
std::string_view toString(PodAggregation v);
std::string_view toString(RecommendationStrategy v);
std::string_view toString(EvictionRanking v);
std::string_view toString(ResizeResult v);
std::string_view toString(ResizedResource v);
std::string_view toString(ResizeMethod v);
std::string_view toString(RuntimeProfile v);
std::string_view toString(SloComparison v);
std::string_view toString(ResizeFallback v);

// Condition types and reasons written to status.conditions: the public operator's, and
// ResizeBlocked's reasons, which are ours (docs/parity.md).
inline constexpr std::string_view kConditionReady = "Ready";
inline constexpr std::string_view kConditionResizing = "Resizing";
inline constexpr std::string_view kConditionDegraded = "Degraded";
inline constexpr std::string_view kConditionResizeBlocked = "ResizeBlocked";
// Ready
inline constexpr std::string_view kReasonMonitoring = "Monitoring";              // True: evaluated
inline constexpr std::string_view kReasonInsufficientData = "InsufficientData";  // False
inline constexpr std::string_view kReasonPrometheusUnavailable = "PrometheusUnavailable";  // False
inline constexpr std::string_view kReasonNoWorkloadsFound = "NoWorkloadsFound";            // False
inline constexpr std::string_view kReasonInvalidConfig = "InvalidConfig";                  // False
inline constexpr std::string_view kReasonPaused = "Paused";                                // False
// Resizing
inline constexpr std::string_view kReasonInProgress = "InProgress";          // True
inline constexpr std::string_view kReasonIdle = "Idle";                      // False
inline constexpr std::string_view kReasonCooldownActive = "CooldownActive";  // False
// Degraded
inline constexpr std::string_view kReasonHighRevertRate = "HighRevertRate";

// ---- Spec

// The workloads a policy sizes: one kind, selected by name, by labels, or both.
struct TargetRef {
  std::optional<TargetKind> kind;
  std::string name;                       // empty = not set
  std::optional<LabelSelector> selector;  // api/k8s/meta.h
  bool operator==(const TargetRef&) const = default;
};

struct SecretKeyRef {
  std::string name;
  std::string key;
  bool operator==(const SecretKeyRef&) const = default;
};

struct PrometheusSource {
  std::string address;  // http(s) URL of a Prometheus-compatible query API
  StringMap headers;
  std::optional<SecretKeyRef> bearerTokenSecret;
  std::optional<bool> insecureSkipVerify;  // `tls.insecureSkipVerify`
  // Appended to every query request's URL (e.g. Thanos "dedup"); the keys the query itself
  // sets (kReservedQueryParameters) are rejected.
  StringMap queryParameters;
  bool operator==(const PrometheusSource&) const = default;
};

// Query keys the Prometheus client sets itself; spec.metricsSource.prometheus.queryParameters
// may not name them.
inline constexpr std::array<std::string_view, 6> kReservedQueryParameters = {
    "query", "start", "end", "step", "time", "timeout"};

struct MetricsSource {
  std::optional<PrometheusSource> prometheus;
  std::optional<Duration> historyWindow;
  std::optional<int> minimumDataPoints;
  std::optional<Duration> queryStep;
  std::optional<Duration> rateWindow;
  std::optional<PodAggregation> podAggregation;
  bool operator==(const MetricsSource&) const = default;
};

// spec.cpu.startupBoost: the CPU request of a new pod is raised to the steady recommendation
// times `multiplier` until `duration` after its creation (docs/startup-boost.md).
struct StartupBoost {
  std::string multiplier;            // a decimal string, > 1 and <= 10 ("3.0")
  std::optional<Duration> duration;  // 10s to 1h; required
  bool operator==(const StartupBoost&) const = default;
};

// Recommendation parameters for one resource; Amount is Millicores (spec.cpu) or Bytes
// (spec.memory).
template <typename Amount>
struct ResourcePolicy {
  std::optional<int> percentile;        // 0 (= default), 50, 90, 95 or 99
  std::optional<std::string> overhead;  // percent as a decimal string, e.g. "20"
  std::optional<Amount> minAllowed;
  std::optional<Amount> maxAllowed;
  std::optional<ControlledValues> controlledValues;
  std::optional<bool> allowDecrease;
  std::optional<int> maxChangePercent;
  // Modelled for spec.cpu only (policy_fields.h); spec.memory.startupBoost stays preserved.
  std::optional<StartupBoost> startupBoost;
  // Memory only: the headroom, in percent of the container's current usage, a memory limit
  // decrease must leave (docs/memory-limit-decreases.md); 0-100.
  std::optional<int> decreaseUsageMarginPercent;
  bool operator==(const ResourcePolicy&) const = default;
};
using CpuPolicy = ResourcePolicy<Millicores>;
using MemoryPolicy = ResourcePolicy<Bytes>;

struct CanaryConfig {
  std::optional<int> percentage;
  std::optional<Duration> observationPeriod;
  std::optional<bool> autoPromote;
  bool operator==(const CanaryConfig&) const = default;
};

// One entry of updateStrategy.sloGuardrails: a PromQL query evaluated for each resized pod once
// `evaluationWindow` has passed since the resize; a breach reverts it with reason "slo:<name>"
// (docs/slo-guardrails.md).
struct SloGuardrail {
  std::string name;
  std::string query;      // may use {{ .Namespace }}, {{ .WorkloadName }}, {{ .PodName }}
  std::string threshold;  // a decimal number as a string ("0.5")
  std::optional<SloComparison> comparison;
  std::optional<Duration> evaluationWindow;
  bool operator==(const SloGuardrail&) const = default;
};

struct UpdateStrategy {
  std::optional<UpdateMode> type;
  std::optional<CanaryConfig> canary;
  std::optional<Duration> cooldown;
  std::optional<bool> autoRevert;
  std::optional<Duration> safetyObservationPeriod;
  std::optional<int> maxConcurrentResizes;
  // When new resizes may be made (docs/schedule.md); unset: at any time.
  std::optional<ResizeSchedule> schedule;
  // The most a pass may add to the requests of all pods together (docs/increase-budget.md);
  // decreases take nothing. Unset: no limit.
  std::optional<Millicores> maxTotalCpuIncrease;
  std::optional<Bytes> maxTotalMemoryIncrease;
  std::vector<SloGuardrail> sloGuardrails;
  std::optional<ResizeFallback> resizeMethod;  // docs/recreate-fallback.md
  bool operator==(const UpdateStrategy&) const = default;
};

// Continuous node optimisation (our extension, `spec.nodeOptimization`; CruiseKube's Phase 2):
// the policy's pods are sized node by node, sharing the node's largest spike headroom, and pods
// are evicted when a node cannot hold them.
struct NodeOptimization {
  std::optional<bool> enabled;
  // The ranking of every target workload without an attune.io/eviction-ranking annotation;
  // unset: Medium for StatefulSets and single-replica workloads, Low for the rest.
  std::optional<EvictionRanking> evictionRanking;
  bool operator==(const NodeOptimization&) const = default;
};

struct AttunePolicySpec {
  TargetRef targetRef;
  MetricsSource metricsSource;
  CpuPolicy cpu;
  MemoryPolicy memory;
  UpdateStrategy updateStrategy;
  std::vector<std::string> excludedContainers;
  std::optional<bool> excludeKnownSidecars;
  std::optional<bool> paused;
  std::optional<RuntimeProfile> runtimeProfile;  // unset: generic
  std::optional<int> weight;  // priority among policies matching one workload (1-1000)
  std::optional<RecommendationStrategy> strategy;
  std::optional<NodeOptimization> nodeOptimization;
  bool operator==(const AttunePolicySpec&) const = default;
};

// ---- Status

struct ContainerRecommendation {
  std::string name;
  ResourceValues current;
  ResourceValues recommended;
  std::optional<double> confidence;  // 0-1
  std::optional<int> dataPoints;
  std::optional<Time> lastUpdated;
  std::string rationale;  // our extension: the reasoning in one human-readable paragraph
  bool operator==(const ContainerRecommendation&) const = default;
};

struct WorkloadRecommendation {
  std::string workload;
  std::string kind;
  std::vector<ContainerRecommendation> containers;
  std::optional<Time> lastDataTime;
  std::optional<bool> stale;
  bool operator==(const WorkloadRecommendation&) const = default;
};

struct ResizeHistoryEntry {
  std::optional<Time> timestamp;
  std::string workload;
  std::string pod;  // our extension
  std::string container;
  std::optional<ResizedResource> resource;
  std::string from;
  std::string to;
  std::optional<ResizeMethod> method;
  std::optional<ResizeResult> result;
  std::string reason;  // why it was reverted, failed or skipped (e.g. "oomkill")
  bool operator==(const ResizeHistoryEntry&) const = default;
};

// status.workloads (the public API's WorkloadStatus): what the last pass found (the public API's
// counts; `deferred` and `infeasible` are not written yet).
struct PolicyWorkloadCounts {
  std::optional<int> discovered;           // workloads the target matched
  std::optional<int> withRecommendations;  // of which with a recommendation for a container
  std::optional<int> resized;              // of which resized in place and not reverted since
  std::optional<int> pending;              // with a recommendation, not resized
  std::optional<int> dataPointsCollected;  // the most samples of any container
  std::optional<int> dataPointsRequired;   // metricsSource.minimumDataPoints
  bool operator==(const PolicyWorkloadCounts&) const = default;
};

// status.savings: request totals of the last pass over the running pods, as Kubernetes
// quantities ("200m", "256Mi"); an increase is left empty when there is none. The cost estimates
// of the public API are not written.
struct SavingsStatus {
  std::string cpuRequestTotal;
  std::string cpuRequestReduction;
  std::string cpuRequestIncrease;
  std::string memoryRequestTotal;
  std::string memoryRequestReduction;
  std::string memoryRequestIncrease;
  // The same quantities as the reductions, under the public API's names for capacity planning.
  std::string reclaimedCpuRequest;
  std::string reclaimedMemoryRequest;
  bool operator==(const SavingsStatus&) const = default;
};

// status.canary: the Canary rollout of the policy's workloads, as the planner left it this pass
// (absent outside Canary mode, or while no workload needs a resize yet).
inline constexpr std::string_view kCanaryPhaseInProgress = "CanaryInProgress";
inline constexpr std::string_view kCanaryPhaseFullRollout = "FullRollout";

// One workload's canary (the public operator's later CanaryWorkloadStatus; not in its v0.1.23
// CRD, so an extension here).
struct CanaryWorkloadStatus {
  std::string workload;
  std::string phase;              // kCanaryPhaseInProgress or kCanaryPhaseFullRollout
  std::vector<std::string> pods;  // the canary pods, in name order
  std::optional<Time> startTime;  // when the first canary pod was resized
  bool operator==(const CanaryWorkloadStatus&) const = default;
};

struct CanaryStatus {
  // CanaryInProgress while any workload's canaries are being resized, observed or wait for
  // promotion; FullRollout once every workload is past its canaries.
  std::string phase;
  std::vector<std::string> pods;  // the canary pods of every workload (at most 100)
  std::optional<Time> startTime;  // the earliest workload startTime
  // metadata.generation when this canary cycle started; a new generation starts a new cycle.
  std::optional<std::int64_t> observedGeneration;
  std::vector<CanaryWorkloadStatus> workloads;  // extension (see CanaryWorkloadStatus)
  bool operator==(const CanaryStatus&) const = default;
};

// status.cooldown: the backoff of the policy's workloads (the most consecutive reverts of any
// target workload, from its attune.io/consecutive-reverts annotation).
struct CooldownStatus {
  std::optional<int> backoffMultiplier;  // 1, 2, 4, 8 or 16
  std::optional<int> consecutiveReverts;
  std::string effectiveCooldown;  // updateStrategy.cooldown × backoffMultiplier ("2h")
  bool operator==(const CooldownStatus&) const = default;
};

struct AttunePolicyStatus {
  std::vector<Condition> conditions;  // api/k8s/meta.h
  std::vector<WorkloadRecommendation> recommendations;
  std::vector<ResizeHistoryEntry> resizeHistory;
  std::optional<PolicyWorkloadCounts> workloads;
  std::optional<SavingsStatus> savings;
  std::optional<CanaryStatus> canary;
  std::optional<CooldownStatus> cooldown;
  // The last pass over this policy: a heartbeat, written with every status change and otherwise
  // at least every ControllerOptions::statusHeartbeat (controller/controller.h).
  std::optional<Time> lastReconcileTime;
  std::optional<int> consecutiveReverts;
  std::optional<Time> lastResizeTime;
  std::optional<std::int64_t> observedGeneration;
  bool operator==(const AttunePolicyStatus&) const = default;
};

// ---- Bookkeeping carried by a decoded policy

// A field Attune accepts but does not model (public, or an extension), kept verbatim.
// `path` is absolute ("spec.cpu.startupBoost", "status.recommendations[0].containers[1].
// explanation"); `json` is the value as compact JSON.
struct PreservedField {
  std::string path;
  std::string json;
  bool operator==(const PreservedField&) const = default;
};

// One error or warning about a policy document. `error.field` is the field path
// ("spec.updateStrategy.cooldown"); line and column are 1-based, 0 when unknown.
using PolicyDiagnostic = SourceDiagnostic;

// metadata uses the shared ObjectMeta (api/k8s/meta.h): name is required (a DNS-1123
// subdomain), namespace optional in files; metadata fields ObjectMeta does not model
// (managedFields, finalizers, ...) are kept in `preserved`.
struct AttunePolicy {
  ObjectMeta metadata;
  AttunePolicySpec spec;
  AttunePolicyStatus status;
  std::vector<PreservedField> preserved;  // sorted by path
  SourceMap sources;                      // empty for policies built in code
  bool operator==(const AttunePolicy&) const = default;
};

// ---- Container exclusion

// Sidecar containers skipped when spec.excludeKnownSidecars is true (the default).
std::span<const std::string_view> knownSidecarContainers();

// True if the container named `name` is neither recommended for nor resized: it is listed in
// spec.excludedContainers, or it is a known sidecar and excludeKnownSidecars is not false.
bool isExcludedContainer(const AttunePolicy& policy, std::string_view name);

// Parses a percent string as used by cpu/memory `overhead` ("20", "12.5"): digits with an
// optional fraction. Returns nullopt when `text` does not have that form.
std::optional<double> parsePercent(std::string_view text);

// Parses a signed decimal string as startupBoost.multiplier and sloGuardrails[].threshold use
// ("3.0", "-0.5", "1e-3"): a finite number with nothing around it. nullopt otherwise.
std::optional<double> parseDecimal(std::string_view text);

}  // namespace attune::api
