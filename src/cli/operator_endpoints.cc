#include "cli/operator_endpoints.h"

#include <charconv>

namespace attune::cli {
Result<ListenAddress> parseListenAddress(std::string_view text, std::string_view flag) {
  const std::string field(flag);
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(why) + ": want HOST:PORT or :PORT, got \"" + std::string(text) + "\"",
                field);
  };
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (host.starts_with('[')) {
    if (!host.ends_with(']')) return bad("unterminated IPv6 address");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 address must be bracketed");
  }
  ListenAddress address;
  address.host = host.empty() ? "0.0.0.0" : std::string(host);
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || address.port < 0 ||
      address.port > 65535) {
    return bad("bad port");
  }
  return address;
}

http::server::HttpResponse OperatorEndpoints::serve(
    const http::server::HttpRequest& request) const {
  const bool head = request.method == "HEAD";
  if (request.path != "/metrics" && request.path != "/healthz" && request.path != "/readyz") {
    return http::server::textResponse(404, "not found\n");
  }
  if (request.method != "GET" && !head) {
    auto r = http::server::textResponse(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  http::server::HttpResponse r;
  if (request.path == "/metrics") {
    r = http::server::textResponse(200, registry.render());
    r.contentType = "text/plain; version=0.0.4; charset=utf-8";
  } else if (request.path == "/healthz") {
    r = health.alive(clock.now(), stallTimeout)
            ? http::server::textResponse(200, "ok\n")
            : http::server::textResponse(500, "the run loop has stalled\n");
  } else {
    r = health.ready() ? http::server::textResponse(200, "ok\n")
                       : http::server::textResponse(
                             503, "waiting for the first cluster sync and metrics check\n");
  }
  if (head) r.body.clear();
  return r;
}

}  // namespace attune::cli
