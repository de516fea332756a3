// Internal to api/policy: the typed reader the policy decoder is built from. It turns YAML nodes
// into typed values and collects, for one document, every error and warning with its field path
// and source position, the position of every field, and the fields it preserves unmodeled.
// It never throws and never stops at the first error.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/policy/attune_policy.h"
#include "api/policy/policy_schema.h"

namespace attune::api::internal {

class PolicyReader {
 public:
  using ReadFn = std::function<void(const YAML::Node& value, const std::string& path)>;
  struct Field {
    std::string_view name;
    ReadFn read;
  };

  // Appends to `errors` / `warnings` and fills policy.sources and policy.preserved.
  PolicyReader(AttunePolicy& policy, std::vector<PolicyDiagnostic>& errors,
               std::vector<PolicyDiagnostic>& warnings);

  // Reads the mapping `node` at `path` (object type `type`, see policy_schema.h). A key in
  // `fields` is read by its function unless its value is null (null means unset). A key the
  // schema defines for `type` (public, Kubernetes metadata or extension) but `fields` lacks is
  // preserved verbatim; under `spec` it gets a kUnsupported warning saying it has no effect, which
  // names it an extension when it is one (so does a warning on an extension key nested in a
  // preserved public value). Any other key, a duplicate key, or a non-mapping node is an error.
  void object(const YAML::Node& node, const std::string& path, std::string_view type,
              const std::vector<Field>& fields);

  // Reads a sequence: calls `item(element, "path[i]")` for each element. A non-sequence is an
  // error.
  void list(const YAML::Node& node, const std::string& path,
            const std::function<void(const YAML::Node&, const std::string&)>& item);

  // Reads a sequence of objects, appending one T per element and reading it with `readItem`.
  template <typename T>
  void objects(const YAML::Node& node, const std::string& path, std::vector<T>& out,
               const std::function<void(const YAML::Node&, const std::string&, T&)>& readItem) {
    list(node, path, [&](const YAML::Node& item, const std::string& itemPath) {
      readItem(item, itemPath, out.emplace_back());
    });
  }

  // A Field that reads a scalar, enum, string list or string map straight into `target`.
  template <typename T>
  Field field(std::string_view name, T& target) {
    return {name,
            [this, &target](const YAML::Node& n, const std::string& p) { read(n, p, target); }};
  }

  // Typed reads. On a type or format error the error is recorded and `out` is left unchanged.
  void read(const YAML::Node& node, const std::string& path, std::string& out);
  void read(const YAML::Node& node, const std::string& path, bool& out);
  void read(const YAML::Node& node, const std::string& path, std::int64_t& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<std::string>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<bool>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<int>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<std::int64_t>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<double>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<Duration>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<Millicores>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<Bytes>& out);
  void read(const YAML::Node& node, const std::string& path, std::optional<Time>& out);
  void read(const YAML::Node& node, const std::string& path, std::vector<std::string>& out);
  void read(const YAML::Node& node, const std::string& path, StringMap& out);

  // Enumerations are read by their toString() spelling, case-sensitively.
  template <typename E>
  requires std::is_enum_v<E>
  void read(const YAML::Node& node, const std::string& path, std::optional<E>& out) {
    std::vector<std::string_view> names;
    for (int i = 0; !toString(static_cast<E>(i)).empty(); ++i)
      names.push_back(toString(static_cast<E>(i)));
    if (auto index = enumIndex(node, path, names)) out = static_cast<E>(*index);
  }

  // Records an error or warning positioned at `at`.
  void error(const YAML::Node& at, std::string path, ErrorCode code, std::string message);
  void warning(const YAML::Node& at, std::string path, ErrorCode code, std::string message);

 private:
  // The text of a scalar whose kind is in `acceptedKinds` (a bit set of 1 << ScalarKind); any
  // other node is an error "must be <expected>, got <kind>". Strings must be valid UTF-8.
  std::optional<std::string> text(const YAML::Node& node, const std::string& path,
                                  std::string_view expected, unsigned acceptedKinds);
  std::optional<std::size_t> enumIndex(const YAML::Node& node, const std::string& path,
                                       const std::vector<std::string_view>& names);
  void preserve(const YAML::Node& value, const std::string& path, const KnownField& field);

  AttunePolicy& policy_;
  std::vector<PolicyDiagnostic>& errors_;
  std::vector<PolicyDiagnostic>& warnings_;
  std::size_t nodeBudget_;  // nodes a document may still spend on preserved values
};

// 1-based position of a node; {0, 0} when yaml-cpp has none.
SourcePosition positionOf(const YAML::Node& node);

}  // namespace attune::api::internal
