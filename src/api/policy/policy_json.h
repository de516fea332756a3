// decodePolicyJson(): the quick way to read the AttunePolicies an API server returns.
//
// Objects from an API server are JSON already parsed, and almost always hold only the fields
// Attune models, each in the JSON type its encoder writes. decodePolicyJson reads those straight
// into an AttunePolicy through the same field lists as the YAML decoder (policy_fields.h), without
// building YAML nodes. It declines (nullopt) whatever it cannot read exactly as decodePolicies
// would: an unknown or preserved public field, a quantity written as a number, a value of another
// type, anything that does not parse. The caller then decodes through decodePolicies, which
// reports what is wrong, or keeps what it preserves.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "api/policy/attune_policy.h"

namespace attune::api {

// The policy `object` (an AttunePolicy with apiVersion and kind) holds, equal to the one
// decodePolicies reads from the same JSON text (whose `sources` this leaves empty); nullopt when
// it declines (see above).
std::optional<AttunePolicy> decodePolicyJson(const nlohmann::json& object);

}  // namespace attune::api
