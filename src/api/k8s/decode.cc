// Public decode entry points: single objects, LIST bodies and watch event lines.
#include "api/k8s/decode.h"

#include "api/k8s/decoders.h"
#include "api/k8s/watch_head.h"

namespace attune::api {

std::string_view watchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "UNKNOWN";
}

Result<Pod> decodePod(std::string_view json) { return decodeAs<Pod>(json); }
Result<Node> decodeNode(std::string_view json) { return decodeAs<Node>(json); }
Result<Namespace> decodeNamespace(std::string_view json) { return decodeAs<Namespace>(json); }
Result<Deployment> decodeDeployment(std::string_view json) { return decodeAs<Deployment>(json); }
Result<StatefulSet> decodeStatefulSet(std::string_view json) { return decodeAs<StatefulSet>(json); }
Result<DaemonSet> decodeDaemonSet(std::string_view json) { return decodeAs<DaemonSet>(json); }
Result<ReplicaSet> decodeReplicaSet(std::string_view json) { return decodeAs<ReplicaSet>(json); }
Result<Job> decodeJob(std::string_view json) { return decodeAs<Job>(json); }
Result<CronJob> decodeCronJob(std::string_view json) { return decodeAs<CronJob>(json); }
Result<LimitRange> decodeLimitRange(std::string_view json) { return decodeAs<LimitRange>(json); }
Result<ResourceQuota> decodeResourceQuota(std::string_view json) {
  return decodeAs<ResourceQuota>(json);
}
Result<HorizontalPodAutoscaler> decodeHorizontalPodAutoscaler(std::string_view json) {
  return decodeAs<HorizontalPodAutoscaler>(json);
}
Result<PodDisruptionBudget> decodePodDisruptionBudget(std::string_view json) {
  return decodeAs<PodDisruptionBudget>(json);
}
Result<Event> decodeEvent(std::string_view json) { return decodeAs<Event>(json); }
Result<Lease> decodeLease(std::string_view json) { return decodeAs<Lease>(json); }
Result<Secret> decodeSecret(std::string_view json) { return decodeAs<Secret>(json); }
Result<Eviction> decodeEviction(std::string_view json) { return decodeAs<Eviction>(json); }
Result<AdmissionReview> decodeAdmissionReview(std::string_view json) {
  return decodeAs<AdmissionReview>(json);
}
Result<WebhookConfiguration> decodeWebhookConfiguration(std::string_view json) {
  return decodeAs<WebhookConfiguration>(json);
}
Result<MutatingWebhookConfiguration> decodeMutatingWebhookConfiguration(std::string_view json) {
  return decodeAs<MutatingWebhookConfiguration>(json);
}
Result<ApiStatus> decodeApiStatus(std::string_view json) { return decodeAs<ApiStatus>(json); }

template <typename T>
Result<List<T>> decodeList(std::string_view json) {
  List<T> out;
  Status st = decodeDocument(json, [&out](JsonValue& root) {
    return forEachField(root, [&out](std::string_view key, JsonValue& value) -> Status {
      if (key == "items") return readJson(value, out.items);
      if (key != "metadata") return {};
      return forEachField(value, [&out](std::string_view k, JsonValue& meta) -> Status {
        if (k == "resourceVersion") return readJson(meta, out.resourceVersion);
        if (k == "continue") return readJson(meta, out.continueToken);
        if (k == "remainingItemCount") return readJson(meta, out.remainingItemCount);
        return {};
      });
    });
  });
  if (!st) return std::unexpected(std::move(st.error()));
  return out;
}

// The "type" field of a watch line.
static Status readWatchEventType(JsonValue& v, WatchEventType& out) {
  std::string name;
  if (Status s = readJson(v, name); !s) return s;
  for (WatchEventType type :
       {WatchEventType::kAdded, WatchEventType::kModified, WatchEventType::kDeleted,
        WatchEventType::kBookmark, WatchEventType::kError}) {
    if (watchEventTypeName(type) == name) {
      out = type;
      return {};
    }
  }
  return fail(ErrorCode::kInvalidArgument, concat({"unknown watch event type \"", name, "\""}));
}

// The object of an ERROR event is a metav1.Status; every other event carries a T.
template <typename T>
static Status readWatchObject(JsonValue& v, WatchEvent<T>& out) {
  if (out.type == WatchEventType::kError) return readJson(v, out.status);
  return readJson(v, out.object);
}

