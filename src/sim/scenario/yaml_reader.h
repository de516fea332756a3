// Internal to sim/scenario: a typed reader of YAML nodes that never throws and never stops at the
// first problem. Every error carries the field path and the 1-based source line and column; every
// field read is recorded in a SourceMap so that later checks can point at it too. Scalars are
// typed with the YAML 1.1 rules Kubernetes tooling uses (api/policy/yaml_scalar.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/meta.h"
#include "api/policy/attune_policy.h"
#include "core/quantity.h"
#include "core/time.h"
#include "core/units.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::sim::internal {

class YamlReader {
 public:
  using ReadFn = std::function<void(const YAML::Node& value, const std::string& path)>;
  struct Field {
    std::string_view name;
    ReadFn read;
    bool required = false;
  };

  // Appends to `errors`; records positions in `sources`. Both must outlive the reader.
  YamlReader(std::vector<ScenarioDiagnostic>& errors, api::SourceMap& sources)
      : errors_(errors), sources_(sources) {}

  // Reads the mapping `node` at `path`: each key in `fields` by its function (a null value
  // counts as absent). An unknown or duplicate key, a missing required field, or a node that is
  // not a mapping is an error.
  void object(const YAML::Node& node, const std::string& path, const std::vector<Field>& fields);
  // Calls `item(element, "path[i]")` for each element of a sequence; anything else is an error.
  void list(const YAML::Node& node, const std::string& path,
            const std::function<void(const YAML::Node&, const std::string&)>& item);
  // Calls `entry(key, value, "path.key")` for each entry of a mapping with string keys.
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
  void read(const YAML::Node& node, const std::string& path, Time& out);
  void read(const YAML::Node& node, const std::string& path, Millicores& out);
  void read(const YAML::Node& node, const std::string& path, Bytes& out);
  void read(const YAML::Node& node, const std::string& path, Quantity& out);
  void read(const YAML::Node& node, const std::string& path, std::vector<std::string>& out);
  void read(const YAML::Node& node, const std::string& path, api::StringMap& out);
  // A resource list: cpu, memory and any other resource name, each a quantity.
  void read(const YAML::Node& node, const std::string& path, api::ResourceList& out);
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

  // Records an error at `at`'s position, or at the recorded position of `path`.
  void error(const YAML::Node& at, std::string path, std::string message);
  void error(std::string path, std::string message);

  std::size_t errorCount() const { return errors_.size(); }
  api::SourceMap& sources() { return sources_; }

 private:
  // The scalar text when the node is a scalar of an accepted kind (a bit set of
  // 1 << ScalarKind); otherwise records "must be <expected>, got <what>".
  std::optional<std::string> scalar(const YAML::Node& node, const std::string& path,
                                    std::string_view expected, unsigned acceptedKinds);

  std::vector<ScenarioDiagnostic>& errors_;
  api::SourceMap& sources_;
};

// 1-based position of a node; {0, 0} when yaml-cpp has none.
api::SourcePosition positionOf(const YAML::Node& node);

}  // namespace attune::sim::internal
