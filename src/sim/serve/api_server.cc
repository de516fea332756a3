#include "sim/serve/api_server.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <vector>

#include "api/k8s/decode.h"
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

// Whether a write carries a resourceVersion precondition: metadata.resourceVersion in the
// object or merge patch, a JSON patch operation on /metadata/resourceVersion, or DeleteOptions'
// preconditions.resourceVersion.
bool hasPrecondition(const HttpRequest& request) {
  const auto body = nlohmann::json::parse(request.body, nullptr, false);
  auto nonEmpty = [](const nlohmann::json& j, const char* outer) {
    auto o = j.find(outer);
    if (o == j.end() || !o->is_object()) return false;
    auto rv = o->find("resourceVersion");
    return rv != o->end() && rv->is_string() && !rv->get<std::string>().empty();
  };
  if (body.is_object()) return nonEmpty(body, "metadata") || nonEmpty(body, "preconditions");
  if (!body.is_array()) return false;
  for (const auto& op : body) {
    if (op.is_object() && op.value("path", std::string()) == "/metadata/resourceVersion") {
      return true;
    }
  }
  return false;
}

RequestKind requestKindOf(const HttpRequest& request, const ResourceRequest& r, bool watching) {
  if (watching) return RequestKind::kWatch;
  const std::string& method = request.method;
  if (method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE") {
    return hasPrecondition(request) ? RequestKind::kConditionalWrite : RequestKind::kWrite;
  }
  if (r.name.empty() && !request.param("continue").empty()) return RequestKind::kListContinue;
  return RequestKind::kRead;
}

// A Reply carrying a metav1.Status failure.
Reply statusReply(int code, std::string message, std::string reason) {
  return Reply{code, api::encodeStatusJson(
                         api::ApiStatus{"Failure", std::move(message), std::move(reason), code})};
}

constexpr std::string_view kExpiredContinue =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter.";

}  // namespace

ApiServer::ApiServer(SimHost& host, ApiServerOptions options)
    : host_(host),
      options_(std::move(options)),
      log_(options_.watchLogCapacity,
           host_.inspect([](Simulation& s) { return s.state().versioner().current(); })),
      opaque_(host_.inspect([](Simulation& s) -> Versioner& { return s.state().versioner(); }),
              [this](std::string_view resource, api::WatchEventType type, const std::string& j) {
                recordOpaque(resource, type, j);
              }),
      pager_(options_.listSnapshots),
      faults_(options_.faults),
      prometheus_(host) {
  // Each watch stream waits for its resource's events only (SimHost's topics).
  log_.onAppend = [this](std::string_view resource) { host_.raiseLocked(resource); };
  host_.inspect([this](Simulation& s) {
    recordChanges(s.state(), &log_, &encoded_);
    const ResourceInfo* pods = findResource("", "v1", "pods");
    s.state().setPodAdmission([this, &s, pods](api::Pod pod) -> Result<api::Pod> {
      AdmissionVerdict verdict = admit(s, *pods, "", "CREATE", api::encodeObjectJson(pod), "");
      if (!verdict.allowed) {
        return fail(ErrorCode::kForbidden,
                    verdict.status ? verdict.status->message : "admission refused the pod");
      }
      return api::decodePod(verdict.object);
    });
  });
}

ApiServer::~ApiServer() {
  host_.inspect([](Simulation& s) {
    s.state().setPodAdmission({});
    recordChanges(s.state(), nullptr);
  });
}

AdmissionVerdict ApiServer::admit(Simulation& sim, const ResourceInfo& info,
                                  std::string_view subresource, std::string_view operation,
                                  const std::string& object, const std::string& oldObject) {
  std::vector<api::WebhookConfiguration> configurations;
  for (std::string_view plural :
       {"mutatingwebhookconfigurations", "validatingwebhookconfigurations"}) {
    const ResourceInfo* kind = findResource("admissionregistration.k8s.io", "v1", plural);
    for (const std::string& json : opaque_.list(kind->qualifiedName(), "")) {
      // An object the decoder refuses was stored as given; the API server would have refused
      // it, so it registers nothing.
      if (auto config = api::decodeWebhookConfiguration(json)) {
        configurations.push_back(std::move(*config));
      }
    }
  }
  if (configurations.empty()) return AdmissionVerdict{.allowed = true, .object = object};

  const auto parsed = nlohmann::json::parse(object, nullptr, false);
  const auto meta = parsed.is_object() ? parsed.value("metadata", nlohmann::json::object())
                                       : nlohmann::json::object();
  AdmissionCall call;
  api::AdmissionRequest& request = call.request;
  request.uid = "sim-admission-" + std::to_string(++admissionRequests_);
  request.kind = {std::string(info.group), std::string(info.version), std::string(info.kind)};
  request.resource = {std::string(info.group), std::string(info.version), std::string(info.plural)};
  request.subResource = std::string(subresource);
  request.namespace_ = meta.value("namespace", std::string());
  request.name = meta.value("name", std::string());
  request.operation = std::string(operation);
  request.username = "system:admin";
  request.object = object;
  request.oldObject = oldObject;
  if (auto labels = meta.find("labels"); labels != meta.end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (value.is_string()) call.objectLabels[key] = value.get<std::string>();
    }
  }
  if (const api::Namespace* ns = sim.state().namespaces.find("", request.namespace_)) {
    call.namespaceLabels = ns->metadata.labels;
    call.namespaceLabels["kubernetes.io/metadata.name"] = request.namespace_;
  }
  return runAdmission(configurations, call,
                      [this](const api::WebhookService&) { return options_.webhookHost; });
}

