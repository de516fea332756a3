// The verbs on one resource of the simulated API server: get, list, create, update, patch,
// delete and the pod subresources (status, resize, eviction), over the simulation's typed
// stores (through its ClusterApi, so the API server's semantics apply) and the OpaqueStore.
// Every function must be called with the SimHost's lock held (inside withSimulation).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "sim/engine/simulation.h"
#include "sim/serve/admission_dispatch.h"
#include "sim/serve/list_pager.h"
#include "sim/serve/opaque_store.h"
#include "sim/serve/patch_apply.h"
#include "sim/serve/resources.h"
#include "sim/serve/selectors.h"
#include "sim/serve/watch_log.h"

namespace attune::sim::serve {

// One request on a resource: /api/v1/namespaces/<ns>/<plural>/<name>/<subresource>.
struct ResourceRequest {
  const ResourceInfo* info = nullptr;
  std::string ns;           // "" for cluster-scoped resources and all-namespace lists
  std::string name;         // "" for collections
  std::string subresource;  // "", "status", "resize", "eviction"
};

// A response: the HTTP status and a JSON body, with the admission webhooks' warnings (sent as
// Warning headers, which kubectl prints).
struct Reply {
  int status = 200;
  std::string body;
  std::vector<std::string> warnings;
};

// The webhook admission of a write (the API server's MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook): called with the operation ("CREATE" or "UPDATE"), the object as
// it would be stored and, for an update, as it is stored now ("" on create); returns the verdict,
// whose object the write then stores. Applied to AttunePolicies (not their status); pods are
// admitted by ClusterState::setPodAdmission. Empty: every write is admitted unchanged.
using WriteAdmission =
    std::function<AdmissionVerdict(const ResourceRequest& r, std::string_view operation,
                                   const std::string& object, const std::string& oldObject)>;

// The one-line JSON of the typed objects as last encoded, by resource and (namespace, name),
// with the resourceVersion it was encoded at: a LIST copies an object's text while its
// resourceVersion is unchanged (every write stamps a new one) instead of encoding the object
// again, as the API server's watch cache keeps its objects' serializations. recordChanges keeps
// it current from each write's encoding, which the watch log makes anyway, and drops deleted
// objects; listItems fills in what it lacks.
class EncodedObjects {
 public:
  // The text of `object` of `resource`: the kept one when encoded at its resourceVersion, else
  // `encode()`, kept.
  const std::string& text(const std::string& resource, const api::ObjectMeta& meta,
                          const std::function<std::string()>& encode);
  void put(const std::string& resource, const api::ObjectMeta& meta, std::string json);
  void erase(const std::string& resource, const api::ObjectMeta& meta);
  // Objects kept, over every resource.
  std::size_t size() const;

 private:
  struct Entry {
    std::string resourceVersion;
    std::string json;
  };
  using Objects = std::map<std::pair<std::string, std::string>, Entry>;
  std::map<std::string, Objects, std::less<>> resources_;
};

// Errors follow cluster_api.h's codes; kUnsupported for what the simulator does not allow
// (creating pods, changing a scenario workload beyond its annotations), reported as 405. A typed
// object read or returned is taken as its text in `texts` (kept there when encoded).
Result<Reply> getObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                        const ResourceRequest& r);
// The objects of a collection that the selectors select (typed and stored ones), in
// (namespace, name) order. The typed ones' text is taken from `encoded` (and kept there).
Result<std::vector<KeyedItem>> listItems(Simulation& sim, OpaqueStore& opaque,
                                         const ResourceRequest& r, const api::LabelSelector& labels,
                                         const std::vector<FieldRequirement>& fields,
                                         EncodedObjects& encoded);
// A <Kind>List of `page` at `resourceVersion`, with metadata.continue and remainingItemCount
// when the page has a continue token.
std::string encodeList(const ResourceInfo& info, const ListPage& page,
                       std::uint64_t resourceVersion);
// POST: creates the object in `body` (201), or evicts the pod (subresource "eviction", 201
// with a Success Status).
Result<Reply> createObject(Simulation& sim, OpaqueStore& opaque, const ResourceRequest& r,
                           std::string_view body, const WriteAdmission& admission = {});
// PUT.
Result<Reply> updateObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                           const ResourceRequest& r, std::string_view body,
                           const WriteAdmission& admission = {});
// PATCH: the patch applied to the current object, then handled as a PUT of the result. A merge
// patch of a pod's or a scenario workload's annotations only (with, at most, a resourceVersion
// precondition) is written as the changes it makes, without building the patched object: the
// same write and answer, without encoding and parsing the whole object twice.
Result<Reply> patchObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                          const ResourceRequest& r, std::string_view patch, PatchType type,
                          const WriteAdmission& admission = {});
// DELETE: returns the deleted object.
Result<Reply> deleteObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                           const ResourceRequest& r);

// Makes every write to the simulation's typed stores of a served resource enter `log` (the
// stores' watch observers) and, unless nullptr, `encoded`, which first takes the text of every
// object stored now; a nullptr `log` stops both. They must outlive the simulation's writes.
void recordChanges(ClusterState& state, WatchLog* log, EncodedObjects* encoded = nullptr);

}  // namespace attune::sim::serve
