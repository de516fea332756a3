// ApiServer: the Kubernetes REST API over a SimHost, as an HttpServer handler. Serves /version,
// discovery (/api, /apis, group-version resource lists, OpenAPI v3 PATCH operations), /healthz,
// /livez, /readyz, /metrics (the simulator's Prometheus text exposition and the fault counters),
// and the resources of resources.h: get, list (label and field selectors, limit/continue
// paging), watch (every resource, from a bounded WatchLog), create, update, patch (merge,
// strategic merge, JSON patch), delete, pods/status, pods/resize, pods/eviction and
// attunepolicies/status, and the simulator's metrics source as a Prometheus query API under
// /prometheus (prometheus_api.h). Failures are metav1.Status bodies with the API server's codes.
// Lists and single objects are rendered as meta.k8s.io/v1 Tables when the client asks for one
// (kubectl get). Pod creation (by the simulated workload controllers) and AttunePolicy writes
// go through the registered admission webhooks (admission_dispatch.h). With a fault rate, API
// requests (not health, metrics, version or discovery) meet the faults of fault_mode.h.
// Thread-safe: handle() may run on many connection threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/serve/fault_mode.h"
#include "sim/serve/list_pager.h"
#include "sim/serve/object_handlers.h"
#include "sim/serve/opaque_store.h"
#include "sim/serve/prometheus_api.h"
#include "sim/serve/request_counter.h"
#include "sim/serve/sim_host.h"
#include "sim/serve/status_response.h"
#include "sim/serve/watch_log.h"

namespace attune::sim::serve {

// Where webhooks registered with a clientConfig.service are called by default: an operator
// running beside the simulator.
inline constexpr std::string_view kDefaultWebhookHost = "127.0.0.1";

struct ApiServerOptions {
  // Every request outside /healthz, /livez, /readyz, /metrics and /version must carry
  // "Authorization: Bearer <token>" (401 otherwise). Empty: no authentication.
  std::string token;
  // host:port clients reach the server at (for /api's serverAddressByClientCIDRs).
  std::string serverAddress;
  // Changes kept for watches and continue tokens (WatchLog); older resourceVersions get 410.
  std::size_t watchLogCapacity = 20000;
  // List snapshots kept for continue tokens (ListPager).
  std::size_t listSnapshots = 16;
  FaultModeOptions faults;  // rate 0: no faults
  // The host a webhook's clientConfig.service is reached at (there is no cluster DNS): the
  // admission webhooks registered with Mutating- and ValidatingWebhookConfigurations are called
  // at https://<webhookHost>:<service port><path>, or at clientConfig.url.
  std::string webhookHost = std::string(kDefaultWebhookHost);
};

class ApiServer {
 public:
  // `host` must outlive the server. Starts recording the simulation's changes (WatchLog); the
  // options must be valid (FaultMode::validate).
  ApiServer(SimHost& host, ApiServerOptions options);
  // Stops recording the simulation's changes.
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  HttpResponse handle(const HttpRequest& request);

  FaultMode& faults() { return faults_; }

  // API requests by verb and resource; also on /metrics, and alone on /metrics/requests.
  const RequestCounter& requests() const { return requests_; }

 private:
  HttpResponse handleResource(const HttpRequest& request, std::string_view group,
                              std::string_view version, std::string_view rest);
  // A GET on a collection without watch: the list, paged when `limit` or `continue` is given.
  // Call under the host's lock.
  Result<Reply> list(Simulation& sim, const HttpRequest& request, const ResourceRequest& r,
                     const api::LabelSelector& labels, const std::vector<FieldRequirement>& fields);
  // ?watch=true on a collection: a chunked stream of watch events of the resource, from the
  // WatchLog. `dropEarly`: the stream ends after the events it has at hand (watch-dropped).
  // Defined in watch.cc.
  HttpResponse watch(const HttpRequest& request, const ResourceRequest& r,
                     const api::LabelSelector& labels, const std::vector<FieldRequirement>& fields,
                     bool dropEarly);
  // The response of an injected fault on request `r`, or nullopt for kNone (and for
  // watch-dropped, which the stream carries out).
  std::optional<HttpResponse> faultResponse(FaultKind fault, bool watching,
                                            const ResourceRequest& r);
  // A watch response of one ERROR event: a Status 410 Expired with `message`. In watch.cc.
  static HttpResponse goneStream(std::string message);
  // The registered admission webhooks' verdict on a write of `object` (kind `info`, through
  // `subresource` when not empty, e.g. "resize") in `ns`: AdmissionReviews over HTTPS, blocking
  // for the calls. Call under the host's lock.
  AdmissionVerdict admit(Simulation& sim, const ResourceInfo& info, std::string_view subresource,
                         std::string_view operation, const std::string& object,
                         const std::string& oldObject);
  // admit() as the admission of a REST write.
  WriteAdmission writeAdmission(Simulation& sim);
  // Records one change of a stored (opaque) object in the log.
  void recordOpaque(std::string_view resource, api::WatchEventType type, const std::string& json);

  SimHost& host_;
  ApiServerOptions options_;
  WatchLog log_;        // guarded by the host's lock
  OpaqueStore opaque_;  // guarded by the host's lock
  ListPager pager_;     // guarded by the host's lock
  // The typed objects' text for LISTs (and watches from the current objects); guarded by the
  // host's lock.
  EncodedObjects encoded_;
  FaultMode faults_;
  std::uint64_t admissionRequests_ = 0;  // guarded by the host's lock

  RequestCounter requests_;   // thread-safe on its own
  PrometheusApi prometheus_;  // thread-safe on its own
};

}  // namespace attune::sim::serve
