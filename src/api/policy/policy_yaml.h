// Decoding an AttunePolicy from an already-parsed YAML node, for documents that embed policies
// (simulation scenarios). Requires yaml-cpp; most callers want policy_codec.h instead.
#pragma once

#include <yaml-cpp/yaml.h>

#include "api/policy/policy_codec.h"

namespace attune::api {

// Decodes `doc` (a mapping: one AttunePolicy document or an item of an embedding document) as
// decodePolicies() decodes each document of a stream: every error and warning with its field
// path relative to the policy (e.g. "spec.cpu.percentile") and the line and column `doc` was read
// from. Does not default or validate. Never throws.
DecodedPolicy decodePolicyNode(const YAML::Node& doc, int documentIndex = 0);

}  // namespace attune::api
