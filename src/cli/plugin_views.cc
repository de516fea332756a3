#include "cli/plugin_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <variant>

#include "api/policy/policy_defaults.h"
#include "controller/event_recorder.h"
#include "core/quantity.h"
#include "report/recommend_render.h"
#include "report/text_columns.h"
#include "safety/annotations.h"
#include "safety/cooldown.h"
#include "safety/resize_record.h"

namespace attune::cli::plugin {
namespace {

const api::Condition* findCondition(const api::AttunePolicy& p, std::string_view type) {
  for (const api::Condition& c : p.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

std::string cell(const Document& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    return s.empty() ? "-" : s;
  }
  return v.dump();
}

Document optionalInt(const std::optional<int>& v) { return v ? Document(*v) : Document(); }
Document optionalText(const std::string& v) { return v.empty() ? Document() : Document(v); }
Document optionalTime(const std::optional<Time>& t) {
  return t ? Document(formatRfc3339(*t)) : Document();
}

std::string cpuText(const std::optional<Millicores>& v) { return v ? formatCpu(*v) : ""; }
std::string memoryText(const std::optional<Bytes>& v) { return v ? formatMemory(*v) : ""; }

// The share `part` is of `total`, both quantities, in percent with one decimal; null when
// either is missing or the total is zero.
Document percentOf(const std::string& part, const std::string& total, bool memory) {
  if (part.empty() || total.empty()) return Document();
  const auto p = Quantity::parse(part);
  const auto t = Quantity::parse(total);
  if (!p || !t) return Document();
  const double pv = memory ? static_cast<double>(p->toBytes().value())
                           : static_cast<double>(p->toMillicores().value());
  const double tv = memory ? static_cast<double>(t->toBytes().value())
                           : static_cast<double>(t->toMillicores().value());
  if (tv <= 0) return Document();
  return std::round(1000.0 * pv / tv) / 10.0;
}

bool fromController(const api::Event& e) {
  return e.reportingComponent == controller::kEventComponent ||
         e.sourceComponent == controller::kEventComponent;
}

std::optional<Time> eventTime(const api::Event& e) {
  if (e.series && e.series->lastObservedTime) return e.series->lastObservedTime;
  if (e.lastTimestamp) return e.lastTimestamp;
  if (e.eventTime) return e.eventTime;
  return e.firstTimestamp;
}

// The pods `policy` resized: named in its history, or carrying its resize record.
std::set<std::string> podsOf(const api::AttunePolicy& policy) {
  std::set<std::string> pods;
  for (const api::ResizeHistoryEntry& h : policy.status.resizeHistory) {
    if (!h.pod.empty()) pods.insert(h.pod);
  }
  return pods;
}

// The controller's Events about pods of `namespace_` named in `pods`, oldest first.
std::vector<const api::Event*> eventsAbout(const std::vector<api::Event>& events,
                                           const std::string& namespace_,
                                           const std::set<std::string>& pods) {
  std::vector<const api::Event*> out;
  for (const api::Event& e : events) {
    if (!fromController(e) || e.involvedObject.kind != "Pod") continue;
    const std::string ns =
        e.involvedObject.namespace_.empty() ? e.metadata.namespace_ : e.involvedObject.namespace_;
    if (ns != namespace_ || !pods.contains(e.involvedObject.name)) continue;
    out.push_back(&e);
  }
  std::stable_sort(out.begin(), out.end(), [](const api::Event* a, const api::Event* b) {
    return eventTime(*a).value_or(Time{}) < eventTime(*b).value_or(Time{});
  });
  return out;
}

bool resizes(const api::AttunePolicy& p) {
  const auto mode = p.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode);
  return mode != api::UpdateMode::kObserve && mode != api::UpdateMode::kRecommend;
}

const api::WorkloadRecommendation* recommendationOf(const api::AttunePolicy& p,
                                                    const std::string& workload) {
  for (const api::WorkloadRecommendation& w : p.status.recommendations) {
    if (w.workload == workload) return &w;
  }
  return nullptr;
}

// The cooldown a workload still waits at `now` (its annotations and the policy's cooldown), with
// the sentence saying so; nullopt when none is left or its annotations do not say.
std::optional<std::string> cooldownLeft(const api::AttunePolicy& p,
                                        const WorkloadMetadata& workloads,
                                        const std::string& workload, Time now) {
  auto it = workloads.find(workload);
  if (it == workloads.end()) return std::nullopt;
  auto state = safety::decodeCooldownState(it->second);
  if (!state) return "its cooldown annotations do not parse: " + state.error().toString();
  const Duration base = p.spec.updateStrategy.cooldown.value_or(api::kDefaultCooldown);
  const Duration left = safety::remainingCooldown(*state, base, now);
  if (left <= Duration::zero()) return std::nullopt;
  return fmt::format(
      "the workload's cooldown has {} left ({} x {} after {} consecutive revert(s), since {})",
      formatDuration(std::chrono::duration_cast<std::chrono::seconds>(left)),
      safety::cooldownMultiplier(state->consecutiveReverts), formatDuration(base),
      state->consecutiveReverts,
      state->lastResizeTime ? formatRfc3339(*state->lastResizeTime) : "-");
}

std::string change(const api::ResizeHistoryEntry& h) {
  std::string text = h.container.empty() ? std::string() : h.container + ": ";
  if (h.resource) text += std::string(api::toString(*h.resource)) + " ";
  if (!h.from.empty() || !h.to.empty()) text += h.from + " -> " + h.to;
  return text;
}

}  // namespace

Result<OutputFormat> parseOutputFormat(std::string_view text) {
  if (text == "table" || text == "wide") return OutputFormat::kTable;
  if (text == "json") return OutputFormat::kJson;
  if (text == "yaml") return OutputFormat::kYaml;
  return fail(ErrorCode::kInvalidArgument,
              fmt::format("unknown output format \"{}\" (table, json or yaml)", text), "--output");
}

std::string render(const Document& rows, std::string_view kind, const std::vector<Column>& columns,
                   OutputFormat format, std::string_view empty) {
  if (format != OutputFormat::kTable) {
    Document doc;
    doc["kind"] = kind;
    doc["items"] = rows.is_array() ? rows : Document::array();
    if (format == OutputFormat::kJson) return doc.dump(2) + "\n";
    return report::renderDocumentYaml(doc);
  }
  if (!rows.is_array() || rows.empty()) return std::string(empty) + "\n";
  std::vector<report::TextRow> lines;
  report::TextRow header;
  for (const Column& c : columns) header.push_back(c.header);
  lines.push_back(std::move(header));
  for (const Document& row : rows) {
    report::TextRow line;
    for (const Column& c : columns) {
      line.push_back(row.contains(c.field) ? cell(row[c.field]) : "-");
    }
    lines.push_back(std::move(line));
  }
  return report::alignedColumns(lines, {});
}

std::string age(const std::optional<Time>& t, Time now) {
  if (!t) return "-";
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - *t).count();
  if (seconds < 0) return "0s";
  if (seconds < 120) return fmt::format("{}s", seconds);
  if (seconds < 2 * 3600) return fmt::format("{}m", seconds / 60);
  if (seconds < 2 * 86400) return fmt::format("{}h", seconds / 3600);
  return fmt::format("{}d", seconds / 86400);
}

