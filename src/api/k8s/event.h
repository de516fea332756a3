// Events: Attune reads core/v1 and events.k8s.io/v1 Events (both decode into one Event) and
// writes core/v1 Events about the pods it resizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/k8s/meta.h"

namespace attune::api {

struct EventSeries {
  std::int32_t count = 0;
  std::optional<Time> lastObservedTime;  // MicroTime
  bool operator==(const EventSeries&) const = default;
};

// One Event in core/v1 terms. Decoding an events.k8s.io/v1 Event maps regarding →
// involvedObject, note → message, reportingController → reportingComponent, and the
// deprecated* fields to their core/v1 names.
struct Event {
  ObjectMeta metadata;
  ObjectReference involvedObject;
  std::optional<ObjectReference> related;
  std::string reason;
  std::string message;
  std::string type;  // Normal or Warning
  std::string action;
  std::string sourceComponent;  // source.component
  std::string sourceHost;       // source.host
  std::optional<Time> firstTimestamp;
  std::optional<Time> lastTimestamp;
  std::optional<Time> eventTime;  // MicroTime
  std::int32_t count = 0;
  std::optional<EventSeries> series;
  std::string reportingComponent;
  std::string reportingInstance;

  bool operator==(const Event&) const = default;
};

}  // namespace attune::api
