// Internal to api (policy and scenario files): how YAML scalars are typed. Kubernetes tooling
// reads YAML with YAML 1.1 rules (go-yaml v2 via sigs.k8s.io/yaml), so `yes`, `on` and `n` are
// booleans there; the decoders type plain scalars the same way, and the policy encoder quotes any
// string those rules would misread.
#pragma once

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <optional>
#include <string_view>

namespace attune::api::internal {

enum class ScalarKind { kNull, kBool, kInteger, kFloat, kString };

// `kind` as one bit of a set of kinds (1 << kind).
constexpr unsigned kindBit(ScalarKind kind) { return 1u << static_cast<unsigned>(kind); }

// The type of `text` written as a plain (unquoted) scalar.
ScalarKind classifyPlain(std::string_view text);

// The type of a scalar or null node: quoted scalars (and JSON strings) and `!!str` scalars are
// strings; plain scalars are typed by classifyPlain. Requires node.IsScalar() or IsNull().
ScalarKind classify(const YAML::Node& node);

// The value of a plain boolean scalar (requires classifyPlain(text) == kBool).
bool plainBoolValue(std::string_view text);

// The value of an integer scalar's text (a leading '+' allowed); nullopt when it is not an
// integer or out of Int's range.
template <typename Int>
std::optional<Int> integerValue(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The value of a number scalar's text (a leading '+' allowed); nullopt when it is not a finite
// double.
std::optional<double> numberValue(std::string_view text);

// True if `text` must be double-quoted to be read back unchanged by Attune and by kubectl: it
// would otherwise be a null, boolean or number (including YAML 1.1 forms such as 0x1F or 1_000),
// or it holds control characters, non-ASCII characters (written as escapes) or edge spaces.
bool needsQuotes(std::string_view text);

// True if `text` is well-formed UTF-8.
bool isValidUtf8(std::string_view text);

// A human-readable name for error messages: "null", "boolean", "integer", "number", "string".
std::string_view kindName(ScalarKind kind);

}  // namespace attune::api::internal
