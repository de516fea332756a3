// The resize record: what Attune writes on a pod before it resizes it, so that any controller
// instance — including a brand-new one with empty memory — can observe the pod and revert it to
// its original resources from cluster state alone.
//
// Annotations (safety/annotations.h), all values strings:
//   attune.io/resized-at                          RFC 3339, UTC (fractional seconds when any)
//   attune.io/resized-containers                  "app,worker": the containers changed, in order
//   attune.io/resized-workload                    owning workload's name (may be empty)
//   attune.io/policy                              the AttunePolicy's name (may be empty)
//   attune.io/original-restart-count.<c>          restartCount of <c> at resize time (required)
//   attune.io/original-{cpu,memory}-{request,limit}.<c>   <c>'s value before the resize
//   attune.io/target-{cpu,memory}-{request,limit}.<c>     <c>'s value the resize asked for
// A per-container resource key is written only when that value is set; an absent key means the
// container has no such request or limit. Quantities are canonical Kubernetes strings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/k8s/patch.h"
#include "api/k8s/pod.h"
#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "core/time.h"

namespace attune::safety {

// One resized container.
struct ContainerRecord {
  std::string name;
  api::ResourceValues original;   // requests and limits before the resize
  api::ResourceValues target;     // requests and limits the resize asked for
  std::int32_t restartCount = 0;  // the container's restartCount when it was resized

  bool operator==(const ContainerRecord&) const = default;
};

struct ResizeRecord {
  Time resizedAt;
  std::string workload;                     // the owning workload's name
  std::string policy;                       // the AttunePolicy's name
  std::vector<ContainerRecord> containers;  // non-empty, distinct names

  // The record of container `name`, or nullptr.
  const ContainerRecord* find(std::string_view name) const;
  bool operator==(const ResizeRecord&) const = default;
};

// The annotations to set for `record` (values only; nothing is deleted). Fails with
// kInvalidArgument, field = the offending key, when a container name is empty, contains a comma,
// repeats, or makes a key whose name part exceeds 63 characters (the API server would reject
// it); or when the record has no container. Pure.
Result<api::AnnotationChanges> encodeResizeAnnotations(const ResizeRecord& record);

// Deletions of every resize-record annotation present on `pod` (those listed above for any
// container, recognised by key or prefix, well-formed or not). Empty when there is none. Pure.
api::AnnotationChanges clearResizeAnnotations(const api::Pod& pod);

// clearResizeAnnotations(pod) overlaid with encodeResizeAnnotations(record): replaces whatever
// record the pod carries. Fails as encodeResizeAnnotations does.
Result<api::AnnotationChanges> replaceResizeAnnotations(const api::Pod& pod,
                                                        const ResizeRecord& record);

// True when `pod` carries attune.io/resized-at (a record, possibly malformed).
bool hasResizeRecord(const api::Pod& pod);

// The record on `pod`: nullopt when attune.io/resized-at is absent; kInvalidArgument with
// field = the annotation key when resized-at is not RFC 3339, resized-containers is missing,
// empty or names a container twice, a listed container lacks its restart count or has one that
// is not a non-negative 32-bit integer, or a quantity does not parse (or is negative). Pure.
Result<std::optional<ResizeRecord>> decodeResizeRecord(const api::Pod& pod);

// The container's current requests and limits (spec) as ResourceValues.
api::ResourceValues resourceValuesOf(const api::ResourceRequirements& resources);
// `values` as the requirements of a resize request: `base` with cpu and memory requests and
// limits replaced by `values` (an unset value removes it); other resources are kept.
api::ResourceRequirements withResourceValues(api::ResourceRequirements base,
                                             const api::ResourceValues& values);

}  // namespace attune::safety
