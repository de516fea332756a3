// Reading a CRD's openAPIV3Schema in terms of the policy schema tables (policy_schema.h): every
// object schema under the root, named by the owner type the tables give it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "api/policy/policy_schema.h"
#include "core/error.h"

namespace attune::api::testing {

// One object schema of a CRD: its owner type in the tables, its path ("spec.cpu",
// "status.conditions[]"), its schema node, and whether a field of the tables' extension origin
// lies on the way from the root to it.
struct CrdObject {
  std::string owner;
  std::string path;
  YAML::Node schema;
  bool underExtension = false;
};

// The openAPIV3Schema of the first version of the CRD in `file`.
inline YAML::Node openApiSchema(const std::filesystem::path& file) {
  return YAML::LoadFile(file.string())["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
}

namespace detail {

inline void collectObjects(const CrdObject& object, std::vector<CrdObject>& out) {
  out.push_back(object);
  if (!object.schema["properties"]) return;
  for (const auto& entry : object.schema["properties"]) {
    const std::string name = entry.first.as<std::string>();
    const auto known = internal::findField(object.owner, name);
    if (!known) continue;  // the caller reports unknown fields
    const bool underExtension =
        object.underExtension || known->origin == internal::FieldOrigin::kExtension;
    const std::string path = joinPath(object.path, name);
    const YAML::Node& property = entry.second;
    if (known->type.starts_with("[]") && property["items"] && property["items"]["properties"]) {
      collectObjects(
          {std::string(known->type.substr(2)), path + "[]", property["items"], underExtension},
          out);
    } else if (internal::isObjectType(known->type) && property["properties"]) {
      collectObjects({std::string(known->type), path, property, underExtension}, out);
    }
  }
}

}  // namespace detail

// Every object schema with properties under `root` (the document, owner "AttunePolicy"), root
// first. A property descends only where findField() knows it and gives it an object or list of
// objects type; the caller checks the properties of each object against the tables.
inline std::vector<CrdObject> crdObjects(const YAML::Node& root) {
  std::vector<CrdObject> out;
  detail::collectObjects({"AttunePolicy", "", root, false}, out);
  return out;
}

// The value type a schema property implies, in the tables' notation: "[]" for a list of objects,
// "object" for an object with properties, "{}" for a string map, "free-form object" for an object
// without properties, "" for anything else (scalars, int-or-string, lists of scalars).
inline std::string shapeOf(const YAML::Node& property) {
  if (property["items"] && property["items"]["properties"]) return "[]";
  if (property["properties"]) return "object";
  if (property["additionalProperties"]) return "{}";
  if (property["type"] && property["type"].as<std::string>() == "object") {
    return "free-form object";
  }
  return "";
}

// The shape a table value type stands for, in shapeOf()'s terms.
inline std::string shapeOfType(std::string_view type) {
  if (type.starts_with("[]")) return "[]";
  if (type == internal::kStringMap) return "{}";
  if (type == internal::kScalar || type == internal::kAnyValue) return "";
  return "object";
}

}  // namespace attune::api::testing
