#include "webhook/admission_review.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "api/k8s/encode.h"
#include "api/k8s/encode_objects.h"
#include "sim/serve/patch_apply.h"
#include "support/pod_builder.h"
#include "support/shared_dir.h"

namespace attune::webhook {
namespace {

using testing::PodBuilder;
using testing::resources;

api::Pod newWebPod() {
  return PodBuilder("shop", "")
      .label("pod-template-hash", "5c8d")
      .owner(api::OwnerReference{"apps/v1", "ReplicaSet", "web-5c8d", "u", true})
      .container("app", resources("1", "2Gi", "2", "2Gi"))
      .build();
}

api::AdmissionRequest podCreate(const api::Pod& pod) {
  return api::AdmissionRequest{.uid = "705ab4f5-6393-11e8-b7cc-42010a800002",
                               .kind = {"", "v1", "Pod"},
                               .resource = {"", "v1", "pods"},
                               .namespace_ = "shop",
                               .operation = "CREATE",
                               .object = api::encodeObjectJson(pod)};
}

// Sizing for shop/Deployment/web only.
std::optional<std::vector<ContainerSizing>> webSizing(const api::WorkloadRef& w) {
  if (w != api::WorkloadRef{"shop", "Deployment", "web"}) return std::nullopt;
  return std::vector<ContainerSizing>{{.container = "app",
                                       .cpuRequest = Millicores(300),
                                       .memoryRequest = Bytes(700LL << 20),
                                       .memoryLimit = Bytes(1536LL << 20),
                                       .removeCpuLimit = true}};
}

// The pod the API server stores after applying the response's patch.
api::Pod patched(const api::AdmissionRequest& request, const api::AdmissionResponse& response) {
  auto applied =
      sim::serve::applyPatch(request.object, response.patch, sim::serve::PatchType::kJsonPatch);
  EXPECT_TRUE(applied.has_value()) << applied.error().toString();
  auto pod = api::decodePod(applied.value_or("{}"));
  EXPECT_TRUE(pod.has_value());
  return pod.value_or(api::Pod{});
}

TEST(ReviewPod, APodOfAWorkloadWithSizingGetsItsPeakAsAJsonPatch) {
  const auto request = podCreate(newWebPod());
  const auto review = reviewPod(request, webSizing);
  EXPECT_EQ(review.outcome, PodReviewOutcome::kSized);
  EXPECT_TRUE(review.response.allowed);
  EXPECT_EQ(review.response.uid, request.uid);
  EXPECT_EQ(review.response.patchType, "JSONPatch");
  const auto pod = patched(request, review.response);
  ASSERT_EQ(pod.spec.containers.size(), 1u);
  const auto& r = pod.spec.containers[0].resources;
  EXPECT_EQ(r.requests.cpu->toMillicores(), Millicores(300));
  EXPECT_EQ(r.requests.memory->toBytes(), Bytes(700LL << 20));
  EXPECT_EQ(r.limits.memory->toBytes(), Bytes(1536LL << 20));
  EXPECT_FALSE(r.limits.cpu.has_value());

  // On the wire: an admission.k8s.io/v1 AdmissionReview whose patch is base64 JSON Patch text.
  const auto wire = nlohmann::json::parse(api::encodeAdmissionReviewResponse(review.response));
  EXPECT_EQ(wire["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(wire["kind"], "AdmissionReview");
  EXPECT_EQ(wire["response"]["patchType"], "JSONPatch");
  auto decoded = api::decodeAdmissionReview(wire.dump());
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->response->patch, review.response.patch);
}

TEST(ReviewPod, APodGivenItsWorkloadsSizingIsMarkedSizedOrUnchanged) {
  // Sized: the marker beside the resources (an annotations map of its own when the pod had none).
  auto request = podCreate(newWebPod());
  auto pod = patched(request, reviewPod(request, webSizing).response);
  EXPECT_EQ(pod.metadata.annotations.at(std::string(kAdmissionSizedAnnotation)), "sized");
  // Already at the sizing: the marker only, added to the annotations the pod has.
  auto atSizing = newWebPod();
  atSizing.metadata.annotations["team"] = "shop";
  atSizing.spec.containers[0].resources = resources("300m", "700Mi", "", "1536Mi");
  request = podCreate(atSizing);
  const auto review = reviewPod(request, webSizing);
  EXPECT_EQ(review.outcome, PodReviewOutcome::kUnchanged);
  EXPECT_EQ(review.response.patchType, "JSONPatch");
  pod = patched(request, review.response);
  EXPECT_EQ(pod.metadata.annotations.at(std::string(kAdmissionSizedAnnotation)), "unchanged");
  EXPECT_EQ(pod.metadata.annotations.at("team"), "shop");
  EXPECT_EQ(pod.spec.containers[0].resources, atSizing.spec.containers[0].resources);
}

TEST(ReviewPod, PodsWithoutSizingPassUnchanged) {
  // The workload has no policy or statistics.
  auto other = newWebPod();
  other.metadata.ownerReferences[0].name = "api-5c8d";
  auto review = reviewPod(podCreate(other), webSizing);
  EXPECT_EQ(review.outcome, PodReviewOutcome::kNoSizing);
  EXPECT_TRUE(review.response.allowed);
  EXPECT_TRUE(review.response.patch.empty());
  // A bare pod.
  review = reviewPod(podCreate(PodBuilder("shop", "debug").container("c").build()), webSizing);
  EXPECT_EQ(review.outcome, PodReviewOutcome::kNotApplicable);
  EXPECT_TRUE(review.response.patch.empty());
  // Opted out.
  auto skipped = newWebPod();
  skipped.metadata.annotations["attune.io/skip"] = "true";
  review = reviewPod(podCreate(skipped), webSizing);
  EXPECT_EQ(review.outcome, PodReviewOutcome::kNotApplicable);
  EXPECT_TRUE(review.response.patch.empty());
  // Not a CREATE.
  auto update = podCreate(newWebPod());
  update.operation = "UPDATE";
  EXPECT_TRUE(reviewPod(update, webSizing).response.patch.empty());
  // Not a pod at all: allowed.
  auto garbage = podCreate(newWebPod());
  garbage.object = "[1, 2";
  review = reviewPod(garbage, webSizing);
  EXPECT_EQ(review.outcome, PodReviewOutcome::kUndecodable);
  EXPECT_TRUE(review.response.allowed);
}

TEST(ReviewPod, TheSharedAdmissionReviewFixtureDecodesAndIsAllowedUnchanged) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  const auto text =
      testing::readFile(shared / "fixtures/k8s-api/admission.k8s.io.v1.AdmissionReview.json");
  auto review = api::decodeAdmissionReview(text);
  ASSERT_TRUE(review.has_value()) << review.error().toString();
  ASSERT_TRUE(review->request.has_value());
  const auto result = reviewPod(*review->request, webSizing);
  EXPECT_TRUE(result.response.allowed);
  EXPECT_EQ(result.response.uid, review->request->uid);
  EXPECT_TRUE(result.response.patch.empty());
}

api::AdmissionRequest policyRequest(std::string_view operation, std::string object) {
  return api::AdmissionRequest{.uid = "u-1",
                               .kind = {"attune.io", "v1alpha1", "AttunePolicy"},
                               .resource = {"attune.io", "v1alpha1", "attunepolicies"},
                               .name = "web",
                               .namespace_ = "shop",
                               .operation = std::string(operation),
                               .object = std::move(object)};
}

constexpr std::string_view kValidPolicy = R"({
  "apiVersion": "attune.io/v1alpha1", "kind": "AttunePolicy",
  "metadata": {"name": "web", "namespace": "shop", "uid": "x", "generation": 1,
               "managedFields": [{"manager": "kubectl"}]},
  "spec": {"targetRef": {"kind": "Deployment", "name": "web"}}})";

