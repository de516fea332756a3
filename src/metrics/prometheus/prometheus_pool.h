// PrometheusPool: one PrometheusSource per distinct endpoint configuration (address, headers,
// query parameters, bearer token, TLS verification), kept between passes so that connections
// are reused, and dropped once no policy asks for it any more (docs/prometheus.md).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "metrics/prometheus/prometheus_source.h"

namespace attune::metrics {

// Everything that makes one pooled client differ from another. Two equal endpoints share a
// client; any difference (a rotated token included) gets its own.
struct PrometheusEndpoint {
  std::string address;
  std::vector<std::pair<std::string, std::string>> headers;          // in name order
  std::vector<std::pair<std::string, std::string>> queryParameters;  // in key order
  std::string bearerToken;                                           // "" = none
  bool insecureSkipVerify = false;

  auto operator<=>(const PrometheusEndpoint&) const = default;
};

// Not thread-safe: one caller (the controller's pass) drives it. `clock` must outlive the pool.
class PrometheusPool {
 public:
  // Every pooled source starts from `base` (retries, backoff, warning callback, rate windows, CA
  // bundle, timeouts); the endpoint replaces the address, query parameters, bearer token and
  // insecureSkipVerify, and adds its headers to base's. base's own credentials (bearer token or
  // token file, basic auth) are never sent to a pooled endpoint. `transports` defaults to
  // libcurl (CurlHttpClient).
  PrometheusPool(PrometheusOptions base, Clock& clock, TransportFactory transports = {});

  // The source of `endpoint`, created on first use and marked used. The reference stays valid
  // until a dropUnused() call finds it unused.
  MetricsSource& acquire(const PrometheusEndpoint& endpoint);
  // Drops every source not acquired since the previous call, and returns how many it dropped.
  // Call it after a pass over every policy.
  std::size_t dropUnused();
  std::size_t size() const { return entries_.size(); }

  // The options a source of `endpoint` is built with.
  PrometheusOptions optionsFor(const PrometheusEndpoint& endpoint) const;

 private:
  struct Entry {
    std::unique_ptr<PrometheusSource> source;
    bool used = true;
  };

  PrometheusOptions base_;
  Clock& clock_;
  TransportFactory transports_;
  std::map<PrometheusEndpoint, Entry> entries_;
};

}  // namespace attune::metrics
