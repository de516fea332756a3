#include "kube/resources.h"

#include "http/http_client.h"

namespace attune::kube {

std::string collectionPath(const Resource& r, std::string_view ns) {
  std::string path(r.prefix);
  if (r.namespaced && !ns.empty()) path += "/namespaces/" + http::percentEncode(ns);
  path += '/';
  path += r.plural;
  return path;
}

std::string objectPath(const Resource& r, std::string_view ns, std::string_view name,
                       std::string_view subresource) {
  std::string path = collectionPath(r, ns) + "/" + http::percentEncode(name);
  if (!subresource.empty()) {
    path += '/';
    path += subresource;
  }
  return path;
}

Result<std::string> selectorQuery(const api::LabelSelector& selector) {
  std::string out;
  const auto add = [&out](const std::string& term) {
    if (!out.empty()) out += ',';
    out += term;
  };
  for (const auto& [key, value] : selector.matchLabels) add(key + "=" + value);
  for (size_t i = 0; i < selector.matchExpressions.size(); ++i) {
    const auto& e = selector.matchExpressions[i];
    std::string values;
    for (const auto& v : e.values) values += (values.empty() ? "" : ",") + v;
    if (e.operator_ == "In") {
      add(e.key + " in (" + values + ")");
    } else if (e.operator_ == "NotIn") {
      add(e.key + " notin (" + values + ")");
    } else if (e.operator_ == "Exists") {
      add(e.key);
    } else if (e.operator_ == "DoesNotExist") {
      add("!" + e.key);
    } else {
      return fail(ErrorCode::kInvalidArgument, "unknown operator \"" + e.operator_ + "\"",
                  "labelSelector.matchExpressions[" + std::to_string(i) + "].operator");
    }
  }
  return out;
}

}  // namespace attune::kube
