// The operator's HTTP endpoints on --metrics-address: /metrics (the operator registry in the
// Prometheus text format 0.0.4), /healthz (the run loop is alive) and /readyz (the first cluster
// sync and metrics check are done; standbys are ready too).
#pragma once

#include <string>
#include <string_view>

#include "cli/operator_loop.h"
#include "core/clock.h"
#include "core/error.h"
#include "http/server_message.h"
#include "metrics/exposition/registry.h"

namespace attune::cli {

struct ListenAddress {
  std::string host;  // an IPv4 or IPv6 literal, or "localhost"
  int port = 0;      // 0: any free port
};

// "HOST:PORT", ":PORT" (all IPv4 interfaces, 0.0.0.0) or "[IPV6]:PORT". kInvalidArgument (field
// `flag`) for a missing or non-numeric port, or one above 65535.
Result<ListenAddress> parseListenAddress(std::string_view text, std::string_view flag);

// What the endpoints read; every reference must outlive the server. The clock must be
// thread-safe (SystemClock): handlers run on the server's connection threads.
struct OperatorEndpoints {
  const metrics::Registry& registry;
  const OperatorHealth& health;
  const Clock& clock;
  Duration stallTimeout;

  // GET or HEAD /metrics, /healthz, /readyz; 404 for other paths, 405 for other methods.
  // /healthz: 200 "ok" while health.alive(now, stallTimeout), else 500. /readyz: 200 "ok" once
  // health.ready(), else 503. Thread-safe.
  http::server::HttpResponse serve(const http::server::HttpRequest& request) const;
};

}  // namespace attune::cli
