// Fuzzes the Kubernetes object decoders of api/k8s/decode.h. Every input is decoded with every
// decoder: each object kind, each LIST kind, metav1.Status, Eviction, AdmissionReview and the
// webhook configurations. For any input: no decoder crashes or throws, and every error has a
// message. For every object that decodes and has an encoder (encode.h, encode_objects.h):
// (decoders do not check "kind", so a ReplicaSet read from another workload's body keeps a
// strategy type, which the ReplicaSet encoder does not write: it is left out of the comparison)
//  - the object re-encodes to JSON that decodes to an equal object (LISTs: equal items,
//    resourceVersion and continue token; AdmissionReview: an equal request apart from the
//    embedded object and oldObject, which are re-serialised, and a response that decodes);
//  - encoding that again gives the same text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>

#include "api/k8s/decode.h"
#include "api/k8s/encode.h"
#include "api/k8s/encode_objects.h"
#include "fuzz_check.h"

namespace {

using namespace attune::api;
using attune::Result;

using attune::fuzz::check;

template <typename T>
concept ObjectEncodable = requires(const T& t) {
  encodeObjectJson(t);
};

// Decodes `text` with `decode`; for a decoded value re-encodes it with `encode` and checks the
// round trip.
template <typename Decode, typename Encode>
void roundTrip(std::string_view text, Decode decode, Encode encode) {
  auto decoded = decode(text);
  if (!decoded) {
    check(!decoded.error().message.empty());
    return;
  }
  const std::string json = encode(*decoded);
  auto again = decode(json);
  check(again.has_value());
  // The decoders do not check "kind": a ReplicaSet decoded from another workload's body keeps
  // its strategy, which a ReplicaSet does not have and its encoder does not write.
  using T = std::decay_t<decltype(*decoded)>;
  if constexpr (std::is_same_v<T, ReplicaSet>) decoded->spec.strategyType.clear();
  check(*again == *decoded);
  check(encode(*again) == json);
}

template <typename Decode>
void decodeOnly(std::string_view text, Decode decode) {
  auto decoded = decode(text);
  if (!decoded) check(!decoded.error().message.empty());
}

template <typename T>
void object(std::string_view text, Result<T> (*decode)(std::string_view)) {
  if constexpr (ObjectEncodable<T>) {
    roundTrip(text, decode, [](const T& t) { return encodeObjectJson(t); });
  } else {
    decodeOnly(text, decode);
  }
}

template <typename T>
void list(std::string_view text) {
  auto decoded = decodeList<T>(text);
  if (!decoded) {
    check(!decoded.error().message.empty());
    return;
  }
  const std::string json = encodeListJson(*decoded);
  auto again = decodeList<T>(json);
  check(again.has_value());
  if constexpr (std::is_same_v<T, ReplicaSet>) {
    for (ReplicaSet& item : decoded->items) item.spec.strategyType.clear();
  }
  check(again->items == decoded->items);
  check(again->resourceVersion == decoded->resourceVersion);
  check(again->continueToken == decoded->continueToken);
  check(encodeListJson(*again) == json);
}

void admissionReview(std::string_view text) {
  auto decoded = decodeAdmissionReview(text);
  if (!decoded) {
    check(!decoded.error().message.empty());
    return;
  }
  if (decoded->response) {
    const std::string json = encodeAdmissionReviewResponse(*decoded->response);
    auto again = decodeAdmissionReview(json);
    check(again.has_value() && again->response.has_value());
  }
  if (!decoded->request) return;
  const AdmissionRequest& request = *decoded->request;
  const std::string json = encodeAdmissionReviewRequest(request);
  auto again = decodeAdmissionReview(json);
  check(again.has_value() && again->request.has_value());
  AdmissionRequest a = *again->request;
  AdmissionRequest b = request;
  a.object.clear();
  a.oldObject.clear();
  b.object.clear();
  b.oldObject.clear();
  check(a == b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  object<Pod>(text, decodePod);
  object<Node>(text, decodeNode);
  object<Namespace>(text, decodeNamespace);
  object<Deployment>(text, decodeDeployment);
  object<StatefulSet>(text, decodeStatefulSet);
  object<DaemonSet>(text, decodeDaemonSet);
  object<ReplicaSet>(text, decodeReplicaSet);
  object<Job>(text, decodeJob);
  object<CronJob>(text, decodeCronJob);
  object<LimitRange>(text, decodeLimitRange);
  object<ResourceQuota>(text, decodeResourceQuota);
  object<HorizontalPodAutoscaler>(text, decodeHorizontalPodAutoscaler);
  object<PodDisruptionBudget>(text, decodePodDisruptionBudget);
  object<Event>(text, decodeEvent);
  roundTrip(text, decodeEvent, encodeEvent);
  object<Lease>(text, decodeLease);
  roundTrip(text, decodeLease, encodeLease);
  roundTrip(text, decodeEviction, encodeEviction);
  roundTrip(text, decodeApiStatus, [](const ApiStatus& s) { return encodeStatusJson(s); });
  decodeOnly(text, decodeSecret);
  decodeOnly(text, decodeWebhookConfiguration);
  decodeOnly(text, decodeMutatingWebhookConfiguration);
  admissionReview(text);

  list<Pod>(text);
  list<Node>(text);
  list<Namespace>(text);
  list<Deployment>(text);
  list<StatefulSet>(text);
  list<DaemonSet>(text);
  list<ReplicaSet>(text);
  list<Job>(text);
  list<CronJob>(text);
  list<LimitRange>(text);
  list<ResourceQuota>(text);
  list<HorizontalPodAutoscaler>(text);
  list<PodDisruptionBudget>(text);
  list<Event>(text);
  list<Lease>(text);
  return 0;
}