void ApiServer::recordOpaque(std::string_view resource, api::WatchEventType type,
                             const std::string& json) {
  const auto object = nlohmann::json::parse(json, nullptr, false);
  if (!object.is_object()) return;
  const auto meta = object.value("metadata", nlohmann::json::object());
  LoggedEvent event;
  event.resourceVersion =
      parseResourceVersion(meta.value("resourceVersion", std::string())).value_or(0);
  event.resource = std::string(resource);
  event.type = type;
  event.ns = meta.value("namespace", std::string());
  event.name = meta.value("name", std::string());
  if (auto labels = meta.find("labels"); labels != meta.end() && labels->is_object()) {
    for (const auto& [key, value] : labels->items()) {
      if (value.is_string()) event.labels[key] = value.get<std::string>();
    }
  }
  event.json = json;
  log_.append(std::move(event));
}

std::optional<HttpResponse> ApiServer::faultResponse(FaultKind fault, bool watching,
                                                     const ResourceRequest& r) {
  switch (fault) {
    case FaultKind::kNone:
    case FaultKind::kWatchDropped:
    case FaultKind::kResponseLost:
      return std::nullopt;
    case FaultKind::kThrottled: {
      api::StatusDetails details;
      details.retryAfterSeconds = 1;
      HttpResponse out = status(429, "Too many requests, please try again later (injected fault)",
                                details, "TooManyRequests");
      out.headers.emplace_back("Retry-After", "1");
      return out;
    }
    case FaultKind::kServerError: {
      // With Retry-After, which client-go (kubectl) needs to retry a 500.
      api::StatusDetails details;
      details.retryAfterSeconds = 1;
      HttpResponse out = status(500,
                                "an error on the server (\"injected fault\") has prevented the "
                                "request from succeeding",
                                details, "InternalError");
      out.headers.emplace_back("Retry-After", "1");
      return out;
    }
    case FaultKind::kTimeout: {
      HttpResponse out;
      out.abort = true;
      return out;
    }
    case FaultKind::kWatchGone:
      if (!watching) return status(410, std::string(kExpiredContinue), {}, "Expired");
      return goneStream("too old resource version (injected fault)");
    case FaultKind::kConflict: {
      api::StatusDetails details;
      details.name = r.name;
      details.group = std::string(r.info->group);
      details.kind = std::string(r.info->plural);
      return status(409,
                    "Operation cannot be fulfilled on " + r.info->qualifiedName() + " \"" + r.name +
                        "\": the object has been modified; please apply your changes to the "
                        "latest version and try again (injected fault)",
                    details, "Conflict");
    }
  }
  return std::nullopt;
}

