#include "metrics/metrics_source.h"

#include <algorithm>

namespace attune::metrics {

bool Scope::contains(std::string_view ns) const {
  return allNamespaces() || std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
}

std::string toString(const ContainerId& id) { return id.ns + "/" + id.pod + "/" + id.container; }

std::string toString(const WorkloadRef& ref) { return ref.ns + "/" + ref.kind + "/" + ref.name; }

}  // namespace attune::metrics
