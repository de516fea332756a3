#include "sim/serve/tables.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <vector>

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

struct Column {
  const char* name;
  const char* type;    // string, integer, boolean, date
  const char* format;  // "name" for the name column
  int priority = 0;    // 1: only with -o wide
};

std::string str(const Json& j, std::initializer_list<const char*> path) {
  const Json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return {};
    at = &(*at)[key];
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_null()) return {};
  return at->dump();
}

std::string age(const Json& object, const char* field, Time now) {
  const std::string text = str(object, {"metadata", field});
  auto t = parseRfc3339(text);
  return t ? formatAge(now - *t) : std::string("<unknown>");
}

std::string conditionStatus(const Json& conditions, std::string_view type) {
  if (!conditions.is_array()) return {};
  for (const Json& c : conditions) {
    if (c.value("type", "") == type) return c.value("status", "");
  }
  return {};
}

Json podCells(const Json& pod, Time now) {
  const Json& status = pod.value("status", Json::object());
  const Json& spec = pod.value("spec", Json::object());
  const std::size_t total = spec.value("containers", Json::array()).size();
  int ready = 0;
  std::int64_t restarts = 0;
  std::string reason = status.value("reason", status.value("phase", std::string("Pending")));
  for (const Json& c : status.value("containerStatuses", Json::array())) {
    if (c.value("ready", false)) ++ready;
    restarts += c.value("restartCount", 0);
    const Json& state = c.value("state", Json::object());
    if (state.contains("waiting") && !str(state, {"waiting", "reason"}).empty()) {
      reason = str(state, {"waiting", "reason"});
    } else if (state.contains("terminated") && !str(state, {"terminated", "reason"}).empty()) {
      reason = str(state, {"terminated", "reason"});
    }
  }
  if (!str(pod, {"metadata", "deletionTimestamp"}).empty()) reason = "Terminating";
  std::string node = str(spec, {"nodeName"});
  return Json::array({str(pod, {"metadata", "name"}),
                      std::to_string(ready) + "/" + std::to_string(total), reason, restarts,
                      age(pod, "creationTimestamp", now), node.empty() ? "<none>" : node});
}

Json nodeCells(const Json& node, Time now) {
  const Json conditions = node.value("status", Json::object()).value("conditions", Json());
  const std::string ready = conditionStatus(conditions, "Ready");
  std::string status = ready == "True" ? "Ready" : (ready.empty() ? "Unknown" : "NotReady");
  if (str(node, {"spec", "unschedulable"}) == "true") status += ",SchedulingDisabled";
  return Json::array({str(node, {"metadata", "name"}), status, "<none>",
                      age(node, "creationTimestamp", now),
                      str(node, {"status", "nodeInfo", "kubeletVersion"})});
}

Json eventCells(const Json& event, Time now) {
  std::string last = str(event, {"lastTimestamp"});
  if (last.empty()) last = str(event, {"eventTime"});
  auto t = parseRfc3339(last);
  const std::string kind = str(event, {"involvedObject", "kind"});
  std::string object = kind;
  for (char& c : object) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  object += "/" + str(event, {"involvedObject", "name"});
  return Json::array({t ? formatAge(now - *t) : std::string("<unknown>"), str(event, {"type"}),
                      str(event, {"reason"}), object, str(event, {"message"})});
}

// The CRD's printer columns (deploy/base/crds/): an absent count or saving is null (<none>).
Json policyCells(const Json& policy, Time now) {
  const Json& spec = policy.value("spec", Json::object());
  const Json& status = policy.value("status", Json::object());
  const Json& workloads = status.value("workloads", Json::object());
  const Json& savings = status.value("savings", Json::object());
  auto count = [&](const char* field) { return workloads.value(field, Json()); };
  auto saved = [&](const char* field) { return savings.value(field, Json()); };
  return Json::array({str(policy, {"metadata", "name"}), str(spec, {"updateStrategy", "type"}),
                      count("discovered"), count("withRecommendations"), count("resized"),
                      conditionStatus(status.value("conditions", Json()), "Ready"),
                      age(policy, "creationTimestamp", now), saved("cpuRequestReduction"),
                      saved("memoryRequestReduction")});
}

