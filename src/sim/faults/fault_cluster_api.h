// A ClusterApi in front of another that fails requests on demand, as a flaky API server and
// network would: every call first asks a FaultInjector, then either forwards to the inner api
// or fails the way cluster_api.h's error contract says that failure looks to a client:
//   reads                timeout, throttled (429), server error (5xx): kUnavailable, nothing read
//   watchPods            the same, plus watch-dropped (kUnavailable, "watch stream closed") and
//                        watch-gone (410: kConflict, field "resourceVersion"); relist to resume
//   writes               timeout, throttled, server error: kUnavailable BEFORE the inner api is
//                        called (nothing applied); conflict (only for a write with a
//                        resourceVersion precondition): kConflict, nothing applied;
//                        response-lost: the inner write is made AFTER all (applied, whatever its
//                        own outcome) and the caller gets kUnavailable
// Preconditioned writes are those api::ForwardedCall::preconditioned names (a resourceVersion,
// or evictPod's deleteOptions preconditions).
//
// Every write is logged (writes()), with the fault it met and whether it reached the inner api,
// so that tests can count what was really applied. Owns nothing but the injector and the log;
// the inner api must outlive it. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "api/forwarding_cluster_api.h"
#include "sim/faults/fault_injector.h"

namespace attune::sim {

// One write request as the wrapper saw it.
struct FaultWriteRecord {
  std::string method;  // e.g. "resizePod", "patchPodAnnotations"
  std::string namespace_;
  std::string name;
  FaultKind fault = FaultKind::kNone;
  bool reachedInner = false;                 // the inner api was called
  bool appliedByInner = false;               // ... and succeeded
  api::AnnotationChanges annotations;        // patch*Annotations: the changes asked for
  std::vector<api::ContainerResize> resize;  // resizePod: the containers asked for
};

class FaultClusterApi final : public api::ForwardingClusterApi {
 public:
  FaultClusterApi(api::ClusterApi& inner, FaultOptions options);

  FaultInjector& injector() { return injector_; }
  const FaultInjector& injector() const { return injector_; }
  // Every write so far, oldest first.
  const std::vector<FaultWriteRecord>& writes() const { return writes_; }
  // Calls of `method` (e.g. "resizePod") on `ns`/`name` that the inner api applied.
  std::size_t appliedWrites(std::string_view method, std::string_view ns,
                            std::string_view name) const;

 private:
  std::optional<Error> admit(const api::ForwardedCall& call) override;
  std::optional<Error> completed(const api::ForwardedCall& call, bool succeeded) override;

  // The error a client sees for `fault` on `method`.
  Error errorFor(FaultKind fault, std::string_view method) const;
  // Appends the write `call` to the log.
  void logWrite(const api::ForwardedCall& call, FaultKind fault, bool reachedInner,
                bool appliedByInner);

  FaultInjector injector_;
  std::vector<FaultWriteRecord> writes_;
  // The fault decided for the write being forwarded (kNone or kResponseLost).
  FaultKind forwardedWriteFault_ = FaultKind::kNone;
};

}  // namespace attune::sim
