// The simulated cluster's state of record: every object, the pod watch log, evictions, and the
// API server's admission (LimitRanger, ResourceQuota) and quota accounting for pods. sim::Cluster
// serves the ClusterApi from it; the kubelet model, workload controllers and scenario setup read
// and write it directly. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "sim/cluster/object_store.h"
#include "sim/cluster/quota_usage.h"

namespace attune::sim {

// A pod removed through the eviction subresource, as it was just before deletion.
struct EvictionRecord {
  api::Pod pod;
  Time at;
};

class ClusterState {
 public:
  // `clock` stamps creationTimestamps and evictions; it must outlive the state.
  explicit ClusterState(Clock& clock);
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;

  Clock& clock() const { return clock_; }
  // The cluster's resourceVersion counter (shared by every store below).
  Versioner& versioner() { return versioner_; }

  // Creates a pod as the API server does, in its order: defaulting (a limit without a request
  // gives the request) and LimitRanger defaults from the namespace's LimitRanges
  // (limit_ranger.h); validation of the resources (kInvalidArgument with the field, e.g. a
  // request above its limit); LimitRanger min/max and ResourceQuota admission (kForbidden, see
  // ClusterApi::resizePod); then stamped, with status.qosClass computed from the spec when
  // unset. The namespace need not exist. Prefer this to pods.create(). When a PodAdmission is
  // set, it runs after the defaulting and LimitRanger defaults, before the validation, as the
  // API server's webhook admission plugins run after its built-in mutating ones.
  Result<api::Pod> createPod(api::Pod pod);

  // The admission webhooks of pod creation (the API server's MutatingAdmissionWebhook and
  // ValidatingAdmissionWebhook plugins): given the pod about to be created (its name may still be
  // empty, with generateName set), returns the pod to create, or the refusal as the error, which
  // createPod returns. `attune sim serve` calls the registered webhooks over HTTPS
  // (serve/admission_dispatch.h); `attune backtest` can size pods in process. Unset: none.
  using PodAdmission = std::function<Result<api::Pod>(api::Pod pod)>;
  void setPodAdmission(PodAdmission admission) { podAdmission_ = std::move(admission); }
  // Deletes a pod (a DELETED watch event) and returns it as last seen.
  Result<api::Pod> deletePod(std::string_view ns, std::string_view name);

  // Admission of changing `pod`'s spec to `spec` (the resize subresource, after its
  // validation): LimitRanger validation of `spec`, then ResourceQuota admission of the increase.
  // kForbidden with the plugin's message when refused.
  Result<void> admitPodResize(const api::Pod& pod, const api::PodSpec& spec) const;

  // Creates namespace `name` (status.phase Active) unless it exists; returns it.
  Result<api::Namespace> ensureNamespace(std::string_view name);

  // Pod events with a resourceVersion above `resourceVersion` ("" = all) that `options`
  // selects, oldest first; kInvalidArgument (field "resourceVersion") when it is not a number.
  Result<api::WatchBatch<api::Pod>> podEventsAfter(const api::ListOptions& options,
                                                   std::string_view resourceVersion) const;

  // Deletes the pod (a DELETED watch event) and records the eviction at clock().now(), without
  // looking at PodDisruptionBudgets: the kubelet's node-pressure eviction. The eviction
  // subresource, which honours them, is evictThroughBudgets (pod_eviction.h).
  Result<void> evictPod(std::string_view ns, std::string_view name);
  const std::vector<EvictionRecord>& evictions() const { return evictions_; }

  // ResourceQuota status is kept current on every write, as the quota controller and quota
  // admission keep it: status.hard = spec.hard, and status.used = the charges (quota_usage.h) of
  // the namespace's pods that the quota's scopes select, on the resources of spec.hard (other
  // resources keep their stored used). Every pod write (create, spec or phase change, delete,
  // through any path) updates the quotas of its namespace incrementally, writing a quota only
  // when its status changes; creating or changing a quota other than through this accounting
  // recomputes it. This recomputes every quota from scratch, writing those that differ: it
  // never changes anything, and exists to check the incremental accounting.
  void refreshQuotaUsage();

 private:
  Clock& clock_;
  Versioner versioner_;

