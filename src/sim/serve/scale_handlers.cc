#include "sim/serve/scale_handlers.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "core/time.h"

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

// "app=web,tier in (a,b)": a label selector as the Scale's status.selector carries it.
std::string selectorText(const api::LabelSelector& selector) {
  std::string out;
  auto add = [&](const std::string& term) {
    if (!out.empty()) out += ',';
    out += term;
  };
  for (const auto& [key, value] : selector.matchLabels) add(key + "=" + value);
  for (const api::LabelSelectorRequirement& e : selector.matchExpressions) {
    if (e.operator_ == "Exists") {
      add(e.key);
    } else if (e.operator_ == "DoesNotExist") {
      add("!" + e.key);
    } else {
      std::string values;
      for (const std::string& v : e.values) values += (values.empty() ? "" : ",") + v;
      add(e.key + (e.operator_ == "NotIn" ? " notin (" : " in (") + values + ")");
    }
  }
  return out;
}

template <typename Fn>
Result<Reply> withStore(ClusterState& s, std::string_view plural, Fn&& fn) {
  if (plural == "deployments") return fn(s.deployments);
  if (plural == "statefulsets") return fn(s.statefulSets);
  if (plural == "replicasets") return fn(s.replicaSets);
  return fail(ErrorCode::kNotFound, "the server could not find the requested resource");
}

std::string scaleJson(const api::Workload& w) {
  Json meta = {{"name", w.metadata.name},
               {"namespace", w.metadata.namespace_},
               {"uid", w.metadata.uid},
               {"resourceVersion", w.metadata.resourceVersion}};
  if (w.metadata.creationTimestamp) {
    meta["creationTimestamp"] = formatRfc3339(*w.metadata.creationTimestamp);
  }
  return Json{
      {"kind", "Scale"},
      {"apiVersion", "autoscaling/v1"},
      {"metadata", std::move(meta)},
      {"spec", {{"replicas", w.spec.replicas.value_or(1)}}},
      {"status", {{"replicas", w.status.replicas}, {"selector", selectorText(w.spec.selector)}}}}
      .dump();
}

}  // namespace

bool hasScaleSubresource(std::string_view plural) {
  return plural == "deployments" || plural == "statefulsets" || plural == "replicasets";
}

Result<Reply> getScale(Simulation& sim, const ResourceRequest& r) {
  return withStore(sim.state(), r.info->plural, [&](auto& store) -> Result<Reply> {
    auto workload = store.get(r.ns, r.name);
    if (!workload) return std::unexpected(workload.error());
    return Reply{200, scaleJson(*workload)};
  });
}

Result<Reply> updateScale(Simulation& sim, const ResourceRequest& r, std::string_view json) {
  const Json scale = Json::parse(json, nullptr, false);
  const Json* replicas = nullptr;
  if (scale.is_object() && scale.contains("spec") && scale["spec"].is_object() &&
      scale["spec"].contains("replicas")) {
    replicas = &scale["spec"]["replicas"];
  }
  if (replicas == nullptr || !replicas->is_number_integer() || replicas->get<std::int64_t>() < 0 ||
      replicas->get<std::int64_t>() > INT32_MAX) {
    return fail(ErrorCode::kInvalidArgument, "must be a non-negative integer", "spec.replicas");
  }
  const auto wanted = static_cast<std::int32_t>(replicas->get<std::int64_t>());
  std::string precondition;
  if (scale.contains("metadata") && scale["metadata"].is_object()) {
    precondition = scale["metadata"].value("resourceVersion", std::string());
  }
  return withStore(sim.state(), r.info->plural, [&](auto& store) -> Result<Reply> {
    auto written = store.modify(r.ns, r.name, precondition, [&](auto& w) {
      if (w.spec.replicas == wanted) return Change::kNone;
      w.spec.replicas = wanted;
      return Change::kSpec;
    });
    if (!written) return std::unexpected(written.error());
    return getScale(sim, r);
  });
}

}  // namespace attune::sim::serve
