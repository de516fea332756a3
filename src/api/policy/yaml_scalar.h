// Internal to api/policy: how YAML scalars are typed. Kubernetes tooling reads YAML with YAML 1.1
// rules (go-yaml v2 via sigs.k8s.io/yaml), so `yes`, `on` and `n` are booleans there; the decoder
// types plain scalars the same way, and the encoder quotes any string those rules would misread.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>

namespace attune::api::internal {

enum class ScalarKind { kNull, kBool, kInteger, kFloat, kString };

// The type of `text` written as a plain (unquoted) scalar.
ScalarKind classifyPlain(std::string_view text);

// The type of a scalar or null node: quoted scalars (and JSON strings) and `!!str` scalars are
// strings; plain scalars are typed by classifyPlain. Requires node.IsScalar() or IsNull().
ScalarKind classify(const YAML::Node& node);

// The value of a plain boolean scalar (requires classifyPlain(text) == kBool).
bool plainBoolValue(std::string_view text);

// True if `text` must be double-quoted to be read back unchanged by Attune and by kubectl: it
// would otherwise be a null, boolean or number (including YAML 1.1 forms such as 0x1F or 1_000),
// or it holds control characters, non-ASCII characters (written as escapes) or edge spaces.
bool needsQuotes(std::string_view text);

// True if `text` is well-formed UTF-8.
bool isValidUtf8(std::string_view text);

// A human-readable name for error messages: "null", "boolean", "integer", "number", "string".
std::string_view kindName(ScalarKind kind);

}  // namespace attune::api::internal
