// SimServer: `attune sim serve` as an object: a Simulation in wall-clock time (SimHost) behind
// the Kubernetes REST API (ApiServer on an HttpServer, TLS optional), with a kubeconfig that
// points at it.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "http/http_server.h"
#include "http/tls_server.h"
#include "sim/engine/simulation.h"
#include "sim/serve/api_server.h"
#include "sim/serve/sim_host.h"

namespace attune::sim::serve {

using http::server::HttpServer;
using http::server::HttpServerOptions;
using http::server::TlsServerContext;

struct ServeOptions {
  std::string listen = "127.0.0.1:0";  // host:port; port 0 picks a free one
  bool tls = false;
  // Wall time per simulation tick; unset: the scenario's tick divided by `speed`.
  std::optional<Duration> tickInterval;
  double speed = 60;  // simulated seconds per wall second when tickInterval is unset (> 0)
  // Whether clients must send a bearer token. Off, every request is accepted and the kubeconfig
  // has no token (kubectl does not send one over plain HTTP).
  bool authenticate = true;
  // The bearer token clients must send when `authenticate`; empty: a random one.
  std::string token;
  // Injected faults (fault_mode.h); rate 0: none.
  FaultModeOptions faults;
  // Where webhooks registered with a clientConfig.service are called
  // (ApiServerOptions::webhookHost).
  std::string webhookHost = std::string(kDefaultWebhookHost);
  // Changes kept for watches and continue tokens (ApiServerOptions::watchLogCapacity).
  std::size_t watchLogCapacity = ApiServerOptions{}.watchLogCapacity;
};

// The parts of "host:port" ("[::1]:8443" for IPv6); kInvalidArgument (field "listen") when
// malformed or the port is out of range.
struct ListenAddress {
  std::string host;
  int port = 0;
};
Result<ListenAddress> parseListenAddress(std::string_view text);

class SimServer {
 public:
  // Starts the ticker and the server. `wall` paces the ticks and must outlive the server.
  // Errors: a bad listen address (kInvalidArgument), an address in use (kUnavailable), TLS
  // setup (kInternal), a speed or tick interval that is not positive, a fault rate outside
  // [0, 1] (kInvalidArgument).
  static Result<std::unique_ptr<SimServer>> start(std::unique_ptr<Simulation> simulation,
                                                  const ServeOptions& options, Clock& wall);
  // stop().
  ~SimServer();
  SimServer(const SimServer&) = delete;
  SimServer& operator=(const SimServer&) = delete;

  // "https://127.0.0.1:PORT" (or http://).
  const std::string& url() const { return url_; }
  int port() const { return http_->port(); }
  Duration tickInterval() const { return tickInterval_; }
  // A kubeconfig (YAML) with one cluster, user and context named "attune-sim": the server URL,
  // the CA data when TLS is on, and the bearer token when clients must send one.
  std::string kubeconfig() const;
  // Blocks until the first tick has run (pods exist and /readyz answers ok): true; false when
  // the tick failed or the server was stopped first.
  bool waitUntilReady();
  // The API server (its fault counters).
  ApiServer& api() { return *api_; }
  // The host's failure, when a tick failed.
  std::optional<Error> failure() { return host_->failure(); }
  // Stops the HTTP server (closing streams) and the ticker. Idempotent.
  void stop();

 private:
  SimServer() = default;

  std::unique_ptr<TlsServerContext> tls_;
  std::unique_ptr<SimHost> host_;
  std::unique_ptr<ApiServer> api_;
  std::atomic<ApiServer*> ready_{nullptr};  // api_ once requests may use it
  std::unique_ptr<HttpServer> http_;
  std::string url_;
  std::string token_;
  Duration tickInterval_{};
};

}  // namespace attune::sim::serve