HttpResponse ApiServer::handle(const HttpRequest& request) {
  std::string_view path = request.path;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/healthz" || path == "/livez") return text(200, "ok");
  if (path == "/readyz") {
    return host_.ready() ? text(200, "ok") : text(503, "the simulation is not running\n");
  }
  if (path == "/metrics") {
    HttpResponse r = text(200, host_.inspect([](Simulation& s) {
      return renderPrometheusText(s.state(), s.kubelet().pods(), s.kubelet().nodes(), s.requests());
    }) + faults_.metricsText() + requests_.metricsText() +
                                   host_.tickMetricsText());
    r.contentType = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  // The request counters and the tick figures alone: cheap to read however large the cluster
  // (no simulation lock).
  if (path == "/metrics/requests") {
    HttpResponse r = text(200, requests_.metricsText() + host_.tickMetricsText());
    r.contentType = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  if (path == "/version") {
    return json(200, api::encodeServerVersion(host_.inspect(
                         [](Simulation& s) { return s.state().kubernetesVersion(); })));
  }
  if (!options_.token.empty() && request.header("authorization") != "Bearer " + options_.token) {
    return status(401, "Unauthorized");
  }
  if (path.starts_with(kPrometheusPrefix) &&
      path.substr(kPrometheusPrefix.size()).starts_with('/')) {
    return prometheus_.handle(request, path.substr(kPrometheusPrefix.size()));
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

WriteAdmission ApiServer::writeAdmission(Simulation& sim) {
  return [this, &sim](const ResourceRequest& r, std::string_view operation,
                      const std::string& object, const std::string& oldObject) {
    return admit(sim, *r.info, r.subresource, operation, object, oldObject);
  };
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
  const bool watching = method == "GET" && r.name.empty() && isWatch(request);
  {  // apiserver_request_total's verbs, for attune_sim_api_requests_total
    std::string resource(r.info->plural);
    if (!r.subresource.empty()) resource += "/" + r.subresource;
    requests_.count(requestVerb(method, r.name.empty(), watching), resource);
  }
  const FaultKind fault =
      faults_.enabled() ? faults_.decide(requestKindOf(request, r, watching)) : FaultKind::kNone;
  if (auto injected = faultResponse(fault, watching, r)) return std::move(*injected);
  Result<Reply> reply = fail(ErrorCode::kUnsupported, "method " + method + " is not supported");
  if (method == "GET" && r.name.empty()) {
    auto labels = parseLabelSelector(request.param("labelSelector"));
    if (!labels) return errorResponse(labels.error(), nullptr);
    auto fields = parseFieldSelector(request.param("fieldSelector"));
    if (!fields) return errorResponse(fields.error(), nullptr);
    // metadata.name / metadata.namespace given as field selectors narrow a list as usual.
    if (watching) {
      return watch(request, r, *labels, *fields, fault == FaultKind::kWatchDropped);
    }
    reply = host_.inspect([&](Simulation& s) { return list(s, request, r, *labels, *fields); });
  } else if (method == "GET") {
    if (isWatch(request)) {
      return status(405, "watch one object with a fieldSelector on metadata.name");
    }
    reply = host_.inspect([&](Simulation& s) { return getObject(s, opaque_, encoded_, r); });
  } else if (method == "POST") {
    reply = host_.withSimulation([&](Simulation& s) {
      return createObject(s, opaque_, r, request.body, writeAdmission(s));
    });
  } else if (method == "PUT") {
    reply = host_.withSimulation([&](Simulation& s) {
      return updateObject(s, opaque_, encoded_, r, request.body, writeAdmission(s));
    });
  } else if (method == "PATCH") {
    auto type = patchTypeOf(request.header("content-type"));
    if (!type) return status(415, type.error().message);
    reply = host_.withSimulation([&](Simulation& s) {
      return patchObject(s, opaque_, encoded_, r, request.body, *type, writeAdmission(s));
    });
  } else if (method == "DELETE") {
    reply =
        host_.withSimulation([&](Simulation& s) { return deleteObject(s, opaque_, encoded_, r); });
  }
  if (!reply) return errorResponse(reply.error(), &r);
  if (method == "GET" && reply->status == 200 && wantsTable(request)) {
    const Time now = host_.inspect([](Simulation& s) { return s.clock().now(); });
    if (auto table = renderTable(*r.info, reply->body, now)) return json(200, std::move(*table));
  }
  HttpResponse response = json(reply->status, std::move(reply->body));
  for (const std::string& warning : reply->warnings) {
    response.headers.emplace_back("Warning", "299 - " + nlohmann::json(warning).dump());
  }
  return response;
}

Result<Reply> ApiServer::list(Simulation& sim, const HttpRequest& request, const ResourceRequest& r,
                              const api::LabelSelector& labels,
                              const std::vector<FieldRequirement>& fields) {
  std::size_t limit = 0;
  if (const std::string_view text = request.param("limit"); !text.empty()) {
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
      return statusReply(400, "invalid limit \"" + std::string(text) + "\"", "BadRequest");
    }
    limit = static_cast<std::size_t>(value);
  }
  const std::string resource = r.info->qualifiedName();
  const std::string scope = ListPager::scopeOf(resource, r.ns, request.param("labelSelector"),
                                               request.param("fieldSelector"));
  const std::string_view continueToken = request.param("continue");
  if (continueToken.empty()) {
    auto items = listItems(sim, opaque_, r, labels, fields, encoded_);
    if (!items) return std::unexpected(items.error());
    const std::uint64_t rv = sim.state().versioner().current();
    return Reply{200, encodeList(*r.info, pager_.page(scope, rv, std::move(*items), limit), rv)};
  }
  auto token = pager_.decode(scope, continueToken);
  if (!token) return statusReply(400, token.error().message, "BadRequest");
  if (auto page = pager_.next(*token, limit)) {
    return Reply{200, encodeList(*r.info, *page, token->resourceVersion)};
  }
  // The snapshot is gone: the current objects after the token's last key make the same list
  // when the resource has not changed since the token's resourceVersion.
  const std::optional<bool> changed = log_.changedSince(resource, token->resourceVersion);
  if (!changed || *changed || token->resourceVersion > sim.state().versioner().current()) {
    return statusReply(410, std::string(kExpiredContinue), "Expired");
  }
  auto items = listItems(sim, opaque_, r, labels, fields, encoded_);
  if (!items) return std::unexpected(items.error());
  std::erase_if(*items, [&](const KeyedItem& item) {
    return std::tie(item.ns, item.name) <= std::tie(token->lastNs, token->lastName);
  });
  ListPage page = pager_.page(scope, token->resourceVersion, std::move(*items), limit);
  return Reply{200, encodeList(*r.info, page, token->resourceVersion)};
}

}  // namespace attune::sim::serve
