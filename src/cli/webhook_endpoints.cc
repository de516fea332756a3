#include "cli/webhook_endpoints.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <string>
#include <utility>

#include "api/k8s/decode.h"
#include "api/k8s/encode.h"

namespace attune::cli {
namespace {

using http::server::HttpResponse;

std::string_view outcomeName(webhook::PodReviewOutcome outcome) {
  switch (outcome) {
    case webhook::PodReviewOutcome::kSized:
      return "sized";
    case webhook::PodReviewOutcome::kUnchanged:
      return "unchanged";
    case webhook::PodReviewOutcome::kNotApplicable:
      return "not_applicable";
    case webhook::PodReviewOutcome::kNoSizing:
      return "no_sizing";
    case webhook::PodReviewOutcome::kUndecodable:
      return "undecodable";
  }
  return "unknown";
}

}  // namespace

WebhookEndpoints::WebhookEndpoints(webhook::SizingLookup lookup, metrics::Registry& registry,
                                   const Clock& clock)
    : lookup_(std::move(lookup)),
      clock_(clock),
      requests_(registry.counter("attune_webhook_requests_total",
                                 "Admission reviews answered, by webhook and outcome.",
                                 {"webhook", "outcome"})),
      duration_(registry.histogram("attune_webhook_request_duration_seconds",
                                   "Time to answer one admission review.", {"webhook"},
                                   metrics::defaultDurationBuckets())),
      decisions_(registry.counter("attune_webhook_validation_total",
                                  "Admission decisions, by operation and result (allowed, "
                                  "rejected).",
                                  {"operation", "result"})),
      decisionDuration_(registry.histogram("attune_webhook_duration_seconds",
                                           "Time to decide one admission review, by operation.",
                                           {"operation"}, metrics::defaultDurationBuckets())) {
  // Every series exists from the start at 0, so that rate() and increase() see the first
  // request of each outcome (a series that appears at 1 has no increase to see).
  using webhook::PodReviewOutcome;
  const std::string pods(kMutatePodsPath.substr(1));
  for (PodReviewOutcome outcome :
       {PodReviewOutcome::kSized, PodReviewOutcome::kUnchanged, PodReviewOutcome::kNotApplicable,
        PodReviewOutcome::kNoSizing, PodReviewOutcome::kUndecodable}) {
    requests_.inc({pods, std::string(outcomeName(outcome))}, 0);
  }
  requests_.inc({pods, "bad_request"}, 0);
  for (std::string_view outcome : {"allowed", "denied", "bad_request"}) {
    requests_.inc({std::string(kValidatePoliciesPath.substr(1)), std::string(outcome)}, 0);
  }
}

HttpResponse WebhookEndpoints::serve(const http::server::HttpRequest& request) const {
  if (request.path != kMutatePodsPath && request.path != kValidatePoliciesPath) {
    return http::server::textResponse(404, "not found\n");
  }
  if (request.method != "POST") {
    auto r = http::server::textResponse(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "POST");
    return r;
  }
  return review(std::string_view(request.path).substr(1), request);
}

HttpResponse WebhookEndpoints::review(std::string_view webhook,
                                      const http::server::HttpRequest& request) const {
  // The latency the API server sees, less the network: from the review's first byte (a slow
  // upload counts) to the answer.
  const Time started = clock_.now() - std::chrono::duration_cast<Duration>(request.receiveTime);
  const std::string name(webhook);
  auto finish = [&](std::string_view outcome, HttpResponse response) {
    requests_.inc({name, std::string(outcome)});
    duration_.observe({name}, std::chrono::duration<double>(clock_.now() - started).count());
    return response;
  };
  auto decoded = api::decodeAdmissionReview(request.body);
  if (!decoded) {
    return finish(
        "bad_request",
        http::server::textResponse(400, "the body is not an admission.k8s.io/v1 AdmissionReview: " +
                                            decoded.error().toString() + "\n"));
  }
  if (!decoded->request) {
    return finish("bad_request",
                  http::server::textResponse(400, "the AdmissionReview has no request\n"));
  }
  HttpResponse ok;
  ok.contentType = "application/json";
  // The public operator's decision metrics.
  auto decide = [&](const std::string& operation, bool allowed) {
    decisions_.inc({operation, allowed ? "allowed" : "rejected"});
    decisionDuration_.observe({operation},
                              std::chrono::duration<double>(clock_.now() - started).count());
  };
  if (webhook == kMutatePodsPath.substr(1)) {
    const webhook::PodReview review = webhook::reviewPod(*decoded->request, lookup_);
    ok.body = api::encodeAdmissionReviewResponse(review.response);
    decide("pod-initial-sizing", review.response.allowed);
    return finish(outcomeName(review.outcome), std::move(ok));
  }
  const api::AdmissionResponse response = webhook::reviewPolicy(*decoded->request);
  ok.body = api::encodeAdmissionReviewResponse(response);
  std::string operation = "validate_" + decoded->request->operation;
  std::transform(operation.begin(), operation.end(), operation.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  decide(operation, response.allowed);
  return finish(response.allowed ? "allowed" : "denied", std::move(ok));
}

}  // namespace attune::cli