 public:
  // One store per kind. Each write through them takes the next cluster-wide resourceVersion.
  // Pod writes also enter the watch log, pod and quota writes the quota accounting: do not
  // replace the pods or resourceQuotas observers.
  ObjectStore<api::Pod> pods{"pods", versioner_};
  ObjectStore<api::Node> nodes{"nodes", versioner_};
  ObjectStore<api::Namespace> namespaces{"namespaces", versioner_};
  ObjectStore<api::Deployment> deployments{"deployments.apps", versioner_};
  ObjectStore<api::StatefulSet> statefulSets{"statefulsets.apps", versioner_};
  ObjectStore<api::DaemonSet> daemonSets{"daemonsets.apps", versioner_};
  ObjectStore<api::ReplicaSet> replicaSets{"replicasets.apps", versioner_};
  ObjectStore<api::Job> jobs{"jobs.batch", versioner_};
  ObjectStore<api::CronJob> cronJobs{"cronjobs.batch", versioner_};
  ObjectStore<api::LimitRange> limitRanges{"limitranges", versioner_};
  ObjectStore<api::ResourceQuota> resourceQuotas{"resourcequotas", versioner_};
  ObjectStore<api::HorizontalPodAutoscaler> hpas{"horizontalpodautoscalers.autoscaling",
                                                 versioner_};
  ObjectStore<api::PodDisruptionBudget> pdbs{"poddisruptionbudgets.policy", versioner_};
  ObjectStore<api::Event> events{"events", versioner_};
  ObjectStore<api::Lease> leases{"leases.coordination.k8s.io", versioner_};
  // Secrets read through ClusterApi::getSecret (written by tests and scenarios directly).
  ObjectStore<api::Secret> secrets{"secrets", versioner_};
  ObjectStore<api::AttunePolicy> attunePolicies{"attunepolicies.attune.io", versioner_};
  ObjectStore<api::AttuneDefaults> attuneDefaults{"attunedefaults.attune.io", versioner_};
  ObjectStore<api::AttuneNamespaceDefaults> attuneNamespaceDefaults{
      "attunenamespacedefaults.attune.io", versioner_};
  // Admission webhook registrations (cluster-scoped; an object's kind matches its store).
  ObjectStore<api::WebhookConfiguration> mutatingWebhooks{
      "mutatingwebhookconfigurations.admissionregistration.k8s.io", versioner_};
  ObjectStore<api::WebhookConfiguration> validatingWebhooks{
      "validatingwebhookconfigurations.admissionregistration.k8s.io", versioner_};
  // The Kubernetes version the simulated API server and kubelets run: what /version answers, and
  // the resize rules that depend on it (resize_validation.h). v1.34.0 unless set (the
  // scenario's spec.kubernetesVersion).
  const api::ServerVersion& kubernetesVersion() const { return kubernetesVersion_; }
  void setKubernetesVersion(api::ServerVersion version) { kubernetesVersion_ = std::move(version); }

  ObjectStore<api::WebhookConfiguration>& webhookConfigurations(
      api::WebhookConfigurationKind kind) {
    return kind == api::WebhookConfigurationKind::kMutating ? mutatingWebhooks : validatingWebhooks;
  }

 private:
  // Charges of the non-terminal pods of one namespace that has quotas, by pod name.
  struct NamespaceQuotas {
    int quotas = 0;
    std::map<std::string, QuotaCharge, std::less<>> charges;
  };

  void onPodWritten(api::WatchEventType type, const api::Pod& pod);
  void onQuotaWritten(api::WatchEventType type, const api::ResourceQuota& quota);
  void chargeNamespace(const std::string& ns, NamespaceQuotas& quotas) const;
  void recomputeQuota(const std::string& ns, const std::string& name);
  void writeQuotaStatus(const std::string& ns, const std::string& name, api::ResourceList hard,
                        api::ResourceList used);
  Result<void> admitQuota(const api::Pod& pod, const QuotaCharge* before,
                          const QuotaCharge& after) const;

  PodAdmission podAdmission_;
  api::ServerVersion kubernetesVersion_{
      .major = 1, .minor = 34, .patch = 0, .gitVersion = "v1.34.0"};
  std::vector<api::WatchEvent<api::Pod>> podLog_;  // in resourceVersion order
  std::vector<EvictionRecord> evictions_;
  std::map<std::string, NamespaceQuotas, std::less<>> quotaNamespaces_;
  bool writingQuotaStatus_ = false;
};

}  // namespace attune::sim