TEST(ReviewPolicy, AValidPolicyIsAllowed) {
  const auto response = reviewPolicy(policyRequest("CREATE", std::string(kValidPolicy)));
  EXPECT_TRUE(response.allowed) << (response.status ? response.status->message : "");
  EXPECT_EQ(response.uid, "u-1");
}

TEST(ReviewPolicy, AnInvalidPolicyIsRefusedWithEveryErrorAndItsFieldPath) {
  const std::string invalid = R"({
    "apiVersion": "attune.io/v1alpha1", "kind": "AttunePolicy",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"targetRef": {"kind": "Deployment", "name": "web"},
             "cpu": {"minAllowed": "2", "maxAllowed": "1"},
             "memory": {"minAllowed": "lots"}}})";
  const auto response = reviewPolicy(policyRequest("UPDATE", invalid));
  EXPECT_FALSE(response.allowed);
  ASSERT_TRUE(response.status.has_value());
  EXPECT_EQ(response.status->code, 422);
  EXPECT_EQ(response.status->reason, "Invalid");
  // Every error, the decoding one first, each with its field path.
  EXPECT_EQ(response.status->message,
            "AttunePolicy \"web\" is invalid: spec.memory.minAllowed: invalid quantity \"lots\": "
            "expected a number such as 250m, 1.5 or 512Mi; spec.cpu.minAllowed: must be at most "
            "maxAllowed (1), got 2");
}

TEST(ReviewPolicy, OtherOperationsAndKindsAreAllowed) {
  EXPECT_TRUE(reviewPolicy(policyRequest("DELETE", "{}")).allowed);
  auto pod = policyRequest("CREATE", "{}");
  pod.kind = {"", "v1", "Pod"};
  EXPECT_TRUE(reviewPolicy(pod).allowed);
}

}  // namespace
}  // namespace attune::webhook
