// ApiServer: the Kubernetes REST API over a SimHost, as an HttpServer handler. Serves /version,
// discovery (/api, /apis, group-version resource lists, OpenAPI v3 PATCH operations), /healthz,
// /livez, /readyz, /metrics (the simulator's Prometheus text exposition), and the resources of
// resources.h: get, list (label and field selectors), watch (pods), create, update, patch
// (merge, strategic merge, JSON patch), delete, pods/status, pods/resize, pods/eviction and
// attunepolicies/status. Failures are metav1.Status bodies with the API server's codes.
// Lists and single objects are rendered as meta.k8s.io/v1 Tables when the client asks for one
// (kubectl get). Thread-safe: handle() may run on many connection threads at once.
#pragma once

#include <string>

#include "sim/serve/object_handlers.h"
#include "sim/serve/opaque_store.h"
#include "sim/serve/sim_host.h"
#include "sim/serve/status_response.h"

namespace attune::sim::serve {

struct ApiServerOptions {
  // Every request outside /healthz, /livez, /readyz, /metrics and /version must carry
  // "Authorization: Bearer <token>" (401 otherwise). Empty: no authentication.
  std::string token;
  // host:port clients reach the server at (for /api's serverAddressByClientCIDRs).
  std::string serverAddress;
};

class ApiServer {
 public:
  // `host` must outlive the server.
  ApiServer(SimHost& host, ApiServerOptions options) : host_(host), options_(std::move(options)) {}

  HttpResponse handle(const HttpRequest& request);

 private:
  HttpResponse handleResource(const HttpRequest& request, std::string_view group,
                              std::string_view version, std::string_view rest);
  // ?watch=true on a collection: a chunked stream of watch events (pods only; 405 otherwise).
  // Defined in watch.cc.
  HttpResponse watch(const HttpRequest& request, const ResourceRequest& r,
                     const api::LabelSelector& labels, const std::vector<FieldRequirement>& fields);

  SimHost& host_;
  ApiServerOptions options_;
  OpaqueStore opaque_;  // guarded by the host's lock
};

}  // namespace attune::sim::serve
