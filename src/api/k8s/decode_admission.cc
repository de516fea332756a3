// Decoder of admission.k8s.io/v1 AdmissionReview.
#include "api/k8s/base64.h"
#include "api/k8s/decoders.h"

namespace attune::api {

static Status readJson(JsonValue& v, GroupVersionKind& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "group") return readJson(value, out.group);
    if (key == "version") return readJson(value, out.version);
    if (key == "kind") return readJson(value, out.kind);
    return {};
  });
}

static Status readJson(JsonValue& v, GroupVersionResource& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "group") return readJson(value, out.group);
    if (key == "version") return readJson(value, out.version);
    if (key == "resource") return readJson(value, out.resource);
    return {};
  });
}

static Status readJson(JsonValue& v, AdmissionRequest& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "uid") return readJson(value, out.uid);
    if (key == "kind") return readJson(value, out.kind);
    if (key == "resource") return readJson(value, out.resource);
    if (key == "subResource") return readJson(value, out.subResource);
    if (key == "name") return readJson(value, out.name);
    if (key == "namespace") return readJson(value, out.namespace_);
    if (key == "operation") return readJson(value, out.operation);
    if (key == "userInfo") {
      return forEachField(value, [&out](std::string_view k, JsonValue& user) -> Status {
        if (k == "username") return readJson(user, out.username);
        return {};
      });
    }
    if (key == "object") return readRawJson(value, out.object);
    if (key == "oldObject") return readRawJson(value, out.oldObject);
    if (key == "dryRun") return readJson(value, out.dryRun);
    return {};
  });
}

static Status readJson(JsonValue& v, AdmissionResponse& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "uid") return readJson(value, out.uid);
    if (key == "allowed") return readJson(value, out.allowed);
    if (key == "status") return readJson(value, out.status);
    if (key == "patchType") return readJson(value, out.patchType);
    if (key == "warnings") return readJson(value, out.warnings);
    if (key == "patch") {
      std::string encoded;
      if (Status st = readJson(value, encoded); !st) return st;
      std::optional<std::string> decoded = base64Decode(encoded);
      if (!decoded) return fail(ErrorCode::kInvalidArgument, "patch is not valid base64");
      out.patch = std::move(*decoded);
      return {};
    }
    return {};
  });
}

Status readJson(JsonValue& v, AdmissionReview& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "apiVersion") return readJson(value, out.apiVersion);
    if (key == "request") return readJson(value, out.request);
    if (key == "response") return readJson(value, out.response);
    return {};
  });
}

static Status readJson(JsonValue& v, WebhookService& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "namespace") return readJson(value, out.namespace_);
    if (key == "name") return readJson(value, out.name);
    if (key == "path") return readJson(value, out.path);
    if (key == "port") return readJson(value, out.port);
    return {};
  });
}

static Status readClientConfig(JsonValue& v, MutatingWebhook& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "url") return readJson(value, out.url);
    if (key == "service") return readJson(value, out.service);
    if (key == "caBundle") return readJson(value, out.caBundle);
    return {};
  });
}

static Status readJson(JsonValue& v, WebhookRule& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "operations") return readJson(value, out.operations);
    if (key == "apiGroups") return readJson(value, out.apiGroups);
    if (key == "apiVersions") return readJson(value, out.apiVersions);
    if (key == "resources") return readJson(value, out.resources);
    if (key == "scope") return readJson(value, out.scope);
    return {};
  });
}

static Status readJson(JsonValue& v, MutatingWebhook& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "name") return readJson(value, out.name);
    if (key == "rules") return readJson(value, out.rules);
    if (key == "clientConfig") return readClientConfig(value, out);
    if (key == "failurePolicy") return readJson(value, out.failurePolicy);
    if (key == "sideEffects") return readJson(value, out.sideEffects);
    if (key == "timeoutSeconds") return readJson(value, out.timeoutSeconds);
    if (key == "admissionReviewVersions") return readJson(value, out.admissionReviewVersions);
    if (key == "namespaceSelector") return readJson(value, out.namespaceSelector);
    if (key == "objectSelector") return readJson(value, out.objectSelector);
    if (key == "reinvocationPolicy") return readJson(value, out.reinvocationPolicy);
    return {};
  });
}

Status readJson(JsonValue& v, MutatingWebhookConfiguration& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "kind") {
      std::string kind;
      if (Status st = readJson(value, kind); !st) return st;
      if (kind == kindName(WebhookConfigurationKind::kValidating)) {
        out.kind = WebhookConfigurationKind::kValidating;
      }
      return {};
    }
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "webhooks") return readJson(value, out.webhooks);
    return {};
  });
}

std::string_view kindName(WebhookConfigurationKind kind) {
  return kind == WebhookConfigurationKind::kMutating ? "MutatingWebhookConfiguration"
                                                     : "ValidatingWebhookConfiguration";
}

std::string_view resourceName(WebhookConfigurationKind kind) {
  return kind == WebhookConfigurationKind::kMutating ? "mutatingwebhookconfigurations"
                                                     : "validatingwebhookconfigurations";
}

}  // namespace attune::api