// The defaults CRDs' printer columns: Prometheus, Type, Age; an unset field is a null cell (kubectl
// leaves it blank).
Json defaultsCells(const Json& defaults, Time now) {
  const Json& spec = defaults.value("spec", Json::object());
  const auto orNull = [](std::string text) { return text.empty() ? Json() : Json(text); };
  return Json::array({str(defaults, {"metadata", "name"}),
                      orNull(str(spec, {"metricsSource", "prometheus", "address"})),
                      orNull(str(spec, {"updateStrategy", "type"})),
                      age(defaults, "creationTimestamp", now)});
}

// kubectl's printer: an unset budget shows N/A.
Json pdbCells(const Json& pdb, Time now) {
  auto budget = [&](const char* field) {
    const std::string value = str(pdb, {"spec", field});
    return value.empty() ? std::string("N/A") : value;
  };
  const Json& status = pdb.value("status", Json::object());
  return Json::array({str(pdb, {"metadata", "name"}), budget("minAvailable"),
                      budget("maxUnavailable"), status.value("disruptionsAllowed", 0),
                      age(pdb, "creationTimestamp", now)});
}

// One metric of the TARGETS column, as upstream's formatHPAMetrics writes it: "cpu: 42%/60%",
// "memory: 200Mi/500Mi" for averageValue targets, "<unknown>" until the status has the metric.
std::string hpaMetric(const Json& spec, const Json& status) {
  const std::string type = spec.value("type", "");
  const char* key = type == "Resource"            ? "resource"
                    : type == "ContainerResource" ? "containerResource"
                    : type == "Pods"              ? "pods"
                    : type == "Object"            ? "object"
                    : type == "External"          ? "external"
                                                  : nullptr;
  if (key == nullptr || !spec.contains(key)) return "<unknown type>";
  const Json& target = spec[key].value("target", Json::object());
  const Json current = status.is_object()
                           ? status.value(key, Json::object()).value("current", Json::object())
                           : Json::object();
  auto amount = [&](const char* field) {
    const std::string value = str(current, {field});
    return value.empty() ? std::string("<unknown>") : value;
  };
  const std::string name =
      key == std::string_view("resource") || key == std::string_view("containerResource")
          ? str(spec[key], {"name"}) + ": "
          : std::string();
  if (target.contains("averageValue")) {
    const std::string avg = (name.empty() && type != "Pods") ? " (avg)" : "";
    return name + amount("averageValue") + "/" + str(target, {"averageValue"}) + avg;
  }
  if (!name.empty()) {
    const std::string now = str(current, {"averageUtilization"});
    const std::string want = str(target, {"averageUtilization"});
    return name + (now.empty() ? "<unknown>" : now + "%") + "/" +
           (want.empty() ? "<auto>" : want + "%");
  }
  return amount("value") + "/" + str(target, {"value"});
}

Json hpaCells(const Json& hpa, Time now) {
  const Json& spec = hpa.value("spec", Json::object());
  const Json& status = hpa.value("status", Json::object());
  const Json metrics = spec.value("metrics", Json::array());
  const Json current = status.value("currentMetrics", Json::array());
  std::string targets;
  constexpr std::size_t kShown = 2;
  for (std::size_t i = 0; i < metrics.size() && i < kShown; ++i) {
    if (i > 0) targets += ", ";
    targets += hpaMetric(metrics[i], i < current.size() ? current[i] : Json());
  }
  if (metrics.empty()) targets = "<none>";
  if (metrics.size() > kShown) {
    targets += " + " + std::to_string(metrics.size() - kShown) + " more...";
  }
  const std::string minPods = str(spec, {"minReplicas"});
  return Json::array(
      {str(hpa, {"metadata", "name"}),
       str(spec, {"scaleTargetRef", "kind"}) + "/" + str(spec, {"scaleTargetRef", "name"}), targets,
       minPods.empty() ? "<unset>" : minPods, spec.value("maxReplicas", 0),
       status.value("currentReplicas", 0), age(hpa, "creationTimestamp", now)});
}

}  // namespace

std::string formatAge(Duration age) {
  using std::chrono::duration_cast;
  const std::int64_t s =
      std::max<std::int64_t>(0, duration_cast<std::chrono::seconds>(age).count());
  const std::int64_t m = s / 60;
  const std::int64_t h = s / 3600;
  const std::int64_t d = h / 24;
  auto n = [](std::int64_t v) { return std::to_string(v); };
  if (s < 120) return n(s) + "s";
  if (m < 10) return s % 60 == 0 ? n(m) + "m" : n(m) + "m" + n(s % 60) + "s";
  if (h < 3) return n(m) + "m";
  if (h < 8) return m % 60 == 0 ? n(h) + "h" : n(h) + "h" + n(m % 60) + "m";
  if (h < 48) return n(h) + "h";
  if (d < 8) return h % 24 == 0 ? n(d) + "d" : n(d) + "d" + n(h % 24) + "h";
  if (d < 365 * 2) return n(d) + "d";
  return n(d / 365) + "y";
}

