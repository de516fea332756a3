#include "sim/serve/api_server.h"

#include <charconv>
#include <vector>

#include "api/k8s/encode_objects.h"
#include "sim/serve/object_handlers.h"
#include "sim/serve/status_response.h"
#include "sim/serve/tables.h"
#include "sim/telemetry/prometheus_text.h"

namespace attune::sim::serve {
namespace {

std::vector<std::string_view> splitPath(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    const std::size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty()) out.push_back(part);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  return out;
}

bool wantsTable(const HttpRequest& request) {
  return request.header("accept").find("as=Table") != std::string_view::npos;
}

bool isWatch(const HttpRequest& request) {
  const std::string_view w = request.param("watch");
  return w == "true" || w == "1";
}

}  // namespace

HttpResponse ApiServer::handle(const HttpRequest& request) {
  std::string_view path = request.path;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/healthz" || path == "/livez") return text(200, "ok");
  if (path == "/readyz") {
    return host_.ready() ? text(200, "ok") : text(503, "the simulation is not running\n");
  }
  if (path == "/metrics") {
    HttpResponse r = text(200, host_.inspect([](Simulation& s) {
      return renderPrometheusText(s.state(), s.kubelet().pods(), s.kubelet().nodes());
    }));
    r.contentType = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  if (path == "/version") return json(200, versionJson());
  if (!options_.token.empty() && request.header("authorization") != "Bearer " + options_.token) {
    return status(401, "Unauthorized");
  }
  if (path == "/api") return json(200, apiVersionsJson(options_.serverAddress));
  if (path == "/apis") return json(200, apiGroupListJson());
  if (path == "/openapi/v3") return json(200, openApiV3RootJson());
  if (path.starts_with("/openapi/v3/")) {
    auto doc = openApiV3Json(path.substr(12));
    return doc ? json(200, std::move(*doc)) : status(404, "the server could not find the page");
  }
  const std::vector<std::string_view> parts = splitPath(path);
  if (parts.size() >= 2 && parts[0] == "api" && parts[1] == "v1") {
    if (parts.size() == 2) return json(200, *apiResourceListJson("", "v1"));
    return handleResource(request, "", "v1", path.substr(8));
  }
  if (parts.size() >= 2 && parts[0] == "apis") {
    if (parts.size() == 2) {
      auto group = apiGroupJson(parts[1]);
      return group ? json(200, std::move(*group)) : status(404, "the server could not find it");
    }
    if (parts.size() == 3) {
      auto list = apiResourceListJson(parts[1], parts[2]);
      return list ? json(200, std::move(*list)) : status(404, "the server could not find it");
    }
    const std::size_t prefix = 6 + parts[1].size() + 1 + parts[2].size() + 1;
    return handleResource(request, parts[1], parts[2], path.substr(prefix));
  }
  return status(404, "the server could not find the requested resource");
}

HttpResponse ApiServer::handleResource(const HttpRequest& request, std::string_view group,
                                       std::string_view version, std::string_view rest) {
  std::vector<std::string_view> parts = splitPath(rest);
  ResourceRequest r;
  if (parts.size() >= 3 && parts[0] == "namespaces") {
    r.info = findResource(group, version, parts[2]);
    if (r.info != nullptr && r.info->namespaced) {
      r.ns = std::string(parts[1]);
      parts.erase(parts.begin(), parts.begin() + 2);
    } else {
      r.info = nullptr;
    }
  }
  if (r.info == nullptr && !parts.empty()) r.info = findResource(group, version, parts[0]);
  if (r.info == nullptr || parts.size() > 3) {
    return status(404, "the server could not find the requested resource");
  }
  if (parts.size() >= 2) r.name = std::string(parts[1]);
  if (parts.size() == 3) r.subresource = std::string(parts[2]);
  if (!r.subresource.empty() && r.info->subresources.find(r.subresource) == std::string::npos) {
    return status(404, "the server could not find the requested resource");
  }

  const std::string& method = request.method;
  Result<Reply> reply = fail(ErrorCode::kUnsupported, "method " + method + " is not supported");
  if (method == "GET" && r.name.empty()) {
    auto labels = parseLabelSelector(request.param("labelSelector"));
    if (!labels) return errorResponse(labels.error(), nullptr);
    auto fields = parseFieldSelector(request.param("fieldSelector"));
    if (!fields) return errorResponse(fields.error(), nullptr);
    // metadata.name / metadata.namespace given as field selectors narrow a list as usual.
    if (isWatch(request)) return watch(request, r, *labels, *fields);
    reply =
        host_.inspect([&](Simulation& s) { return listObjects(s, opaque_, r, *labels, *fields); });
  } else if (method == "GET") {
    if (isWatch(request)) {
      return status(405, "watch one object with a fieldSelector on metadata.name");
    }
    reply = host_.inspect([&](Simulation& s) { return getObject(s, opaque_, r); });
  } else if (method == "POST") {
    reply = host_.withSimulation(
        [&](Simulation& s) { return createObject(s, opaque_, r, request.body); });
  } else if (method == "PUT") {
    reply = host_.withSimulation(
        [&](Simulation& s) { return updateObject(s, opaque_, r, request.body); });
  } else if (method == "PATCH") {
    auto type = patchTypeOf(request.header("content-type"));
    if (!type) return status(415, type.error().message);
    reply = host_.withSimulation(
        [&](Simulation& s) { return patchObject(s, opaque_, r, request.body, *type); });
  } else if (method == "DELETE") {
    reply = host_.withSimulation([&](Simulation& s) { return deleteObject(s, opaque_, r); });
  }
  if (!reply) return errorResponse(reply.error(), &r);
  if (method == "GET" && wantsTable(request)) {
    const Time now = host_.inspect([](Simulation& s) { return s.clock().now(); });
    if (auto table = renderTable(*r.info, reply->body, now)) return json(200, std::move(*table));
  }
  return json(reply->status, std::move(reply->body));
}

}  // namespace attune::sim::serve
