// ApiServer::watch: watch streams of every served resource, read from the WatchLog. Each stream
// is one connection thread that waits on the SimHost for changes (every tick, every write and a
// heartbeat wake it) and sends the events of its resource after the resourceVersion it has
// reached, one JSON object per line, in resourceVersion order.
#include <charconv>

#include "api/k8s/encode_objects.h"
#include "sim/serve/api_server.h"
#include "sim/serve/status_response.h"

namespace attune::sim::serve {
namespace {

// Wall time without any event after which a stream that allows bookmarks gets one.
constexpr Duration kBookmarkInterval = std::chrono::seconds(10);

bool truthy(std::string_view value) { return value == "true" || value == "1"; }

std::string goneEvent(std::string message) {
  return api::encodeWatchEventJson(
             api::WatchEventType::kError,
             api::encodeStatusJson(api::ApiStatus{"Failure", std::move(message), "Expired", 410})) +
         "\n";
}

std::string bookmarkEvent(const ResourceInfo& info, std::uint64_t resourceVersion) {
  const std::string object = R"({"kind":")" + std::string(info.kind) + R"(","apiVersion":")" +
                             info.apiVersion() + R"(","metadata":{"resourceVersion":")" +
                             std::to_string(resourceVersion) + R"("}})";
  return api::encodeWatchEventJson(api::WatchEventType::kBookmark, object) + "\n";
}

}  // namespace

HttpResponse ApiServer::goneStream(std::string message) {
  HttpResponse response;
  response.stream = [line = goneEvent(std::move(message))](ChunkSink& sink) { sink.write(line); };
  return response;
}

HttpResponse ApiServer::watch(const HttpRequest& request, const ResourceRequest& r,
                              const api::LabelSelector& labels,
                              const std::vector<FieldRequirement>& fields, bool dropEarly) {
  const std::string_view from = request.param("resourceVersion");
  // No resourceVersion (or "0"): the current objects as ADDED events first, as the API server
  // does, then the changes after that list.
  std::string initial;
  std::uint64_t cursor = 0;
  if (from.empty() || from == "0") {
    auto listed = host_.inspect([&](Simulation& s) -> Result<std::uint64_t> {
      auto items = listItems(s, opaque_, r, labels, fields, encoded_);
      if (!items) return std::unexpected(items.error());
      for (const KeyedItem& item : *items) {
        initial += api::encodeWatchEventJson(api::WatchEventType::kAdded, item.json);
        initial += '\n';
      }
      return s.state().versioner().current();
    });
    if (!listed) return errorResponse(listed.error(), &r);
    cursor = *listed;
  } else {
    auto parsed = parseResourceVersion(from);
    if (!parsed) return errorResponse(parsed.error(), &r);
    cursor = *parsed;
  }
  std::int64_t timeoutSeconds = 0;
  if (auto t = request.param("timeoutSeconds"); !t.empty()) {
    std::from_chars(t.data(), t.data() + t.size(), timeoutSeconds);
  }
  HttpResponse response;
  response.stream = [this, info = r.info, ns = r.ns, labels, fields, cursor, dropEarly,
                     initial = std::move(initial), timeoutSeconds,
                     bookmarks =
                         truthy(request.param("allowWatchBookmarks"))](ChunkSink& sink) mutable {
    const std::string resource = info->qualifiedName();
    const Time deadline = timeoutSeconds > 0
                              ? host_.wall().now() + std::chrono::seconds(timeoutSeconds)
                              : Time::max();
    std::string lines = std::move(initial);
    Time lastSent = host_.wall().now();
    std::uint64_t seen = host_.generation(resource);
    while (true) {
      const bool known = host_.inspect([&](Simulation&) {
        const bool kept = log_.forEachAfter(cursor, [&](const LoggedEvent& e) {
          if (e.resource != resource || (!ns.empty() && e.ns != ns) ||
              !api::selectorMatches(labels, e.labels) || !fieldsMatch(fields, e.json)) {
            return;
          }
          lines += api::encodeWatchEventJson(e.type, e.json);
          lines += '\n';
        });
        // Later events advance the resume point even when filtered out.
        if (kept) cursor = std::max(cursor, log_.latest());
        return kept;
      });
      if (!known) {
        sink.write(lines + goneEvent("too old resource version: " + std::to_string(cursor)));
        return;
      }
      const Time now = host_.wall().now();
      const bool ending = sink.closing() || host_.stopped() || now >= deadline;
      if (lines.empty() && bookmarks && (ending || now - lastSent >= kBookmarkInterval)) {
        lines = bookmarkEvent(*info, cursor);
      }
      if (!lines.empty()) {
        if (!sink.write(lines)) return;
        lines.clear();
        lastSent = now;
      }
      if (ending || dropEarly) return;
      seen = host_.waitForChange(resource, seen);
    }
  };
  return response;
}

}  // namespace attune::sim::serve
