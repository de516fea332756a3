// Internal to api/k8s: the readJson overloads of every decoded type, defined in the
// decode_*.cc files; decode.cc builds the public entry points from them.
#pragma once

#include "api/k8s/admission.h"
#include "api/k8s/event.h"
#include "api/k8s/eviction.h"
#include "api/k8s/hpa.h"
#include "api/k8s/json_reader.h"
#include "api/k8s/lease.h"
#include "api/k8s/meta.h"
#include "api/k8s/node.h"
#include "api/k8s/pdb.h"
#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "api/k8s/secret.h"
#include "api/k8s/workloads.h"

namespace attune::api {

// decode_meta.cc
Status readJson(JsonValue& v, ObjectMeta& out);
Status readJson(JsonValue& v, ObjectReference& out);
Status readJson(JsonValue& v, Condition& out);
Status readJson(JsonValue& v, LabelSelector& out);
Status readJson(JsonValue& v, ResourceRequirements& out);
Status readJson(JsonValue& v, ApiStatus& out);

// decode_pod.cc
Status readJson(JsonValue& v, PodSpec& out);
Status readJson(JsonValue& v, PodStatus& out);
Status readJson(JsonValue& v, Pod& out);
Status readJson(JsonValue& v, PodTemplateSpec& out);

// decode_workloads.cc
Status readJson(JsonValue& v, Workload& out);
Status readJson(JsonValue& v, Job& out);
Status readJson(JsonValue& v, CronJob& out);

// decode_cluster.cc
Status readJson(JsonValue& v, Node& out);
Status readJson(JsonValue& v, Namespace& out);
Status readJson(JsonValue& v, LimitRange& out);
Status readJson(JsonValue& v, ResourceQuota& out);
Status readJson(JsonValue& v, Event& out);
Status readJson(JsonValue& v, Lease& out);
Status readJson(JsonValue& v, Secret& out);
Status readJson(JsonValue& v, Eviction& out);

// decode_hpa.cc
Status readJson(JsonValue& v, HorizontalPodAutoscaler& out);

// decode_pdb.cc
Status readJson(JsonValue& v, PodDisruptionBudget& out);

// decode_admission.cc
Status readJson(JsonValue& v, AdmissionReview& out);
Status readJson(JsonValue& v, MutatingWebhookConfiguration& out);

// Reads the usual {"metadata", "spec", "status"} shape of an object into out.metadata,
// out.spec and (when T has one) out.status, with their readJson overloads.
template <typename T>
Status readObjectParts(JsonValue& v, T& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "spec") return readJson(value, out.spec);
    if constexpr (requires { out.status; }) {
      if (key == "status") return readJson(value, out.status);
    }
    return {};
  });
}

}  // namespace attune::api
