// The API requests `attune sim serve` has answered, by verb and resource, as the API server's
// apiserver_request_total counts them: what a client (the operator under a scale run,
// docs/scale.md) costs the control plane. Verbs are the API server's: get, list, watch, create,
// update, patch, delete, deletecollection. The resource is the plural with its subresource
// (`pods/resize`, `attunepolicies/status`). Discovery, /openapi, health, /metrics and /version
// are not counted. Thread-safe: every connection thread counts into the one instance.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace attune::sim::serve {

// The API server's verb of a request with `method` on a collection (`collection`: no name in
// the path), `watching` when it asks for ?watch=true.
std::string_view requestVerb(std::string_view method, bool collection, bool watching);

class RequestCounter {
 public:
  void count(std::string_view verb, std::string_view resource);
  // Requests counted so far.
  std::uint64_t total() const;
  // attune_sim_api_requests_total{verb="...",resource="..."} for every pair seen, in (verb,
  // resource) order, and attune_sim_api_requests_all_total, in the Prometheus text format.
  std::string metricsText() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::uint64_t, std::less<>> counts_;
  std::uint64_t total_ = 0;
};

}  // namespace attune::sim::serve
