// Cluster-scoped objects Attune reads: core/v1 Node and Namespace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/k8s/meta.h"

namespace attune::api {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute

  bool operator==(const Taint&) const = default;
};

// core/v1 Toleration of a pod.
struct Toleration {
  std::string key;                  // empty with operator Exists: every key
  std::string operator_ = "Equal";  // Equal or Exists
  std::string value;
  std::string effect;  // empty: every effect
  std::optional<std::int64_t> tolerationSeconds;

  // True when this toleration tolerates `taint` (v1helper.ToleratesTaint). Pure.
  bool tolerates(const Taint& taint) const;
  bool operator==(const Toleration&) const = default;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  std::string providerID;

  bool operator==(const NodeSpec&) const = default;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<Condition> conditions;  // Ready, MemoryPressure, DiskPressure, PIDPressure...
  std::string kubeletVersion;         // status.nodeInfo.kubeletVersion, e.g. "v1.33.1"

  bool operator==(const NodeStatus&) const = default;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;

  bool operator==(const Node&) const = default;
};

struct Namespace {
  ObjectMeta metadata;
  std::string phase;  // status.phase: Active or Terminating

  bool operator==(const Namespace&) const = default;
};

}  // namespace attune::api