// Walks one watch line: reads "type" into `type` and calls onObject(object, typeSeen) for the
// "object" field; fails when the line has no type.
using ObjectFn = FunctionRef<Status(JsonValue& object, bool typeSeen)>;
static Status readWatchLine(std::string_view json, WatchEventType& type, ObjectFn onObject) {
  bool typeSeen = false;
  Status st = decodeDocument(json, [&](JsonValue& root) {
    return forEachField(root, [&](std::string_view key, JsonValue& value) -> Status {
      if (key == "type") {
        typeSeen = true;
        return readWatchEventType(value, type);
      }
      if (key != "object") return {};
      return onObject(value, typeSeen);
    });
  });
  if (!st) return st;
  if (!typeSeen) return fail(ErrorCode::kInvalidArgument, "missing watch event type", "type");
  return {};
}

template <typename T>
Result<WatchEvent<T>> decodeWatchEvent(std::string_view json) {
  WatchEvent<T> out;
  std::string deferred;  // the raw object when it precedes "type"
  Status st = readWatchLine(json, out.type, [&](JsonValue& object, bool typeSeen) -> Status {
    if (!typeSeen) return readRawJson(object, deferred);
    return readWatchObject(object, out);
  });
  if (!st) return std::unexpected(std::move(st.error()));
  if (!deferred.empty()) {
    st = decodeDocument(deferred, [&out](JsonValue& root) { return readWatchObject(root, out); });
    if (!st) return std::unexpected(st.error().under("object"));
  }
  return out;
}

Result<WatchEventHead> decodeWatchEventHead(std::string_view json) {
  WatchEventHead out;
  Status st = readWatchLine(json, out.type, [&out](JsonValue& object, bool) -> Status {
    return forEachField(object, [&out](std::string_view key, JsonValue& value) -> Status {
      if (key != "metadata") return {};
      return forEachField(value, [&out](std::string_view field, JsonValue& v) -> Status {
        if (field == "namespace") return readJson(v, out.namespace_);
        if (field == "resourceVersion") return readJson(v, out.resourceVersion);
        return {};
      });
    });
  });
  if (!st) return std::unexpected(std::move(st.error()));
  return out;
}

template Result<List<Pod>> decodeList<Pod>(std::string_view);
template Result<List<Node>> decodeList<Node>(std::string_view);
template Result<List<Namespace>> decodeList<Namespace>(std::string_view);
template Result<List<Deployment>> decodeList<Deployment>(std::string_view);
template Result<List<StatefulSet>> decodeList<StatefulSet>(std::string_view);
template Result<List<DaemonSet>> decodeList<DaemonSet>(std::string_view);
template Result<List<ReplicaSet>> decodeList<ReplicaSet>(std::string_view);
template Result<List<Job>> decodeList<Job>(std::string_view);
template Result<List<CronJob>> decodeList<CronJob>(std::string_view);
template Result<List<LimitRange>> decodeList<LimitRange>(std::string_view);
template Result<List<ResourceQuota>> decodeList<ResourceQuota>(std::string_view);
template Result<List<HorizontalPodAutoscaler>> decodeList<HorizontalPodAutoscaler>(
    std::string_view);
template Result<List<PodDisruptionBudget>> decodeList<PodDisruptionBudget>(std::string_view);
template Result<List<Event>> decodeList<Event>(std::string_view);
template Result<List<Lease>> decodeList<Lease>(std::string_view);

template Result<WatchEvent<Pod>> decodeWatchEvent<Pod>(std::string_view);
template Result<WatchEvent<Node>> decodeWatchEvent<Node>(std::string_view);
template Result<WatchEvent<Namespace>> decodeWatchEvent<Namespace>(std::string_view);
template Result<WatchEvent<Deployment>> decodeWatchEvent<Deployment>(std::string_view);
template Result<WatchEvent<StatefulSet>> decodeWatchEvent<StatefulSet>(std::string_view);
template Result<WatchEvent<DaemonSet>> decodeWatchEvent<DaemonSet>(std::string_view);
template Result<WatchEvent<ReplicaSet>> decodeWatchEvent<ReplicaSet>(std::string_view);
template Result<WatchEvent<Job>> decodeWatchEvent<Job>(std::string_view);
template Result<WatchEvent<CronJob>> decodeWatchEvent<CronJob>(std::string_view);
template Result<WatchEvent<LimitRange>> decodeWatchEvent<LimitRange>(std::string_view);
template Result<WatchEvent<ResourceQuota>> decodeWatchEvent<ResourceQuota>(std::string_view);
template Result<WatchEvent<HorizontalPodAutoscaler>> decodeWatchEvent<HorizontalPodAutoscaler>(
    std::string_view);
template Result<WatchEvent<PodDisruptionBudget>> decodeWatchEvent<PodDisruptionBudget>(
    std::string_view);
template Result<WatchEvent<Event>> decodeWatchEvent<Event>(std::string_view);
template Result<WatchEvent<Lease>> decodeWatchEvent<Lease>(std::string_view);

}  // namespace attune::api
