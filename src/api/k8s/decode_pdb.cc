// Decoder of policy/v1 PodDisruptionBudget.
#include <algorithm>

#include "api/k8s/decoders.h"

namespace attune::api {

// A JSON integer or string.
static Status readJson(JsonValue& v, IntOrString& out) {
  simdjson::ondemand::json_type type;
  if (auto err = v.type().get(type)) return std::unexpected(jsonError(err));
  if (type == simdjson::ondemand::json_type::string) {
    out.isString = true;
    return readJson(v, out.stringValue);
  }
  if (type != simdjson::ondemand::json_type::number) {
    return fail(ErrorCode::kInvalidArgument, "expected an integer or a string");
  }
  out.isString = false;
  return readJson(v, out.intValue);
}

static Status readJson(JsonValue& v, PdbSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "minAvailable") return readJson(value, out.minAvailable);
    if (key == "selector") return readJson(value, out.selector);
    if (key == "maxUnavailable") return readJson(value, out.maxUnavailable);
    if (key == "unhealthyPodEvictionPolicy") return readJson(value, out.unhealthyPodEvictionPolicy);
    return {};
  });
}

static Status readJson(JsonValue& v, PdbStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "observedGeneration") return readJson(value, out.observedGeneration);
    if (key == "disruptedPods") {
      Status st = forEachField(value, [&out](std::string_view pod, JsonValue& at) -> Status {
        DisruptedPod& entry = out.disruptedPods.emplace_back();
        entry.name = std::string(pod);
        return readJson(at, entry.at);
      });
      // A map on the wire: a pod named more than once (a repeated key, or a repeated
      // disruptedPods field) keeps its last time, as Kubernetes decodes a JSON map.
      auto& pods = out.disruptedPods;
      std::ranges::stable_sort(pods, {}, &DisruptedPod::name);
      const auto kept = std::unique(
          pods.rbegin(), pods.rend(),
          [](const DisruptedPod& a, const DisruptedPod& b) { return a.name == b.name; });
      pods.erase(pods.begin(), kept.base());
      return st;
    }
    if (key == "disruptionsAllowed") return readJson(value, out.disruptionsAllowed);
    if (key == "currentHealthy") return readJson(value, out.currentHealthy);
    if (key == "desiredHealthy") return readJson(value, out.desiredHealthy);
    if (key == "expectedPods") return readJson(value, out.expectedPods);
    if (key == "conditions") return readJson(value, out.conditions);
    return {};
  });
}

Status readJson(JsonValue& v, PodDisruptionBudget& out) { return readObjectParts(v, out); }

}  // namespace attune::api
