// renderJson / renderYaml: one document (kind RecommendationReport), built once as JSON and
// emitted in either syntax, so both carry exactly the same fields in the same order.
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/time.h"
#include "report/recommend_render.h"
#include "report/render_values.h"

namespace attune::report {
namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json orNull(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// Canonical quantities and the same amounts in millicores / bytes; unset values are null.
Json resources(const api::ResourceValues& v) {
  return Json{
      {"cpuRequest", v.cpuRequest ? Json(cpuText(v.cpuRequest)) : Json(nullptr)},
      {"cpuLimit", v.cpuLimit ? Json(cpuText(v.cpuLimit)) : Json(nullptr)},
      {"memoryRequest", v.memoryRequest ? Json(memoryText(v.memoryRequest)) : Json(nullptr)},
      {"memoryLimit", v.memoryLimit ? Json(memoryText(v.memoryLimit)) : Json(nullptr)},
      {"cpuRequestMillicores", orNull(raw(v.cpuRequest))},
      {"cpuLimitMillicores", orNull(raw(v.cpuLimit))},
      {"memoryRequestBytes", orNull(raw(v.memoryRequest))},
      {"memoryLimitBytes", orNull(raw(v.memoryLimit))}};
}

Json percent(const std::optional<double>& v) { return v ? Json(rounded(*v, 1)) : Json(nullptr); }

Json result(const StrategyResult& s, const api::ResourceValues& current) {
  const recommend::Recommendation& rec = s.recommendation;
  Json out = {{"strategy", s.strategy}, {"enoughData", rec.enoughData}, {"reason", rec.reason}};
  if (rec.enoughData) {
    out["recommended"] = resources(rec.resources);
    out["cpuRequestChangePercent"] = percent(cpuRequestChange(current, rec.resources));
    out["memoryRequestChangePercent"] = percent(memoryRequestChange(current, rec.resources));
  } else {
    out["recommended"] = nullptr;
    out["cpuRequestChangePercent"] = nullptr;
    out["memoryRequestChangePercent"] = nullptr;
  }
  Json steps = Json::array();
  for (const recommend::ExplanationStep& e : rec.explanation) {
    steps.push_back({{"what", e.what}, {"value", e.value}});
  }
  out["explanation"] = steps;
  return out;
}

Json workload(const WorkloadReport& w) {
  Json containers = Json::array();
  for (const ContainerReport& c : w.containers) {
    Json results = Json::array();
    for (const StrategyResult& s : c.results) results.push_back(result(s, c.current));
    containers.push_back({{"name", c.name},
                          {"dataPoints", c.dataPoints},
                          {"current", resources(c.current)},
                          {"recommendations", results}});
  }
  return {{"namespace", w.ns},
          {"kind", w.kind},
          {"name", w.name},
          {"replicas", w.replicas},
          {"containers", containers}};
}

Json totalsJson(const RecommendReport& r) {
  Json out = Json::array();
  for (const StrategyTotals& t : totals(r)) {
    out.push_back(
        {{"strategy", t.strategy},
         {"cpuCoresNow", rounded(t.cpuCoresNow, 3)},
         {"cpuCoresRecommended", rounded(t.cpuCoresRecommended, 3)},
         {"cpuSavedPercent", rounded(savedPercent(t.cpuCoresNow, t.cpuCoresRecommended), 1)},
         {"memoryGiBNow", rounded(t.memoryGiBNow, 3)},
         {"memoryGiBRecommended", rounded(t.memoryGiBRecommended, 3)},
         {"memorySavedPercent", rounded(savedPercent(t.memoryGiBNow, t.memoryGiBRecommended), 1)},
         {"containers", t.containers},
         {"containersWithoutRecommendation", t.containersWithoutRecommendation}});
  }
  return out;
}

Json document(const RecommendReport& r) {
  Json workloads = Json::array();
  for (const WorkloadReport& w : r.workloads) workloads.push_back(workload(w));
  return {{"apiVersion", "attune.io/v1alpha1"},
          {"kind", "RecommendationReport"},
          {"source", r.source},
          {"at", formatRfc3339(r.at)},
          {"history", formatDuration(r.history)},
          {"step", formatDuration(r.step)},
          {"strategies", r.strategies},
          {"workloads", workloads},
          {"totalsNote", std::string(kTotalsNote)},
          {"totals", totalsJson(r)}};
}

void emit(YAML::Emitter& out, const Json& j) {
  if (j.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, value] : j.items()) {
      out << YAML::Key << key << YAML::Value;
      emit(out, value);
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    out << YAML::BeginSeq;
    for (const Json& value : j) emit(out, value);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    // Quoted, so that strings such as "1" or "null" keep their type.
    out << YAML::DoubleQuoted << j.get<std::string>();
  } else if (j.is_null()) {
    out << YAML::Null;
  } else {
    out << j.dump();  // numbers and booleans as JSON spells them
  }
}

}  // namespace

std::string renderJson(const RecommendReport& r) { return document(r).dump(2) + "\n"; }

std::string renderYaml(const RecommendReport& r) { return renderDocumentYaml(document(r)); }

std::string renderDocumentYaml(const nlohmann::ordered_json& document) {
  YAML::Emitter out;
  emit(out, document);
  return std::string(out.c_str()) + "\n";
}

}  // namespace attune::report
