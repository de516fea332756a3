// Internal to api/policy: the typed reader the policy decoder is built from, the shared YAML
// reader (api/yaml/yaml_reader.h) with the public Attune API's rules on top. For one document it
// collects every error and warning with its field path and source position, the position of
// every field, and the public-only fields it preserves. It never throws and never stops at the
// first error.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "api/policy/attune_policy.h"
#include "api/policy/policy_schema.h"
#include "api/yaml/yaml_reader.h"

namespace attune::api::internal {

class PolicyReader : public YamlReader {
 public:
  // Appends to `errors` / `warnings` and fills policy.sources and policy.preserved.
  PolicyReader(AttunePolicy& policy, std::vector<PolicyDiagnostic>& errors,
               std::vector<PolicyDiagnostic>& warnings);

  // Reads the mapping `node` at `path` (object type `type`, see policy_schema.h). A key in
  // `fields` is read by its function unless its value is null (null means unset). A key the
  // schema defines for `type` (public or extension) but `fields` lacks is preserved verbatim;
  // under `spec` it gets a kUnsupported warning saying it has no effect, which names it an
  // extension when it is one (so does a warning on an extension key nested in a preserved public
  // value). Any other key, a duplicate key, or a non-mapping node is an error.
  void object(const YAML::Node& node, const std::string& path, std::string_view type,
              const std::vector<Field>& fields);

  // A map of strings as the public API writes it: scalar keys, entry paths "path[key]" (keys
  // such as label names hold dots).
  void stringMap(const YAML::Node& node, const std::string& path, StringMap& out);

  // Records a warning positioned at `at`.
  void warning(const YAML::Node& at, std::string path, ErrorCode code, std::string message);

 private:
  void preserve(const YAML::Node& value, const std::string& path, const KnownField& field);

  AttunePolicy& policy_;
  std::vector<PolicyDiagnostic>& warnings_;
  std::size_t nodeBudget_;  // nodes a document may still spend on preserved values
};

// Whether `key` may be a key of a string map (labels, annotations): at most 317 characters (the
// longest label or annotation key), without control characters.
bool isMapKey(std::string_view key);

}  // namespace attune::api::internal
