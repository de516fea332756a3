#include "sim/serve/watch_log.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <iterator>

namespace attune::sim::serve {

WatchLog::WatchLog(std::size_t capacity, std::uint64_t floor)
    : capacity_(std::max<std::size_t>(capacity, 1)), floor_(floor) {}

void WatchLog::append(LoggedEvent event) {
  assert(event.resourceVersion > floor_);
  // A write made by an observer of another write (a quota status after a pod write) is
  // reported first: keep resourceVersion order.
  auto at = events_.end();
  while (at != events_.begin() && std::prev(at)->resourceVersion > event.resourceVersion) --at;
  if (onAppend) onAppend(event.resource);
  events_.insert(at, std::move(event));
  while (events_.size() > capacity_) {
    floor_ = events_.front().resourceVersion;
    events_.pop_front();
  }
}

std::deque<LoggedEvent>::const_iterator WatchLog::firstAfter(std::uint64_t after) const {
  return std::partition_point(events_.begin(), events_.end(),
                              [&](const LoggedEvent& e) { return e.resourceVersion <= after; });
}

std::optional<bool> WatchLog::changedSince(std::string_view resource, std::uint64_t after) const {
  if (after < floor_) return std::nullopt;
  for (auto it = firstAfter(after); it != events_.end(); ++it) {
    if (it->resource == resource) return true;
  }
  return false;
}

Result<std::uint64_t> parseResourceVersion(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return fail(ErrorCode::kInvalidArgument,
                "invalid resourceVersion \"" + std::string(text) + "\"", "resourceVersion");
  }
  return value;
}

}  // namespace attune::sim::serve
