// Internal to api (policy and scenario files): the typed YAML reader both decoders are built
// from. It turns yaml-cpp nodes into typed values and collects every error with its field path
// and 1-based source position; it records the position of every mapping key and sequence element
// it reads in a SourceMap, so that later checks can point at a field too. It never throws and
// never stops at the first error. Scalars are typed with the YAML 1.1 rules Kubernetes tooling
// uses (yaml_scalar.h).
//
// The policy reader (api/policy/policy_reader.h) adds the public schema's preserved fields and
// warnings; scenario files (sim/scenario) use this reader as it is.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/k8s/meta.h"
#include "api/yaml/source_map.h"
#include "core/error.h"
#include "core/quantity.h"
#include "core/time.h"
#include "core/units.h"

namespace attune::api::internal {

class YamlReader {
 public:
  using ReadFn = std::function<void(const YAML::Node& value, const std::string& path)>;
  struct Field {
    std::string_view name;
    ReadFn read;
    bool required = false;
  };
  // Called by object() for a key its fields lack, with the key node, the key, the value and the
  // field path; returns false when the key is unknown (object() then records "unknown field").
  using OtherFieldFn = std::function<bool(const YAML::Node& key, const std::string& name,
                                          const YAML::Node& value, const std::string& path)>;
  // The example values the messages of a file format quote ("must be a duration string such as
  // \"5m\"").
  struct Examples {
    std::string_view duration;
    std::string_view cpu;
  };

  // Appends to `errors`; records positions in `sources`. Both must outlive the reader.
  YamlReader(std::vector<SourceDiagnostic>& errors, SourceMap& sources, Examples examples)
      : errors_(errors), sources_(sources), examples_(examples) {}

  // Reads the mapping `node` at `path`: each key in `fields` by its function (a null value
  // counts as absent), any other key by `other` when given. Keys must be UTF-8 strings. An
  // unknown or duplicate key, a missing required field, or a node that is not a mapping is an
  // error.
  void object(const YAML::Node& node, const std::string& path, const std::vector<Field>& fields,
              const OtherFieldFn& other = {});
  // Calls `item(element, "path[i]")` for each element of a sequence; anything else is an error.
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
  // Calls `entry(key, value, "path.key")` for each entry of a mapping with scalar keys; a
  // duplicate key is an error.
  void entries(
      const YAML::Node& node, const std::string& path,
      const std::function<void(const std::string&, const YAML::Node&, const std::string&)>& entry);

  // A Field reading straight into `target` with the matching read() overload.
  template <typename T>
  Field field(std::string_view name, T& target, bool required = false) {
    return {name,
            [this, &target](const YAML::Node& n, const std::string& p) { read(n, p, target); },
            required};
  }

  // Typed reads. On an error the error is recorded and `out` is left as it was.
  void read(const YAML::Node& node, const std::string& path, std::string& out);
  void read(const YAML::Node& node, const std::string& path, bool& out);
  void read(const YAML::Node& node, const std::string& path, std::int32_t& out);
  void read(const YAML::Node& node, const std::string& path, std::int64_t& out);
  void read(const YAML::Node& node, const std::string& path, std::uint64_t& out);
  void read(const YAML::Node& node, const std::string& path, double& out);
  void read(const YAML::Node& node, const std::string& path, Duration& out);
  // An RFC 3339 timestamp in the years 0001-9999 UTC (Kubernetes' range).
  void read(const YAML::Node& node, const std::string& path, Time& out);
  void read(const YAML::Node& node, const std::string& path, Millicores& out);
  void read(const YAML::Node& node, const std::string& path, Bytes& out);
  // A non-negative quantity.
  void read(const YAML::Node& node, const std::string& path, Quantity& out);
  void read(const YAML::Node& node, const std::string& path, std::vector<std::string>& out);
  // A mapping of strings; entry paths are "path.key".
  void read(const YAML::Node& node, const std::string& path, StringMap& out);
  // A resource list: cpu, memory and any other resource name, each a quantity.
  void read(const YAML::Node& node, const std::string& path, ResourceList& out);
  // Enumerations are read by their toString() spelling, case-sensitively.
  template <typename E>
  requires std::is_enum_v<E>
  void read(const YAML::Node& node, const std::string& path, E& out) {
    std::vector<std::string_view> names;
    for (int i = 0; !toString(static_cast<E>(i)).empty(); ++i)
      names.push_back(toString(static_cast<E>(i)));
    if (auto index = nameIndex(node, path, names)) out = static_cast<E>(*index);
  }
  // Set only when the value reads without error.
  template <typename T>
  void read(const YAML::Node& node, const std::string& path, std::optional<T>& out) {
    T value{};
    const std::size_t before = errors_.size();
    read(node, path, value);
    if (errors_.size() == before) out = std::move(value);
  }

  // A string that must be one of `names`.
  void oneOf(const YAML::Node& node, const std::string& path,
             std::initializer_list<std::string_view> names, std::string& out);
  // A number, or a string `parse` accepts (a quantity or a duration), converted to a double by
  // it; `expected` describes the accepted forms for the message.
  void number(const YAML::Node& node, const std::string& path, std::string_view expected,
              const std::function<Result<double>(std::string_view)>& parse, double& out);

  // Records an error at `at`'s position, or, when yaml-cpp has none, at the recorded position of
  // `path`. Without a code the error is kInvalidArgument.
  void error(const YAML::Node& at, std::string path, ErrorCode code, std::string message);
  void error(const YAML::Node& at, std::string path, std::string message);
  // Records an error at the recorded position of `path`.
  void error(std::string path, std::string message);

  std::size_t errorCount() const { return errors_.size(); }
  SourceMap& sources() { return sources_; }

 protected:
  // The scalar text when the node is a scalar of an accepted kind (a bit set of kindBit()) and
  // valid UTF-8; otherwise records "must be <expected>, got <what>" (or "must be valid UTF-8").
  std::optional<std::string> scalar(const YAML::Node& node, const std::string& path,
                                    std::string_view expected, unsigned acceptedKinds);

 private:
  // An integer scalar of Int's range: "must be <expected>" for another node, "must <range>, got
  // <text>" for an integer out of the range.
  template <typename Int>
  void readInteger(const YAML::Node& node, const std::string& path, std::string_view expected,
                   std::string_view range, Int& out);
  // The index in `names` of a string that must be one of them.
  std::optional<std::size_t> nameIndex(const YAML::Node& node, const std::string& path,
                                       std::span<const std::string_view> names);

  std::vector<SourceDiagnostic>& errors_;
  SourceMap& sources_;
  Examples examples_;
};

// 1-based position of a node; {0, 0} when yaml-cpp has none.
SourcePosition positionOf(const YAML::Node& node);

// `text` in double quotes, cut after 40 characters ("...").
std::string quote(std::string_view text);

// "object", "list", "null", or the scalar's kind followed by its quoted text.
std::string describe(const YAML::Node& node);

}  // namespace attune::api::internal
