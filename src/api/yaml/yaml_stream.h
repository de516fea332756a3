// Internal to api (policy and scenario files): loading a multi-document YAML stream safely.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace attune::api::internal {

// Like YAML::LoadAll(text): one node per document (Null for an empty one); throws
// YAML::Exception (with the position) on malformed input. Unlike YAML::LoadAll in yaml-cpp 0.7,
// it terminates on every input: on some malformed streams the parser reports an empty document
// at the same position forever (jbeder/yaml-cpp#1319, fixed after 0.8); that is reported here as
// a ParserException at that position.
std::vector<YAML::Node> loadDocuments(const std::string& text);

}  // namespace attune::api::internal
