#include "metrics/prometheus/prometheus_pool.h"

#include <iterator>

namespace attune::metrics {

PrometheusPool::PrometheusPool(PrometheusOptions base, Clock& clock, TransportFactory transports)
    : base_(std::move(base)), clock_(clock), transports_(std::move(transports)) {
  if (!transports_) {
    transports_ = [](const HttpClientOptions& http) -> HttpTransportPtr {
      return std::make_unique<CurlHttpClient>(http);
    };
  }
}

PrometheusOptions PrometheusPool::optionsFor(const PrometheusEndpoint& endpoint) const {
  PrometheusOptions options = base_;
  options.client.address = endpoint.address;
  options.client.queryParameters = endpoint.queryParameters;
  options.http.bearerToken = endpoint.bearerToken;
  options.http.bearerTokenFile.clear();
  options.http.basicAuth.reset();
  options.http.insecureSkipVerify = endpoint.insecureSkipVerify;
  options.http.headers.insert(options.http.headers.end(), endpoint.headers.begin(),
                              endpoint.headers.end());
  return options;
}

MetricsSource& PrometheusPool::acquire(const PrometheusEndpoint& endpoint) {
  auto it = entries_.find(endpoint);
  if (it == entries_.end()) {
    PrometheusOptions options = optionsFor(endpoint);
    auto source = std::make_unique<PrometheusSource>(std::move(options), transports_, clock_);
    it = entries_.emplace(endpoint, Entry{std::move(source)}).first;
  }
  it->second.used = true;
  return *it->second.source;
}

std::size_t PrometheusPool::dropUnused() {
  const std::size_t dropped =
      std::erase_if(entries_, [](const auto& entry) { return !entry.second.used; });
  for (auto& [endpoint, entry] : entries_) entry.used = false;
  return dropped;
}

}  // namespace attune::metrics