std::optional<std::string> renderTable(const ResourceInfo& resource, std::string_view body,
                                       Time now) {
  Json doc = Json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  std::vector<Column> columns;
  Json (*cells)(const Json&, Time) = nullptr;
  if (resource.plural == "pods") {
    columns = {{"Name", "string", "name"},  {"Ready", "string", ""}, {"Status", "string", ""},
               {"Restarts", "integer", ""}, {"Age", "string", ""},   {"Node", "string", "", 1}};
    cells = podCells;
  } else if (resource.plural == "nodes") {
    columns = {{"Name", "string", "name"},
               {"Status", "string", ""},
               {"Roles", "string", ""},
               {"Age", "string", ""},
               {"Version", "string", ""}};
    cells = nodeCells;
  } else if (resource.plural == "events") {
    columns = {{"Last Seen", "string", ""},
               {"Type", "string", ""},
               {"Reason", "string", ""},
               {"Object", "string", ""},
               {"Message", "string", ""}};
    cells = eventCells;
  } else if (resource.plural == "attunepolicies") {
    columns = {
        {"Name", "string", "name"}, {"Type", "string", ""},         {"Workloads", "integer", ""},
        {"Recs", "integer", ""},    {"Resized", "integer", ""},     {"Ready", "string", ""},
        {"Age", "date", ""},        {"CPU Saved", "string", "", 1}, {"Mem Saved", "string", "", 1}};
    cells = policyCells;
  } else if (resource.plural == "attunedefaults" || resource.plural == "attunenamespacedefaults") {
    columns = {{"Name", "string", "name"},
               {"Prometheus", "string", ""},
               {"Type", "string", ""},
               {"Age", "date", ""}};
    cells = defaultsCells;
  } else if (resource.plural == "poddisruptionbudgets") {
    columns = {{"Name", "string", "name"},
               {"Min Available", "string", ""},
               {"Max Unavailable", "string", ""},
               {"Allowed Disruptions", "integer", ""},
               {"Age", "string", ""}};
    cells = pdbCells;
  } else if (resource.plural == "horizontalpodautoscalers") {
    columns = {{"Name", "string", "name"}, {"Reference", "string", ""}, {"Targets", "string", ""},
               {"MinPods", "string", ""},  {"MaxPods", "integer", ""},  {"Replicas", "integer", ""},
               {"Age", "string", ""}};
    cells = hpaCells;
  } else {
    columns = {{"Name", "string", "name"}, {"Age", "string", ""}};
    cells = [](const Json& object, Time t) {
      return Json::array({str(object, {"metadata", "name"}), age(object, "creationTimestamp", t)});
    };
  }
  Json definitions = Json::array();
  for (const Column& c : columns) {
    definitions.push_back({{"name", c.name},
                           {"type", c.type},
                           {"format", c.format},
                           {"description", ""},
                           {"priority", c.priority}});
  }
  const bool isList = doc.contains("items");
  Json rows = Json::array();
  auto addRow = [&](Json& object) {
    if (!object.contains("apiVersion")) object["apiVersion"] = resource.apiVersion();
    if (!object.contains("kind")) object["kind"] = resource.kind;
    Json row = {{"cells", cells(object, now)}, {"object", object}};
    rows.push_back(std::move(row));
  };
  if (isList) {
    for (Json& item : doc["items"]) addRow(item);
  } else {
    addRow(doc);
  }
  Json metadata = Json::object();
  if (isList) {
    metadata["resourceVersion"] = str(doc, {"metadata", "resourceVersion"});
    const Json& listMeta = doc["metadata"];
    if (listMeta.contains("continue")) metadata["continue"] = listMeta["continue"];
    if (listMeta.contains("remainingItemCount")) {
      metadata["remainingItemCount"] = listMeta["remainingItemCount"];
    }
  }
  Json table = {{"kind", "Table"},
                {"apiVersion", "meta.k8s.io/v1"},
                {"metadata", std::move(metadata)},
                {"columnDefinitions", std::move(definitions)},
                {"rows", std::move(rows)}};
  return table.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace attune::sim::serve
