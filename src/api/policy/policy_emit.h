// Internal to api/policy: the YAML form of an encoded document's JSON tree, as
// encodePolicyYaml() writes it (shared with the defaults encoder).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace attune::api::internal {

std::string emitYaml(const nlohmann::ordered_json& document);

}  // namespace attune::api::internal
