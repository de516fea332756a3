// ApiServer::watch: pod watch streams. Each stream is one connection thread that waits on the
// SimHost for changes (every tick and every write wakes it) and sends the pod events after the
// resourceVersion it has reached, one JSON object per line.
#include <charconv>

#include "api/k8s/encode_objects.h"
#include "sim/serve/api_server.h"
#include "sim/serve/status_response.h"

namespace attune::sim::serve {

HttpResponse ApiServer::watch(const HttpRequest& request, const ResourceRequest& r,
                              const api::LabelSelector& labels,
                              const std::vector<FieldRequirement>& fields) {
  if (r.info->plural != "pods") {
    return status(405, "watch is served for pods only", {}, "MethodNotAllowed");
  }
  const api::ListOptions options{r.ns, labels};
  std::string from(request.param("resourceVersion"));
  // No resourceVersion (or "0"): the current pods as ADDED events first, as the API server
  // does, then the changes after the list.
  std::vector<std::string> initial;
  if (from.empty() || from == "0") {
    from = host_.inspect([&](Simulation& s) {
      auto list = s.api().listPods(options);
      for (const api::Pod& pod : list->items) {
        std::string object = api::encodeObjectJson(pod);
        if (fieldsMatch(fields, object)) {
          initial.push_back(api::encodeWatchEventJson(api::WatchEventType::kAdded, object));
        }
      }
      return list->resourceVersion;
    });
  } else {
    auto checked = host_.inspect([&](Simulation& s) { return s.api().watchPods(options, from); });
    if (!checked) return errorResponse(checked.error(), &r);
  }
  std::int64_t timeoutSeconds = 0;
  if (auto t = request.param("timeoutSeconds"); !t.empty()) {
    std::from_chars(t.data(), t.data() + t.size(), timeoutSeconds);
  }
  HttpResponse response;
  response.stream = [this, options, fields, from, initial = std::move(initial),
                     timeoutSeconds](ChunkSink& sink) {
    const Time deadline = timeoutSeconds > 0
                              ? host_.wall().now() + std::chrono::seconds(timeoutSeconds)
                              : Time::max();
    for (const std::string& line : initial) {
      if (!sink.write(line + "\n")) return;
    }
    std::string rv = from;
    std::uint64_t seen = host_.generation();
    while (!sink.closing() && !host_.stopped() && host_.wall().now() < deadline) {
      auto batch = host_.inspect([&](Simulation& s) { return s.api().watchPods(options, rv); });
      if (!batch) return;
      std::string lines;
      for (const auto& event : batch->events) {
        std::string object = api::encodeObjectJson(event.object);
        if (!fieldsMatch(fields, object)) continue;
        lines += api::encodeWatchEventJson(event.type, object);
        lines += '\n';
      }
      rv = batch->resourceVersion;
      if (!lines.empty() && !sink.write(lines)) return;
      seen = host_.waitForChange(seen);
    }
  };
  return response;
}

}  // namespace attune::sim::serve
