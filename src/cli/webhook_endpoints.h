// The operator's admission webhooks on --webhook-address (HTTPS, docs/webhooks.md):
//   POST /mutate-pods              webhook::reviewPod with the controller's published sizing
//   POST /validate-attunepolicies  webhook::reviewPolicy
// admission.k8s.io/v1 AdmissionReview in and out. A body that is not an AdmissionReview with a
// request answers 400 with the reason as plain text; another path 404, another method 405.
// Metrics:
//   attune_webhook_requests_total{webhook,outcome}  webhook: mutate-pods | validate-attunepolicies;
//     outcome: sized, unchanged, not_applicable, no_sizing, undecodable (pods), allowed,
//     denied (policies), bad_request
//   attune_webhook_request_duration_seconds{webhook} (histogram)
// and, for every decoded review, the public operator's:
//   attune_webhook_validation_total{operation,result}  operation: validate_create,
//     validate_update (policies; validate_<operation> for others), pod-initial-sizing (pods);
//     result: allowed, rejected
//   attune_webhook_duration_seconds{operation} (histogram)
#pragma once

#include "core/clock.h"
#include "http/server_message.h"
#include "metrics/exposition/registry.h"
#include "webhook/admission_review.h"

namespace attune::cli {

inline constexpr std::string_view kMutatePodsPath = "/mutate-pods";
inline constexpr std::string_view kValidatePoliciesPath = "/validate-attunepolicies";

class WebhookEndpoints {
 public:
  // `lookup` is called on server threads and must be thread-safe; `clock` (thread-safe) times
  // the requests. Every reference must outlive the endpoints.
  WebhookEndpoints(webhook::SizingLookup lookup, metrics::Registry& registry, const Clock& clock);

  // Thread-safe.
  http::server::HttpResponse serve(const http::server::HttpRequest& request) const;

 private:
  http::server::HttpResponse review(std::string_view webhook,
                                    const http::server::HttpRequest& request) const;

  webhook::SizingLookup lookup_;
  const Clock& clock_;
  metrics::MetricFamily& requests_;
  metrics::MetricFamily& duration_;
  metrics::MetricFamily& decisions_;
  metrics::MetricFamily& decisionDuration_;
};

}  // namespace attune::cli
