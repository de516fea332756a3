// The labelSelector and fieldSelector query parameters of LIST and WATCH requests. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/meta.h"
#include "core/error.h"

namespace attune::sim::serve {

// Parses the label selector syntax: comma-separated requirements "k=v", "k==v", "k!=v",
// "k in (a,b)", "k notin (a,b)", "k" (exists), "!k" (does not exist). An empty text selects
// everything. kInvalidArgument (field "labelSelector") on a syntax error.
Result<api::LabelSelector> parseLabelSelector(std::string_view text);

// One requirement of a field selector: path "metadata.name", "spec.nodeName",
// "involvedObject.uid"...
struct FieldRequirement {
  std::string path;
  std::string value;
  bool equal = true;  // "=" or "==" versus "!="
};

// Parses "a.b=v,c!=w". kInvalidArgument (field "fieldSelector") on a syntax error.
Result<std::vector<FieldRequirement>> parseFieldSelector(std::string_view text);

// True when the JSON object `objectJson` meets every requirement; a missing field counts as "".
// A JSON value that is not a string is compared through its JSON text (true, 3).
bool fieldsMatch(const std::vector<FieldRequirement>& requirements, std::string_view objectJson);

}  // namespace attune::sim::serve
