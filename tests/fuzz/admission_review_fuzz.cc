// Fuzzes the admission webhook from request bytes to response bytes, as the webhook endpoints
// serve it: decodeAdmissionReview, then webhook::reviewPod (/mutate-pods) and
// webhook::reviewPolicy (/validate-attunepolicies) of the decoded request, then
// encodeAdmissionReviewResponse. For any input: nothing crashes or throws, a decode error has a
// message, and for every decoded request each response
//  - is valid JSON that decodes as an AdmissionReview whose response echoes the request's uid
//    and carries the same allowed flag, status, patch and warnings;
//  - carries a patch only as a JSON array, with patchType "JSONPatch";
//  - when refused, has a status with a message.
// The sizing lookup gives every container of the pod (when request.object decodes as one)
// amounts taken from the input, or no sizing at all, so both the sizing and the pass-through
// paths are reached.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "api/k8s/encode.h"
#include "fuzz_check.h"
#include "webhook/admission_review.h"

namespace {

using namespace attune;

using attune::fuzz::check;

void checkResponse(const api::AdmissionRequest& request, const api::AdmissionResponse& response) {
  check(response.uid == request.uid);
  if (!response.allowed) check(response.status.has_value() && !response.status->message.empty());
  if (!response.patch.empty()) {
    const auto patch = nlohmann::json::parse(response.patch, nullptr, false);
    check(!patch.is_discarded() && patch.is_array());
    check(response.patchType == "JSONPatch");
  }

  const std::string body = api::encodeAdmissionReviewResponse(response);
  check(nlohmann::json::accept(body));
  auto decoded = api::decodeAdmissionReview(body);
  check(decoded.has_value() && decoded->response.has_value() && !decoded->request.has_value());
  const api::AdmissionResponse& echoed = *decoded->response;
  check(echoed.uid == request.uid);
  check(echoed.allowed == response.allowed);
  check(echoed.status == response.status);
  check(echoed.patch == response.patch);
  check(echoed.warnings == response.warnings);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto review = api::decodeAdmissionReview(text);
  if (!review) {
    check(!review.error().message.empty());
    return 0;
  }
  if (!review->request) return 0;
  const api::AdmissionRequest& request = *review->request;

  // Amounts from the input: a small hash picks them (and whether there is any sizing).
  std::uint64_t hash = 1469598103934665603ULL;
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ULL;
  const auto lookup =
      [&](const api::WorkloadRef&) -> std::optional<std::vector<webhook::ContainerSizing>> {
    if (hash % 5 == 0) return std::nullopt;
    std::vector<webhook::ContainerSizing> sizing;
    auto pod = api::decodePod(request.object);
    if (!pod) return sizing;
    std::uint64_t h = hash;
    for (const auto& container : pod->spec.containers) {
      webhook::ContainerSizing s;
      s.container = container.name;
      if (h & 1) s.cpuRequest = Millicores(static_cast<std::int64_t>((h >> 8) % 64000));
      if (h & 2) s.memoryRequest = Bytes(static_cast<std::int64_t>((h >> 16) % (1LL << 36)));
      if (h & 4) s.memoryLimit = Bytes(static_cast<std::int64_t>((h >> 20) % (1LL << 37)));
      s.removeCpuLimit = (h & 8) != 0;
      sizing.push_back(s);
      h = h * 6364136223846793005ULL + 1442695040888963407ULL;
    }
    return sizing;
  };

  const webhook::PodReview podReview = webhook::reviewPod(request, lookup);
  check(podReview.response.allowed);  // the webhook never refuses a pod
  checkResponse(request, podReview.response);
  checkResponse(request, webhook::reviewPolicy(request));
  return 0;
}
