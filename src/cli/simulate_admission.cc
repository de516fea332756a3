#include "cli/simulate_admission.h"

#include <string>

#include "api/k8s/admission.h"
#include "api/k8s/decode.h"
#include "api/k8s/encode_objects.h"
#include "sim/serve/patch_apply.h"
#include "webhook/admission_review.h"

namespace attune::cli {

sim::ClusterState::PodAdmission inProcessPodAdmission(const controller::AdmissionSizing& sizing,
                                                      AdmissionCounts* counts) {
  const webhook::SizingLookup lookup = [&sizing](const api::WorkloadRef& workload) {
    return sizing.lookup(workload);
  };
  return [lookup, counts, reviews = std::uint64_t{0}](api::Pod pod) mutable -> Result<api::Pod> {
    const api::AdmissionRequest request{.uid = "backtest-" + std::to_string(++reviews),
                                        .kind = {"", "v1", "Pod"},
                                        .resource = {"", "v1", "pods"},
                                        .namespace_ = pod.metadata.namespace_,
                                        .operation = "CREATE",
                                        .object = api::encodeObjectJson(pod)};
    const webhook::PodReview review = webhook::reviewPod(request, lookup);
    if (review.response.patch.empty()) return pod;
    auto patched = sim::serve::applyPatch(request.object, review.response.patch,
                                          sim::serve::PatchType::kJsonPatch);
    if (!patched) {
      return fail(ErrorCode::kInternal,
                  "the pod admission webhook's patch does not apply: " + patched.error().message);
    }
    auto admitted = api::decodePod(*patched);
    if (!admitted) {
      return fail(ErrorCode::kInternal,
                  "the pod admitted by the webhook does not decode: " + admitted.error().message);
    }
    if (counts != nullptr) {
      ++(review.outcome == webhook::PodReviewOutcome::kSized ? counts->sized : counts->unchanged);
    }
    return std::move(*admitted);
  };
}

}  // namespace attune::cli
