// Internal to api/policy: the field names of the public Attune operator's AttunePolicy API
// (attune.io/v1alpha1), by object type, and of the Kubernetes object metadata its `metadata`
// stands for. A unit test checks publicFields() against the public CRD (v0.1.23) in both
// directions; fields this project adds belong in extension_schema.h, never here.
#pragma once

#include <span>

#include "api/policy/policy_schema.h"

namespace attune::api::internal {

// Every field of the public AttunePolicy schema (its CRD's openAPIV3Schema below the document
// root, named by the Go type that owns it), including the ones Attune models. Sorted by
// fieldOrder. `metadata` has type "ObjectMeta", whose fields are kubernetesMetadataFields().
std::span<const SchemaField> publicFields();

// The fields of ObjectMeta and OwnerReference that a policy's metadata may carry, as the API
// server writes them (Kubernetes' own schema, not Attune's). Sorted by fieldOrder.
std::span<const SchemaField> kubernetesMetadataFields();

}  // namespace attune::api::internal
