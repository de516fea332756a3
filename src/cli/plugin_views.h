// The views of `kubectl attune` (`attune plugin`): pure functions from the objects read from the
// cluster (AttunePolicies, pods, Events) and from a planned pass to a document, and from a
// document to a table, JSON or YAML. A document is the list of rows a command shows, each an
// object with fixed fields in a fixed order; the table shows some of those fields as columns.
// Nothing here reads the cluster or the clock (the current time is an argument).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/event.h"
#include "api/k8s/pod.h"
#include "api/policy/attune_policy.h"
#include "controller/plan_preview.h"
#include "core/error.h"
#include "core/time.h"

namespace attune::cli::plugin {

using Document = nlohmann::ordered_json;

enum class OutputFormat { kTable, kJson, kYaml };
// "table", "json" or "yaml"; kInvalidArgument (field "--output") otherwise.
Result<OutputFormat> parseOutputFormat(std::string_view text);

// One column of a table: the row field it shows and its header.
struct Column {
  std::string field;
  std::string header;
};

// A document as `format`: a table of `columns` (a header line, then one line per row; a field
// that is absent or null shows as "-", numbers as JSON spells them), or the whole document as
// JSON (indented) or YAML: {"kind": kind, "items": rows}. Ends with a newline; a table of no row
// is `empty` on its own line.
std::string render(const Document& rows, std::string_view kind, const std::vector<Column>& columns,
                   OutputFormat format, std::string_view empty = "No AttunePolicies found.");

// "5s", "3m", "2h", "4d": the age of `t` at `now` as kubectl prints ages; "-" when unset.
std::string age(const std::optional<Time>& t, Time now);

// ---- status: one row per policy: namespace, name, mode, target, paused, ready (the Ready
// condition's status), reason (its reason, or its message when False), degraded (the Degraded
// condition's reason when True), the status.workloads counts (discovered, recommended, resized,
// pending), cpuReduction and memoryReduction (status.savings: how much the current
// recommendations take off the running pods' requests), lastReconcile (RFC 3339)
// and age (of lastReconcileTime at `now`).
Document statusRows(const std::vector<api::AttunePolicy>& policies, Time now);
const std::vector<Column>& statusColumns();

// ---- recommendations: one row per policy, workload and container of status.recommendations
// with its current and recommended requests and limits, confidence (percent), data points and
// the reason (the rationale the controller wrote); a policy with no recommendation gets one row
// whose reason is its Ready condition's message.
Document recommendationRows(const std::vector<api::AttunePolicy>& policies);
const std::vector<Column>& recommendationColumns();

// ---- savings: one row per policy with status.savings: CPU and memory request totals of the
// running pods, the reductions and increases the current recommendations make to them, and the
// reductions as a percentage of the totals (cpuReductionPercent, memoryReductionPercent).
Document savingsRows(const std::vector<api::AttunePolicy>& policies);
const std::vector<Column>& savingsColumns();

// ---- history: status.resizeHistory of every policy and the controller's Events about the
// pods each policy resized (those its history names or whose resize record names it), oldest
// first: time, namespace, policy, source ("status" or "event"), workload, pod, container,
// resource, from, to, result (an Event's reason for events), reason (an Event's message).
// `events` may hold any Events; those not written by the controller are left out.
Document historyRows(const std::vector<api::AttunePolicy>& policies,
                     const std::vector<api::Event>& events);
const std::vector<Column>& historyColumns();

// ---- explain: why each pod of a policy's targets was or was not resized.
struct ExplainedPod {
  std::string workload;  // the target workload the pod belongs to
  api::Pod pod;
};
// A target workload's metadata (its cooldown annotations: safety/cooldown.h), by name.
using WorkloadMetadata = std::map<std::string, api::ObjectMeta, std::less<>>;
// One row per pod: namespace, policy, workload, pod, state (UnderObservation, Resized,
// Reverted, Failed, Skipped, NotResized), since (RFC 3339, when known), why (a sentence from
// the pod's resize record, the policy's history, the policy's mode and recommendations, and its
// workload's cooldown annotations at `now`) and events (the controller's Events about the pod,
// newest last, "Reason: message").
Document explainRows(const api::AttunePolicy& policy, const std::vector<ExplainedPod>& pods,
                     const std::vector<api::Event>& events, const WorkloadMetadata& workloads,
                     Time now);
const std::vector<Column>& explainColumns();
// The lines above the table: the policy's mode, target, conditions, each workload's cooldown
// state (last resize, consecutive reverts, time left) and each container's recommendation
// rationale.
std::string explainHeader(const api::AttunePolicy& policy, const WorkloadMetadata& workloads,
                          Time now);

// ---- preview: one row per action of each policy's planned pass: namespace, policy, action
// (Resize, Skip, Defer, Revert, Restore, EndObservation, Evict, HpaRetune, Event), workload,
// pod, detail; a policy whose usage read failed gets one row (action NoResize, detail: why),
// an invalid one a row with action Invalid, and a policy with nothing to do a row with action
// None.
Document previewRows(const std::vector<controller::PolicyPreview>& previews);
const std::vector<Column>& previewColumns();

// The policy's mode as written (spec.updateStrategy.type, default Recommend).
std::string modeOf(const api::AttunePolicy& policy);
// "Deployment/web", or "Deployment app=web,tier=front" for a selector.
std::string targetOf(const api::AttunePolicy& policy);

}  // namespace attune::cli::plugin