std::string modeOf(const api::AttunePolicy& policy) {
  return std::string(
      api::toString(policy.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode)));
}

std::string targetOf(const api::AttunePolicy& policy) {
  const api::TargetRef& t = policy.spec.targetRef;
  const std::string kind = t.kind ? std::string(api::toString(*t.kind)) : "?";
  std::string out = kind;
  if (!t.name.empty()) out += "/" + t.name;
  if (t.selector) {
    std::vector<std::string> terms;
    for (const auto& [k, v] : t.selector->matchLabels) terms.push_back(k + "=" + v);
    for (const auto& e : t.selector->matchExpressions) {
      terms.push_back(fmt::format("{} {} ({})", e.key, e.operator_, fmt::join(e.values, ",")));
    }
    out += " " + fmt::format("{}", fmt::join(terms, ","));
  }
  return out;
}

// ---- status

Document statusRows(const std::vector<api::AttunePolicy>& policies, Time now) {
  Document rows = Document::array();
  for (const api::AttunePolicy& p : policies) {
    Document row;
    row["namespace"] = p.metadata.namespace_;
    row["name"] = p.metadata.name;
    row["mode"] = modeOf(p);
    row["target"] = targetOf(p);
    row["paused"] = p.spec.paused.value_or(api::kDefaultPaused);
    const api::Condition* ready = findCondition(p, api::kConditionReady);
    row["ready"] = ready ? Document(ready->status) : Document();
    row["reason"] = ready == nullptr ? Document()
                    : ready->isTrue() || ready->message.empty()
                        ? optionalText(ready->reason)
                        : Document(ready->reason + ": " + ready->message);
    const api::Condition* degraded = findCondition(p, api::kConditionDegraded);
    row["degraded"] = degraded && degraded->isTrue() ? optionalText(degraded->reason) : Document();
    const api::PolicyWorkloadCounts counts =
        p.status.workloads.value_or(api::PolicyWorkloadCounts{});
    row["discovered"] = optionalInt(counts.discovered);
    row["recommended"] = optionalInt(counts.withRecommendations);
    row["resized"] = optionalInt(counts.resized);
    row["pending"] = optionalInt(counts.pending);
    const api::SavingsStatus savings = p.status.savings.value_or(api::SavingsStatus{});
    row["cpuReduction"] = optionalText(savings.cpuRequestReduction);
    row["memoryReduction"] = optionalText(savings.memoryRequestReduction);
    row["lastReconcile"] = optionalTime(p.status.lastReconcileTime);
    row["age"] = age(p.status.lastReconcileTime, now);
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<Column>& statusColumns() {
  static const std::vector<Column> columns = {{"namespace", "NAMESPACE"},
                                              {"name", "NAME"},
                                              {"mode", "MODE"},
                                              {"target", "TARGET"},
                                              {"ready", "READY"},
                                              {"reason", "REASON"},
                                              {"degraded", "DEGRADED"},
                                              {"discovered", "WORKLOADS"},
                                              {"resized", "RESIZED"},
                                              {"pending", "PENDING"},
                                              {"cpuReduction", "CPU REDUCTION"},
                                              {"memoryReduction", "MEMORY REDUCTION"},
                                              {"age", "LAST RECONCILE"}};
  return columns;
}

// ---- recommendations

Document recommendationRows(const std::vector<api::AttunePolicy>& policies) {
  Document rows = Document::array();
  for (const api::AttunePolicy& p : policies) {
    if (p.status.recommendations.empty()) {
      const api::Condition* ready = findCondition(p, api::kConditionReady);
      Document row;
      row["namespace"] = p.metadata.namespace_;
      row["policy"] = p.metadata.name;
      row["workload"] = Document();
      row["container"] = Document();
      row["reason"] = ready ? optionalText(ready->message.empty() ? ready->reason : ready->message)
                            : Document("no status yet: the controller has not reconciled it");
      rows.push_back(std::move(row));
      continue;
    }
    for (const api::WorkloadRecommendation& w : p.status.recommendations) {
      for (const api::ContainerRecommendation& c : w.containers) {
        Document row;
        row["namespace"] = p.metadata.namespace_;
        row["policy"] = p.metadata.name;
        row["workload"] = w.kind.empty() ? w.workload : w.kind + "/" + w.workload;
        row["container"] = c.name;
        row["cpuRequest"] = optionalText(cpuText(c.current.cpuRequest));
        row["cpuRecommended"] = optionalText(cpuText(c.recommended.cpuRequest));
        row["cpuLimit"] = optionalText(cpuText(c.current.cpuLimit));
        row["cpuLimitRecommended"] = optionalText(cpuText(c.recommended.cpuLimit));
        row["memoryRequest"] = optionalText(memoryText(c.current.memoryRequest));
        row["memoryRecommended"] = optionalText(memoryText(c.recommended.memoryRequest));
        row["memoryLimit"] = optionalText(memoryText(c.current.memoryLimit));
        row["memoryLimitRecommended"] = optionalText(memoryText(c.recommended.memoryLimit));
        row["confidence"] = c.confidence
                                ? Document(static_cast<int>(std::lround(*c.confidence * 100)))
                                : Document();
        row["dataPoints"] = optionalInt(c.dataPoints);
        row["stale"] = w.stale.value_or(false);
        row["reason"] = optionalText(c.rationale);
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

const std::vector<Column>& recommendationColumns() {
  static const std::vector<Column> columns = {
      {"namespace", "NAMESPACE"},     {"policy", "POLICY"},
      {"workload", "WORKLOAD"},       {"container", "CONTAINER"},
      {"cpuRequest", "CPU REQ"},      {"cpuRecommended", "CPU REC"},
      {"memoryRequest", "MEM REQ"},   {"memoryRecommended", "MEM REC"},
      {"confidence", "CONFIDENCE %"}, {"reason", "REASON"}};
  return columns;
}

// ---- savings

Document savingsRows(const std::vector<api::AttunePolicy>& policies) {
  Document rows = Document::array();
  for (const api::AttunePolicy& p : policies) {
    const api::SavingsStatus s = p.status.savings.value_or(api::SavingsStatus{});
    Document row;
    row["namespace"] = p.metadata.namespace_;
    row["name"] = p.metadata.name;
    row["cpuRequestTotal"] = optionalText(s.cpuRequestTotal);
    row["cpuRequestReduction"] = optionalText(s.cpuRequestReduction);
    row["cpuRequestIncrease"] = optionalText(s.cpuRequestIncrease);
    row["cpuReductionPercent"] = percentOf(s.cpuRequestReduction, s.cpuRequestTotal, false);
    row["memoryRequestTotal"] = optionalText(s.memoryRequestTotal);
    row["memoryRequestReduction"] = optionalText(s.memoryRequestReduction);
    row["memoryRequestIncrease"] = optionalText(s.memoryRequestIncrease);
    row["memoryReductionPercent"] = percentOf(s.memoryRequestReduction, s.memoryRequestTotal, true);
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<Column>& savingsColumns() {
  static const std::vector<Column> columns = {{"namespace", "NAMESPACE"},
                                              {"name", "NAME"},
                                              {"cpuRequestTotal", "CPU REQUESTS"},
                                              {"cpuRequestReduction", "CPU REDUCTION"},
                                              {"cpuReductionPercent", "CPU %"},
                                              {"cpuRequestIncrease", "CPU INCREASE"},
                                              {"memoryRequestTotal", "MEMORY REQUESTS"},
                                              {"memoryRequestReduction", "MEMORY REDUCTION"},
                                              {"memoryReductionPercent", "MEMORY %"},
                                              {"memoryRequestIncrease", "MEMORY INCREASE"}};
  return columns;
}

// ---- history

Document historyRows(const std::vector<api::AttunePolicy>& policies,
                     const std::vector<api::Event>& events) {
  struct Row {
    Time time;
    Document row;
  };
  std::vector<Row> all;
  for (const api::AttunePolicy& p : policies) {
    for (const api::ResizeHistoryEntry& h : p.status.resizeHistory) {
      Document row;
      row["time"] = optionalTime(h.timestamp);
      row["namespace"] = p.metadata.namespace_;
      row["policy"] = p.metadata.name;
      row["source"] = "status";
      row["workload"] = optionalText(h.workload);
      row["pod"] = optionalText(h.pod);
      row["container"] = optionalText(h.container);
      row["resource"] = h.resource ? Document(api::toString(*h.resource)) : Document();
      row["from"] = optionalText(h.from);
      row["to"] = optionalText(h.to);
      row["method"] = h.method ? Document(api::toString(*h.method)) : Document();
      row["result"] = h.result ? Document(api::toString(*h.result)) : Document();
      row["reason"] = optionalText(h.reason);
      all.push_back({h.timestamp.value_or(Time{}), std::move(row)});
    }
    for (const api::Event* e : eventsAbout(events, p.metadata.namespace_, podsOf(p))) {
      Document row;
      row["time"] = optionalTime(eventTime(*e));
      row["namespace"] = p.metadata.namespace_;
      row["policy"] = p.metadata.name;
      row["source"] = "event";
      row["workload"] = Document();
      row["pod"] = e->involvedObject.name;
      row["container"] = Document();
      row["resource"] = Document();
      row["from"] = Document();
      row["to"] = Document();
      row["method"] = Document();
      row["result"] = e->reason;
      row["reason"] = e->count > 1 ? fmt::format("{} (x{})", e->message, e->count) : e->message;
      all.push_back({eventTime(*e).value_or(Time{}), std::move(row)});
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Row& a, const Row& b) { return a.time < b.time; });
  Document rows = Document::array();
  for (Row& r : all) rows.push_back(std::move(r.row));
  return rows;
}

const std::vector<Column>& historyColumns() {
  static const std::vector<Column> columns = {
      {"time", "TIME"},           {"namespace", "NAMESPACE"},
      {"policy", "POLICY"},       {"source", "SOURCE"},
      {"workload", "WORKLOAD"},   {"pod", "POD"},
      {"container", "CONTAINER"}, {"resource", "RESOURCE"},
      {"from", "FROM"},           {"to", "TO"},
      {"result", "RESULT"},       {"reason", "REASON"}};
  return columns;
}

// ---- explain

Document explainRows(const api::AttunePolicy& policy, const std::vector<ExplainedPod>& pods,
                     const std::vector<api::Event>& events, const WorkloadMetadata& workloads,
                     Time now) {
  Document rows = Document::array();
  for (const ExplainedPod& ep : pods) {
    const api::Pod& pod = ep.pod;
    Document row;
    row["namespace"] = policy.metadata.namespace_;
    row["policy"] = policy.metadata.name;
    row["workload"] = ep.workload;
    row["pod"] = pod.metadata.name;
    std::string state;
    std::optional<Time> since;
    std::string why;
    auto record = safety::decodeResizeRecord(pod);
    // The newest history entries of this pod (one per container and resource of one action).
    const api::ResizeHistoryEntry* last = nullptr;
    std::vector<const api::ResizeHistoryEntry*> lastAction;
    for (const api::ResizeHistoryEntry& h : policy.status.resizeHistory) {
      if (h.pod != pod.metadata.name) continue;
      if (last == nullptr || h.timestamp.value_or(Time{}) > last->timestamp.value_or(Time{})) {
        last = &h;
        lastAction.clear();
      }
      if (h.timestamp == last->timestamp) lastAction.push_back(&h);
    }
    std::vector<std::string> changes;
    for (const api::ResizeHistoryEntry* h : lastAction) {
      if (!h->from.empty() || !h->to.empty()) changes.push_back(change(*h));
    }
    const std::string changeText = fmt::format("{}", fmt::join(changes, "; "));
    if (!record) {
      state = "Invalid";
      why = "its resize record does not parse: " + record.error().toString();
    } else if (*record) {
      state = "UnderObservation";
      since = (*record)->resizedAt;
      std::vector<std::string> names;
      for (const auto& c : (*record)->containers) names.push_back(c.name);
      why = fmt::format(
          "resized by policy {} ({}); under observation for the safety period, the originals "
          "kept in its {}* annotations",
          (*record)->policy.empty() ? policy.metadata.name : (*record)->policy,
          fmt::join(names, ", "), "attune.io/original-");
      if (!changeText.empty()) why += ": " + changeText;
    } else if (last != nullptr && last->result) {
      since = last->timestamp;
      const api::ResizeResult result = *last->result;
      state = std::string(api::toString(result));
      if (result == api::ResizeResult::kApplied || result == api::ResizeResult::kSuccess) {
        state = "Resized";
        why = "resized in place; the observation period passed without a safety violation";
      } else if (result == api::ResizeResult::kReverted) {
        why = "resized, then reverted to its original resources: " + last->reason;
      } else if (result == api::ResizeResult::kSkipped) {
        why = "not resized: " + last->reason;
      } else if (result == api::ResizeResult::kFailed) {
        why = "the resize failed: " + last->reason;
      } else {
        why = last->reason;
      }
      if (!changeText.empty()) why += " (" + changeText + ")";
    } else {
      state = "NotResized";
      const api::WorkloadRecommendation* rec = recommendationOf(policy, ep.workload);
      if (policy.spec.paused.value_or(api::kDefaultPaused)) {
        why = "the policy is paused";
      } else if (!resizes(policy)) {
        why = "mode " + modeOf(policy) + " only recommends; pods are never resized";
      } else if (rec == nullptr || rec->containers.empty()) {
        why = "no recommendation for its workload yet";
      } else {
        std::vector<std::string> reasons;
        for (const api::ContainerRecommendation& c : rec->containers) {
          if (!c.recommended.cpuRequest && !c.recommended.memoryRequest) {
            reasons.push_back(c.name + ": " + c.rationale);
          }
        }
        const std::optional<std::string> cooldown =
            cooldownLeft(policy, workloads, ep.workload, now);
        if (!reasons.empty()) {
          why = fmt::format("no recommendation: {}", fmt::join(reasons, "; "));
        } else if (cooldown) {
          why = "not resized yet: " + *cooldown;
        } else {
          why =
              "not resized yet: at its target, or waiting for its turn (maxConcurrentResizes, "
              "canary)";
        }
      }
    }
    row["state"] = state;
    row["since"] = optionalTime(since);
    row["why"] = why;
    Document podEvents = Document::array();
    for (const api::Event* e :
         eventsAbout(events, policy.metadata.namespace_, {pod.metadata.name})) {
      podEvents.push_back(e->reason + ": " + e->message);
    }
    row["events"] = podEvents;
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<Column>& explainColumns() {
  static const std::vector<Column> columns = {{"workload", "WORKLOAD"},
                                              {"pod", "POD"},
                                              {"state", "STATE"},
                                              {"since", "SINCE"},
                                              {"why", "WHY"}};
  return columns;
}

std::string explainHeader(const api::AttunePolicy& p, const WorkloadMetadata& workloads, Time now) {
  std::string out = fmt::format("Policy:    {}/{}\nMode:      {}{}\nTarget:    {}\n",
                                p.metadata.namespace_, p.metadata.name, modeOf(p),
                                p.spec.paused.value_or(false) ? " (paused)" : "", targetOf(p));
  out += fmt::format("Reconciled: {} ago\n", age(p.status.lastReconcileTime, now));
  for (const api::Condition& c : p.status.conditions) {
    out += fmt::format("Condition: {}={} {}{}\n", c.type, c.status, c.reason,
                       c.message.empty() ? "" : " (" + c.message + ")");
  }
  for (const auto& [name, meta] : workloads) {
    auto state = safety::decodeCooldownState(meta);
    if (!state) {
      out += fmt::format("Workload:  {}: {}\n", name, state.error().toString());
      continue;
    }
    const std::optional<std::string> left = cooldownLeft(p, workloads, name, now);
    out += fmt::format("Workload:  {}: last resize {}, {} consecutive revert(s){}\n", name,
                       state->lastResizeTime ? formatRfc3339(*state->lastResizeTime) : "never",
                       state->consecutiveReverts, left ? "; " + *left : "");
  }
  for (const api::WorkloadRecommendation& w : p.status.recommendations) {
    for (const api::ContainerRecommendation& c : w.containers) {
      out += fmt::format("Recommendation {}/{}: {}\n", w.workload, c.name,
                         c.rationale.empty() ? "-" : c.rationale);
    }
  }
  return out + "\n";
}

// ---- preview

namespace {

struct PreviewAction {
  std::string action;
  std::string workload;
  std::string pod;
  std::string detail;
};

PreviewAction describe(const rollout::Action& action) {
  return std::visit(
      [](const auto& a) -> PreviewAction {
        using T = std::decay_t<decltype(a)>;
        PreviewAction out{.action = {}, .workload = a.workload.name, .pod = {}, .detail = {}};
        if constexpr (std::is_same_v<T, rollout::ResizeAction>) {
          out.action = a.canary ? "Resize (canary)" : "Resize";
          out.pod = a.pod;
          out.detail = a.message;
        } else if constexpr (std::is_same_v<T, rollout::SkipAction>) {
          out.action = "Skip";
          out.pod = a.pod;
          out.detail = std::string(rollout::toString(a.reason)) + ": " + a.message;
        } else if constexpr (std::is_same_v<T, rollout::DeferAction>) {
          out.action = "Defer";
          out.pod = a.pod;
          out.detail = std::string(rollout::toString(a.reason)) + ": " + a.message;
        } else if constexpr (std::is_same_v<T, rollout::RevertAction>) {
          out.action = "Revert";
          out.pod = a.pod;
          out.detail = a.message;
        } else if constexpr (std::is_same_v<T, rollout::RestoreAction>) {
          out.action = "Restore";
          out.pod = a.pod;
          out.detail = "the kubelet reported the resize " + a.refusal;
        } else if constexpr (std::is_same_v<T, rollout::EndObservationAction>) {
          out.action = "EndObservation";
          out.pod = a.pod;
          out.detail = a.message;
        } else if constexpr (std::is_same_v<T, rollout::EvictAction>) {
          out.action = "Evict";
          out.pod = a.pod;
          out.detail = a.message;
        } else if constexpr (std::is_same_v<T, rollout::HpaRetuneAction>) {
          out.action = "HpaRetune";
          out.detail = a.message;
        } else if constexpr (std::is_same_v<T, rollout::StartupBoostAction>) {
          out.action = "StartupBoost";
          out.pod = a.pod;
          out.detail = a.message;
        } else if constexpr (std::is_same_v<T, rollout::EndStartupBoostAction>) {
          out.action = "EndStartupBoost";
          out.pod = a.pod;
          out.detail = a.message;
        } else {
          out.action = "Event";
          out.detail = a.reason + ": " + a.message;
        }
        return out;
      },
      action);
}

}  // namespace

Document previewRows(const std::vector<controller::PolicyPreview>& previews) {
  Document rows = Document::array();
  const auto add = [&](const api::AttunePolicy& p, const PreviewAction& a) {
    Document row;
    row["namespace"] = p.metadata.namespace_;
    row["policy"] = p.metadata.name;
    row["mode"] = modeOf(p);
    row["action"] = a.action;
    row["workload"] = optionalText(a.workload);
    row["pod"] = optionalText(a.pod);
    row["detail"] = optionalText(a.detail);
    rows.push_back(std::move(row));
  };
  for (const controller::PolicyPreview& p : previews) {
    if (p.invalid) {
      add(p.policy, {.action = "Invalid", .workload = {}, .pod = {}, .detail = *p.invalid});
      continue;
    }
    if (p.metricsError) {
      add(p.policy, {.action = "NoResize",
                     .workload = {},
                     .pod = {},
                     .detail = "metrics unavailable, nothing is resized: " + *p.metricsError});
    }
    for (const rollout::Action& a : p.plan.actions) add(p.policy, describe(a));
    if (p.plan.actions.empty() && !p.metricsError) {
      std::string detail = fmt::format("{} pod(s) at target, {} under observation, {} waiting",
                                       p.plan.atTarget, p.plan.underObservation, p.plan.waiting);
      if (!resizes(p.policy)) detail = "mode " + modeOf(p.policy) + " never resizes; " + detail;
      add(p.policy, {.action = "None", .workload = {}, .pod = {}, .detail = detail});
    }
  }
  return rows;
}

const std::vector<Column>& previewColumns() {
  static const std::vector<Column> columns = {
      {"namespace", "NAMESPACE"}, {"policy", "POLICY"}, {"mode", "MODE"},    {"action", "ACTION"},
      {"workload", "WORKLOAD"},   {"pod", "POD"},       {"detail", "DETAIL"}};
  return columns;
}

}  // namespace attune::cli::plugin
