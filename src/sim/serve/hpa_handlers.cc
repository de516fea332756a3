#include "sim/serve/hpa_handlers.h"

#include <string>

#include "api/k8s/decode.h"

namespace attune::sim::serve {
namespace {

Result<void> validateSpec(const api::HorizontalPodAutoscaler& hpa) {
  const api::HpaSpec& spec = hpa.spec;
  if (hpa.metadata.name.empty() && hpa.metadata.generateName.empty()) {
    return fail(ErrorCode::kInvalidArgument, "name or generateName is required", "metadata.name");
  }
  if (spec.scaleTargetRef.kind.empty()) {
    return fail(ErrorCode::kInvalidArgument, "Required value", "spec.scaleTargetRef.kind");
  }
  if (spec.scaleTargetRef.name.empty()) {
    return fail(ErrorCode::kInvalidArgument, "Required value", "spec.scaleTargetRef.name");
  }
  if (spec.maxReplicas < 1) {
    return fail(ErrorCode::kInvalidArgument, "must be greater than or equal to 1",
                "spec.maxReplicas");
  }
  if (spec.minReplicas && (*spec.minReplicas < 1 || *spec.minReplicas > spec.maxReplicas)) {
    return fail(ErrorCode::kInvalidArgument, "must be in [1, maxReplicas]", "spec.minReplicas");
  }
  return {};
}

}  // namespace

Result<api::HorizontalPodAutoscaler> createHpa(Simulation& sim, std::string_view json) {
  auto hpa = api::decodeHorizontalPodAutoscaler(json);
  if (!hpa) return std::unexpected(hpa.error());
  if (auto ok = validateSpec(*hpa); !ok) return std::unexpected(ok.error());
  hpa->status = {};
  return sim.state().hpas.create(std::move(*hpa));
}

Result<api::HorizontalPodAutoscaler> updateHpa(Simulation& sim, std::string_view json,
                                               std::string_view subresource) {
  auto hpa = api::decodeHorizontalPodAutoscaler(json);
  if (!hpa) return std::unexpected(hpa.error());
  if (subresource != "status") {
    if (auto ok = validateSpec(*hpa); !ok) return std::unexpected(ok.error());
    return sim.api().updateHpa(*hpa);
  }
  const api::ObjectMeta& meta = hpa->metadata;
  return sim.state().hpas.modify(meta.namespace_, meta.name, meta.resourceVersion,
                                 [&](api::HorizontalPodAutoscaler& stored) -> Result<Change> {
                                   if (stored.status == hpa->status) return Change::kNone;
                                   stored.status = hpa->status;
                                   return Change::kMetadata;
                                 });
}

Result<api::HorizontalPodAutoscaler> deleteHpa(Simulation& sim, std::string_view ns,
                                               std::string_view name) {
  return sim.state().hpas.erase(ns, name);
}

}  // namespace attune::sim::serve
