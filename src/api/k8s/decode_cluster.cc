// Decoders of Node, Namespace, LimitRange, ResourceQuota, Event, Lease, Secret and Eviction.
#include "api/k8s/base64.h"
#include "api/k8s/decoders.h"

namespace attune::api {

static Status readJson(JsonValue& v, Taint& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "key") return readJson(value, out.key);
    if (key == "value") return readJson(value, out.value);
    if (key == "effect") return readJson(value, out.effect);
    return {};
  });
}

static Status readJson(JsonValue& v, NodeSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "unschedulable") return readJson(value, out.unschedulable);
    if (key == "taints") return readJson(value, out.taints);
    if (key == "providerID") return readJson(value, out.providerID);
    return {};
  });
}

static Status readJson(JsonValue& v, NodeStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "capacity") return readJson(value, out.capacity);
    if (key == "allocatable") return readJson(value, out.allocatable);
    if (key == "conditions") return readJson(value, out.conditions);
    if (key == "nodeInfo") {
      return forEachField(value, [&out](std::string_view k, JsonValue& info) -> Status {
        if (k == "kubeletVersion") return readJson(info, out.kubeletVersion);
        return {};
      });
    }
    return {};
  });
}

Status readJson(JsonValue& v, Node& out) { return readObjectParts(v, out); }

Status readJson(JsonValue& v, Namespace& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "status") {
      return forEachField(value, [&out](std::string_view k, JsonValue& status) -> Status {
        if (k == "phase") return readJson(status, out.phase);
        return {};
      });
    }
    return {};
  });
}

static Status readJson(JsonValue& v, LimitRangeItem& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "type") return readJson(value, out.type);
    if (key == "min") return readJson(value, out.min);
    if (key == "max") return readJson(value, out.max);
    if (key == "default") return readJson(value, out.default_);
    if (key == "defaultRequest") return readJson(value, out.defaultRequest);
    if (key == "maxLimitRequestRatio") return readJson(value, out.maxLimitRequestRatio);
    return {};
  });
}

Status readJson(JsonValue& v, LimitRange& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "spec") {
      return forEachField(value, [&out](std::string_view k, JsonValue& spec) -> Status {
        if (k == "limits") return readJson(spec, out.limits);
        return {};
      });
    }
    return {};
  });
}

Status readJson(JsonValue& v, ResourceQuota& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "spec") {
      return forEachField(value, [&out](std::string_view k, JsonValue& spec) -> Status {
        if (k == "hard") return readJson(spec, out.specHard);
        if (k == "scopes") return readJson(spec, out.scopes);
        return {};
      });
    }
    if (key == "status") {
      return forEachField(value, [&out](std::string_view k, JsonValue& status) -> Status {
        if (k == "hard") return readJson(status, out.hard);
        if (k == "used") return readJson(status, out.used);
        return {};
      });
    }
    return {};
  });
}

static Status readJson(JsonValue& v, EventSeries& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "count") return readJson(value, out.count);
    if (key == "lastObservedTime") return readJson(value, out.lastObservedTime);
    return {};
  });
}

// source (core/v1) or deprecatedSource (events.k8s.io/v1).
static Status readEventSource(JsonValue& v, Event& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "component") return readJson(value, out.sourceComponent);
    if (key == "host") return readJson(value, out.sourceHost);
    return {};
  });
}

// Field names of core/v1 first, then their events.k8s.io/v1 counterparts.
Status readJson(JsonValue& v, Event& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "involvedObject" || key == "regarding") return readJson(value, out.involvedObject);
    if (key == "related") return readJson(value, out.related);
    if (key == "reason") return readJson(value, out.reason);
    if (key == "message" || key == "note") return readJson(value, out.message);
    if (key == "type") return readJson(value, out.type);
    if (key == "action") return readJson(value, out.action);
    if (key == "source" || key == "deprecatedSource") return readEventSource(value, out);
    if (key == "firstTimestamp" || key == "deprecatedFirstTimestamp") {
      return readJson(value, out.firstTimestamp);
    }
    if (key == "lastTimestamp" || key == "deprecatedLastTimestamp") {
      return readJson(value, out.lastTimestamp);
    }
    if (key == "eventTime") return readJson(value, out.eventTime);
    if (key == "count" || key == "deprecatedCount") return readJson(value, out.count);
    if (key == "series") return readJson(value, out.series);
    if (key == "reportingComponent" || key == "reportingController") {
      return readJson(value, out.reportingComponent);
    }
    if (key == "reportingInstance") return readJson(value, out.reportingInstance);
    return {};
  });
}

static Status readJson(JsonValue& v, LeaseSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "holderIdentity") return readJson(value, out.holderIdentity);
    if (key == "leaseDurationSeconds") return readJson(value, out.leaseDurationSeconds);
    if (key == "acquireTime") return readJson(value, out.acquireTime);
    if (key == "renewTime") return readJson(value, out.renewTime);
    if (key == "leaseTransitions") return readJson(value, out.leaseTransitions);
    return {};
  });
}

Status readJson(JsonValue& v, Lease& out) { return readObjectParts(v, out); }

Status readJson(JsonValue& v, Secret& out) {
  StringMap plain;  // stringData wins over data, whatever the order of the two fields
  Status st = forEachField(v, [&out, &plain](std::string_view key, JsonValue& value) -> Status {
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "type") return readJson(value, out.type);
    if (key == "stringData") return readJson(value, plain);
    if (key == "data") {
      return forEachField(value, [&out](std::string_view name, JsonValue& encoded) -> Status {
        std::string text;
        if (Status read = readJson(encoded, text); !read) return read;
        std::optional<std::string> bytes = base64Decode(text);
        if (!bytes) return fail(ErrorCode::kInvalidArgument, "is not valid base64");
        out.data.insert_or_assign(std::string(name), std::move(*bytes));
        return {};
      });
    }
    return {};
  });
  if (!st) return st;
  for (auto& [name, value] : plain) out.data.insert_or_assign(name, std::move(value));
  return {};
}

static Status readJson(JsonValue& v, DeleteOptions& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "gracePeriodSeconds") return readJson(value, out.gracePeriodSeconds);
    if (key == "dryRun") return readJson(value, out.dryRun);
    if (key == "preconditions") {
      return forEachField(value, [&out](std::string_view k, JsonValue& pre) -> Status {
        if (k == "uid") return readJson(pre, out.preconditionUid);
        if (k == "resourceVersion") return readJson(pre, out.preconditionResourceVersion);
        return {};
      });
    }
    return {};
  });
}

Status readJson(JsonValue& v, Eviction& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "metadata") return readJson(value, out.metadata);
    if (key == "deleteOptions") return readJson(value, out.deleteOptions);
    return {};
  });
}

}  // namespace attune::api
