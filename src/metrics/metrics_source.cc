#include "metrics/metrics_source.h"

#include <algorithm>

namespace attune::metrics {

bool Scope::contains(std::string_view ns) const {
  return allNamespaces() || std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
}

bool Scope::excludes(std::string_view container) const {
  return std::find(excludedContainers.begin(), excludedContainers.end(), container) !=
         excludedContainers.end();
}

bool Scope::includes(const ContainerId& id) const {
  return contains(id.ns) && !excludes(id.container);
}

std::string toString(const ContainerId& id) { return id.ns + "/" + id.pod + "/" + id.container; }

}  // namespace attune::metrics
