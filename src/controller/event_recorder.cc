#include "controller/event_recorder.h"

#include <iterator>
#include <utility>

namespace attune::controller {

api::ObjectReference referenceTo(std::string_view apiVersion, std::string_view kind,
                                 const api::ObjectMeta& meta) {
  return api::ObjectReference{.apiVersion = std::string(apiVersion),
                              .kind = std::string(kind),
                              .namespace_ = meta.namespace_,
                              .name = meta.name,
                              .uid = meta.uid,
                              .resourceVersion = {},
                              .fieldPath = {}};
}

api::ObjectReference referenceToWorkload(const api::WorkloadRef& ref, const api::ObjectMeta& meta) {
  const auto kind = ref.workloadKind();
  const bool batch = kind == api::WorkloadKind::kJob || kind == api::WorkloadKind::kCronJob;
  return referenceTo(batch ? "batch/v1" : "apps/v1", ref.kind, meta);
}

Result<api::Event> EventRecorder::record(const api::ObjectReference& object, std::string_view type,
                                         std::string_view reason, std::string_view message) {
  const Time now = clock_.now();
  Key key{object.kind,       object.namespace_,   object.name,         object.uid,
          std::string(type), std::string(reason), std::string(message)};
  if (!hold_ || !hold_(reason)) return write(std::move(key), object, now, now, 1);
  if (auto it = queued_.find(key); it != queued_.end()) {
    it->second.last = now;
    ++it->second.times;
  } else {
    if (queued_.size() >= kHeldEvents) {
      (void)writeOldest();  // never dropped: the oldest is written now
    }
    it = queued_.emplace(std::move(key), Queued{object, now, now, 1, queue_.end()}).first;
    queue_.push_back(&it->first);
    it->second.order = std::prev(queue_.end());
  }
  api::Event event;
  event.involvedObject = object;
  event.type = std::string(type);
  event.reason = std::string(reason);
  event.message = std::string(message);
  event.firstTimestamp = now;
  event.lastTimestamp = now;
  event.count = 1;
  return event;
}

EventRecorder::Flushed EventRecorder::flush(std::size_t limit, Duration slice) {
  Flushed flushed;
  const Time start = clock_.now();
  while (!queue_.empty() && flushed.sent < limit && clock_.now() - start < slice) {
    ++flushed.sent;
    if (!writeOldest()) ++flushed.failed;
  }
  return flushed;
}

Result<api::Event> EventRecorder::writeOldest() {
  auto node = queued_.extract(*queue_.front());
  queue_.pop_front();
  const Queued& queued = node.mapped();
  return write(std::move(node.key()), queued.object, queued.first, queued.last, queued.times);
}

Result<api::Event> EventRecorder::write(Key key, const api::ObjectReference& object, Time first,
                                        Time last, std::int32_t times) {
  const std::string& reason = std::get<5>(key);
  if (auto it = written_.find(key); it != written_.end()) {
    api::Event bumped = it->second.event;
    bumped.count += times;
    bumped.lastTimestamp = last;
    auto stored = api_.updateEvent(bumped);
    if (stored) {
      it->second.event = *stored;
      touch(it);
      countsByReason_[reason] += times;
      return stored;
    }
    if (stored.error().code != ErrorCode::kNotFound &&
        stored.error().code != ErrorCode::kConflict) {
      return stored;
    }
    recency_.erase(it->second.recency);  // gone or changed elsewhere: start a new one
    written_.erase(it);
  }
  api::Event event;
  event.metadata.namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
  event.metadata.generateName = object.name + ".";
  event.involvedObject = object;
  event.type = std::get<4>(key);
  event.reason = reason;
  event.message = std::get<6>(key);
  event.sourceComponent = std::string(kEventComponent);
  event.reportingComponent = std::string(kEventComponent);
  event.reportingInstance = reportingInstance_;
  event.firstTimestamp = first;
  event.lastTimestamp = last;
  event.count = times;
  auto stored = api_.createEvent(event);
  if (!stored) return stored;
  countsByReason_[reason] += times;
  const auto it = written_.emplace(std::move(key), Written{*stored, recency_.end()}).first;
  recency_.push_front(&it->first);
  it->second.recency = recency_.begin();
  touch(it);
  return stored;
}

void EventRecorder::touch(std::map<Key, Written>::iterator it) {
  recency_.splice(recency_.begin(), recency_, it->second.recency);
  while (written_.size() > remembered_) {
    written_.erase(*recency_.back());
    recency_.pop_back();
  }
}

}  // namespace attune::controller
