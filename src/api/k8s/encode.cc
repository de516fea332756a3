#include "api/k8s/encode.h"

#include "api/k8s/base64.h"
#include "api/k8s/json_writer.h"

namespace attune::api {

std::string encodeResizePatch(std::span<const ResizePatchContainer> containers) {
  Json spec = Json::object();
  for (const ResizePatchContainer& c : containers) {
    Json entry = {{"name", c.name}, {"resources", toJson(c.resources)}};
    spec[c.initContainer ? "initContainers" : "containers"].push_back(std::move(entry));
  }
  return dumpJson(Json{{"spec", std::move(spec)}});
}

std::string encodeEvent(const Event& event) {
  JsonObject out;
  out.set("apiVersion", "v1", "kind", "Event", "metadata", toJson(event.metadata), "involvedObject",
          toJson(event.involvedObject))
      .put("reason", event.reason, "message", event.message, "type", event.type, "action",
           event.action, "firstTimestamp", event.firstTimestamp, "lastTimestamp",
           event.lastTimestamp)
      .put("source",
           JsonObject().put("component", event.sourceComponent, "host", event.sourceHost).take(),
           "eventTime", microTime(event.eventTime), "count", event.count, "reportingComponent",
           event.reportingComponent, "reportingInstance", event.reportingInstance);
  if (event.related) out.set("related", toJson(*event.related));
  if (event.series) {
    out.set("series", JsonObject()
                          .set("count", event.series->count)
                          .put("lastObservedTime", microTime(event.series->lastObservedTime))
                          .take());
  }
  return out.dump();
}

std::string encodeLease(const Lease& lease) {
  const LeaseSpec& s = lease.spec;
  return JsonObject()
      .set("apiVersion", "coordination.k8s.io/v1", "kind", "Lease", "metadata",
           toJson(lease.metadata))
      .set("spec",
           JsonObject()
               .put("holderIdentity", s.holderIdentity, "leaseDurationSeconds",
                    s.leaseDurationSeconds, "acquireTime", microTime(s.acquireTime), "renewTime",
                    microTime(s.renewTime), "leaseTransitions", s.leaseTransitions)
               .take())
      .dump();
}

std::string encodeEviction(const Eviction& eviction) {
  JsonObject out;
  out.set("apiVersion", "policy/v1", "kind", "Eviction", "metadata", toJson(eviction.metadata));
  if (eviction.deleteOptions) {
    const DeleteOptions& d = *eviction.deleteOptions;
    const Json preconditions =
        JsonObject()
            .put("uid", d.preconditionUid, "resourceVersion", d.preconditionResourceVersion)
            .take();
    out.set("deleteOptions", JsonObject()
                                 .put("gracePeriodSeconds", d.gracePeriodSeconds, "preconditions",
                                      preconditions, "dryRun", d.dryRun)
                                 .take());
  }
  return out.dump();
}

std::string encodeAdmissionReviewResponse(const AdmissionResponse& response) {
  Json r = {{"uid", response.uid}, {"allowed", response.allowed}};
  if (response.status) r["status"] = toJson(*response.status);
  if (!response.warnings.empty()) r["warnings"] = response.warnings;
  if (!response.patch.empty()) {
    r["patch"] = base64Encode(response.patch);
    r["patchType"] = response.patchType.empty() ? "JSONPatch" : response.patchType;
  }
  return dumpJson(Json{{"apiVersion", "admission.k8s.io/v1"},
                       {"kind", "AdmissionReview"},
                       {"response", std::move(r)}});
}

std::string encodeAdmissionReviewRequest(const AdmissionRequest& request) {
  auto rawOrNull = [](const std::string& text) {
    Json parsed = text.empty() ? Json(nullptr) : Json::parse(text, nullptr, false);
    return parsed.is_discarded() ? Json(nullptr) : parsed;
  };
  Json r = {{"uid", request.uid},
            {"kind",
             {{"group", request.kind.group},
              {"version", request.kind.version},
              {"kind", request.kind.kind}}},
            {"resource",
             {{"group", request.resource.group},
              {"version", request.resource.version},
              {"resource", request.resource.resource}}},
            {"name", request.name},
            {"namespace", request.namespace_},
            {"operation", request.operation},
            {"userInfo", {{"username", request.username}}},
            {"object", rawOrNull(request.object)},
            {"oldObject", rawOrNull(request.oldObject)},
            {"dryRun", request.dryRun}};
  if (!request.subResource.empty()) r["subResource"] = request.subResource;
  return dumpJson(Json{{"apiVersion", "admission.k8s.io/v1"},
                       {"kind", "AdmissionReview"},
                       {"request", std::move(r)}});
}

}  // namespace attune::api
