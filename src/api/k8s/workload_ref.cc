#include "api/k8s/workload_ref.h"

#include <array>
#include <utility>

namespace attune::api {
namespace {

constexpr std::array kKinds{
    std::pair{WorkloadKind::kDeployment, std::string_view("Deployment")},
    std::pair{WorkloadKind::kStatefulSet, std::string_view("StatefulSet")},
    std::pair{WorkloadKind::kDaemonSet, std::string_view("DaemonSet")},
    std::pair{WorkloadKind::kReplicaSet, std::string_view("ReplicaSet")},
    std::pair{WorkloadKind::kJob, std::string_view("Job")},
    std::pair{WorkloadKind::kCronJob, std::string_view("CronJob")},
};

}  // namespace

std::string_view kindName(WorkloadKind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "Unknown";
}

std::optional<WorkloadKind> workloadKindNamed(std::string_view name) {
  for (const auto& [k, n] : kKinds) {
    if (n == name) return k;
  }
  return std::nullopt;
}

WorkloadRef workloadRef(WorkloadKind kind, std::string ns, std::string name) {
  return {std::move(ns), std::string(kindName(kind)), std::move(name)};
}

std::string toString(const WorkloadRef& ref) { return ref.ns + "/" + ref.kind + "/" + ref.name; }

}  // namespace attune::api
