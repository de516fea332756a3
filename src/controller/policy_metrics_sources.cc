#include "controller/policy_metrics_sources.h"

#include <algorithm>
#include <cctype>

namespace attune::controller {
namespace {

constexpr std::string_view kPath = "spec.metricsSource.prometheus";

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

PolicyMetricsSources::PolicyMetricsSources(api::ClusterApi& api, metrics::MetricsSource& fallback,
                                           metrics::PrometheusPool& pool, SecretFn onSecret)
    : api_(api), fallback_(fallback), pool_(pool), onSecret_(std::move(onSecret)) {}

Result<metrics::PrometheusEndpoint> PolicyMetricsSources::endpointOf(
    const api::AttunePolicy& policy) {
  const api::PrometheusSource& prom = *policy.spec.metricsSource.prometheus;
  metrics::PrometheusEndpoint endpoint;
  endpoint.address = prom.address;
  endpoint.insecureSkipVerify = prom.insecureSkipVerify.value_or(false);
  for (const auto& [name, value] : prom.headers) {
    endpoint.headers.emplace_back(name, value);
    if (onSecret_ && (equalsIgnoringCase(name, "Authorization") ||
                      equalsIgnoringCase(name, "Proxy-Authorization"))) {
      onSecret_(value);
      // The credentials after the scheme ("Basic <base64>", "Bearer <token>").
      if (auto space = value.find(' '); space != std::string::npos) {
        onSecret_(std::string_view(value).substr(space + 1));
      }
    }
  }
  for (const auto& [key, value] : prom.queryParameters) {
    endpoint.queryParameters.emplace_back(key, value);
  }
  if (prom.bearerTokenSecret) {
    const api::SecretKeyRef& ref = *prom.bearerTokenSecret;
    const std::string field = std::string(kPath) + ".bearerTokenSecret";
    const std::string& ns = policy.metadata.namespace_;
    auto secret = api_.getSecret(ns, ref.name);
    if (!secret) {
      return fail(secret.error().code,
                  "cannot read Secret " + ns + "/" + ref.name + ": " + secret.error().message,
                  field);
    }
    auto it = secret->data.find(ref.key);
    if (it == secret->data.end()) {
      return fail(ErrorCode::kNotFound,
                  "Secret " + ns + "/" + ref.name + " has no key \"" + ref.key + "\"", field);
    }
    std::string token = it->second;
    // A token file written with a trailing newline is the usual case; the header cannot carry it.
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
      token.pop_back();
    }
    if (token.empty()) {
      return fail(ErrorCode::kInvalidArgument,
                  "Secret " + ns + "/" + ref.name + " key \"" + ref.key + "\" is empty", field);
    }
    if (onSecret_) onSecret_(token);
    endpoint.bearerToken = std::move(token);
  }
  return endpoint;
}

metrics::MetricsSource& PolicyMetricsSources::sourceFor(const api::AttunePolicy& policy) {
  if (!policy.spec.metricsSource.prometheus) return fallback_;
  const std::string key = policy.metadata.namespace_ + "/" + policy.metadata.name;
  auto endpoint = endpointOf(policy);
  if (!endpoint) {
    auto& failing = failures_[key];
    failing = std::make_unique<metrics::UnavailableSource>(endpoint.error());
    return *failing;
  }
  failures_.erase(key);
  return pool_.acquire(*endpoint);
}

std::size_t PolicyMetricsSources::dropUnused() {
  failures_.clear();
  return pool_.dropUnused();
}

}  // namespace attune::controller
