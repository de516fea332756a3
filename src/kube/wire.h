// Internal to kube: request bodies for the objects Attune writes and the decoding of responses,
// kept apart from the client's control flow.
#pragma once

#include <string>
#include <string_view>

#include "api/k8s/event.h"
#include "api/k8s/eviction.h"
#include "api/k8s/lease.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/attune_policy.h"
#include "core/error.h"

namespace attune::kube::wire {

std::string eventBody(const api::Event& event);
std::string leaseBody(const api::Lease& lease);
std::string evictionBody(const api::Eviction& eviction);
std::string policyBody(const api::AttunePolicy& policy);

// An AttunePolicy object from the API server. Unknown fields the policy decoder reports as
// errors fail with kInternal (a server response, not caller input), field path kept.
Result<api::AttunePolicy> decodePolicy(std::string_view json);
// An AttunePolicyList: items plus metadata.resourceVersion and metadata.continue.
Result<api::List<api::AttunePolicy>> decodePolicyList(std::string_view json);
// One line of an AttunePolicy watch stream ({"type": ..., "object": ...}): the policy decoded
// as decodePolicy does; a BOOKMARK carries only metadata.resourceVersion, an ERROR its Status.
// kInvalidArgument for a line that is not such an object or an unknown type.
Result<api::WatchEvent<api::AttunePolicy>> decodePolicyWatchEvent(std::string_view json);
// The same for AttuneDefaults (D = api::AttuneDefaults) and AttuneNamespaceDefaults streams.
template <typename D>
Result<api::WatchEvent<D>> decodeDefaultsWatchEvent(std::string_view json);
// An AttuneDefaults (D = api::AttuneDefaults) or AttuneNamespaceDefaults object, and lists of
// them, with the same rules as policies: a field the decoder reports is a kInternal error.
template <typename D>
Result<D> decodeDefaults(std::string_view json);
template <typename D>
Result<api::List<D>> decodeDefaultsList(std::string_view json);

}  // namespace attune::kube::wire
