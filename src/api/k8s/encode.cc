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
  Json out = {{"apiVersion", "v1"}, {"kind", "Event"}, {"metadata", toJson(event.metadata)}};
  out["involvedObject"] = toJson(event.involvedObject);
  if (event.related) out["related"] = toJson(*event.related);
  putString(out, "reason", event.reason);
  putString(out, "message", event.message);
  putString(out, "type", event.type);
  putString(out, "action", event.action);
  Json source = Json::object();
  putString(source, "component", event.sourceComponent);
  putString(source, "host", event.sourceHost);
  if (!source.empty()) out["source"] = std::move(source);
  putTime(out, "firstTimestamp", event.firstTimestamp, 0);
  putTime(out, "lastTimestamp", event.lastTimestamp, 0);
  putTime(out, "eventTime", event.eventTime, 6);
  putInt(out, "count", event.count);
  if (event.series) {
    Json series = {{"count", event.series->count}};
    putTime(series, "lastObservedTime", event.series->lastObservedTime, 6);
    out["series"] = std::move(series);
  }
  putString(out, "reportingComponent", event.reportingComponent);
  putString(out, "reportingInstance", event.reportingInstance);
  return dumpJson(out);
}

std::string encodeLease(const Lease& lease) {
  const LeaseSpec& s = lease.spec;
  Json spec = Json::object();
  putString(spec, "holderIdentity", s.holderIdentity);
  if (s.leaseDurationSeconds) spec["leaseDurationSeconds"] = *s.leaseDurationSeconds;
  putTime(spec, "acquireTime", s.acquireTime, 6);
  putTime(spec, "renewTime", s.renewTime, 6);
  if (s.leaseTransitions) spec["leaseTransitions"] = *s.leaseTransitions;
  return dumpJson(Json{{"apiVersion", "coordination.k8s.io/v1"},
                       {"kind", "Lease"},
                       {"metadata", toJson(lease.metadata)},
                       {"spec", std::move(spec)}});
}

std::string encodeEviction(const Eviction& eviction) {
  Json out = {
      {"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", toJson(eviction.metadata)}};
  if (eviction.deleteOptions) {
    const DeleteOptions& d = *eviction.deleteOptions;
    Json options = Json::object();
    if (d.gracePeriodSeconds) options["gracePeriodSeconds"] = *d.gracePeriodSeconds;
    Json preconditions = Json::object();
    putString(preconditions, "uid", d.preconditionUid);
    putString(preconditions, "resourceVersion", d.preconditionResourceVersion);
    if (!preconditions.empty()) options["preconditions"] = std::move(preconditions);
    if (!d.dryRun.empty()) options["dryRun"] = d.dryRun;
    out["deleteOptions"] = std::move(options);
  }
  return dumpJson(out);
}

std::string encodeAdmissionReviewResponse(const AdmissionResponse& response) {
  Json r = {{"uid", response.uid}, {"allowed", response.allowed}};
  if (response.status) r["status"] = toJson(*response.status);
  if (!response.patch.empty()) {
    r["patch"] = base64Encode(response.patch);
    r["patchType"] = response.patchType.empty() ? "JSONPatch" : response.patchType;
  }
  return dumpJson(Json{{"apiVersion", "admission.k8s.io/v1"},
                       {"kind", "AdmissionReview"},
                       {"response", std::move(r)}});
}

}  // namespace attune::api
