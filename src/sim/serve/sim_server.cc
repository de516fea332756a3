#include "sim/serve/sim_server.h"

#include <openssl/rand.h>

#include <charconv>
#include <chrono>

#include "api/k8s/base64.h"

namespace attune::sim::serve {
namespace {

std::string randomToken() {
  unsigned char bytes[24];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return "attune-sim-token";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace

Result<ListenAddress> parseListenAddress(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return fail(ErrorCode::kInvalidArgument,
                "want host:port such as 127.0.0.1:8443, got \"" + std::string(text) + "\"",
                "listen");
  }
  ListenAddress out;
  out.host = std::string(text.substr(0, colon));
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  std::string_view port = text.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || out.port < 0 ||
      out.port > 65535) {
    return fail(ErrorCode::kInvalidArgument,
                "want a port between 0 and 65535, got \"" + std::string(port) + "\"", "listen");
  }
  return out;
}

Result<std::unique_ptr<SimServer>> SimServer::start(std::unique_ptr<Simulation> simulation,
                                                    const ServeOptions& options, Clock& wall) {
  auto address = parseListenAddress(options.listen);
  if (!address) return std::unexpected(address.error());
  auto faults = FaultMode::validate(options.faults);
  if (!faults) return std::unexpected(faults.error());
  std::unique_ptr<SimServer> server(new SimServer());
  if (options.tickInterval) {
    server->tickInterval_ = *options.tickInterval;
  } else {
    if (!(options.speed > 0)) {
      return fail(ErrorCode::kInvalidArgument, "the speed must be positive", "speed");
    }
    const double seconds =
        std::chrono::duration<double>(simulation->scenario().tick).count() / options.speed;
    server->tickInterval_ =
        std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
  }
  if (server->tickInterval_ <= Duration::zero()) {
    return fail(ErrorCode::kInvalidArgument, "the tick interval must be positive", "tick-interval");
  }
  if (options.tls) {
    auto tls = TlsServerContext::generate(wall.now());
    if (!tls) return std::unexpected(tls.error());
    server->tls_ = std::move(*tls);
  }
  if (options.authenticate) {
    server->token_ = options.token.empty() ? randomToken() : options.token;
  }
  // Every API server has `default`: among others, Events about cluster-scoped objects (a Node's
  // NodeOverloaded) are written there. Only here, not in every simulation: an extra object would
  // shift the generated pod names, and with them the seeded usage of an in-process run.
  if (auto ns = simulation->state().ensureNamespace("default"); !ns) {
    return std::unexpected(ns.error());
  }
  server->host_ = std::make_unique<SimHost>(std::move(simulation), wall, server->tickInterval_);

  HttpServerOptions http;
  http.host = address->host;
  http.port = address->port;
  http.tls = server->tls_.get();
  auto started = HttpServer::start(http, [s = server.get()](const HttpRequest& request) {
    ApiServer* api = s->ready_.load();
    if (api == nullptr) {
      HttpResponse starting;
      starting.status = 503;
      starting.contentType = "text/plain";
      starting.body = "starting\n";
      return starting;
    }
    return api->handle(request);
  });
  if (!started) return std::unexpected(started.error());
  server->http_ = std::move(*started);
  std::string host =
      address->host == "0.0.0.0" || address->host.empty() ? "127.0.0.1" : address->host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  const std::string hostPort = host + ":" + std::to_string(server->http_->port());
  server->url_ = (options.tls ? "https://" : "http://") + hostPort;
  ApiServerOptions api;
  api.token = server->token_;
  api.serverAddress = hostPort;
  api.watchLogCapacity = options.watchLogCapacity;
  api.faults = *faults;
  api.webhookHost = options.webhookHost;
  server->api_ = std::make_unique<ApiServer>(*server->host_, std::move(api));
  server->ready_.store(server->api_.get());
  server->host_->start();
  return server;
}

SimServer::~SimServer() { stop(); }

void SimServer::stop() {
  if (http_) http_->stop();
  if (host_) host_->stop();
}

bool SimServer::waitUntilReady() {
  std::uint64_t seen = host_->generation();
  while (!host_->ready()) {
    if (host_->failure() || host_->stopped()) return false;
    seen = host_->waitForChange(seen);
  }
  return true;
}

std::string SimServer::kubeconfig() const {
  std::string out = "apiVersion: v1\nkind: Config\nclusters:\n- name: attune-sim\n  cluster:\n";
  out += "    server: " + url_ + "\n";
  if (tls_) out += "    certificate-authority-data: " + api::base64Encode(tls_->caPem()) + "\n";
  out += "contexts:\n- name: attune-sim\n  context:\n    cluster: attune-sim\n";
  out += "    user: attune-sim\n    namespace: default\n";
  out += "current-context: attune-sim\n";
  out += "users:\n- name: attune-sim\n  user:";
  out += token_.empty() ? " {}\n" : "\n    token: " + token_ + "\n";
  return out;
}

}  // namespace attune::sim::serve
