#include "kube/pod_watch.h"

#include <utility>

#include "api/k8s/decode.h"
#include "kube/rest_client.h"

namespace attune::kube {

PodWatchStream::PodWatchStream(http::HttpTransportPtr transport, http::HttpRequest request)
    : transport_(std::move(transport)),
      request_(std::move(request)),
      thread_([this](const std::stop_token& stop) { run(stop); }) {}

PodWatchStream::~PodWatchStream() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void PodWatchStream::run(const std::stop_token& stop) {
  auto response = transport_->stream(
      request_, [this](std::string_view line) { return onLine(line); }, stop);
  if (!response) {
    finish(response.error());
  } else if (response->status < 200 || response->status >= 300) {
    finish(statusError(response->status, response->body, "watch " + request_.url));
  } else {
    finish(std::nullopt);
  }
}

bool PodWatchStream::onLine(std::string_view line) {
  auto event = api::decodeWatchEvent<api::Pod>(line);
  if (!event) {
    Error error = event.error();
    error.message = "watch event does not decode: " + error.message;
    finish(std::move(error));
    return false;
  }
  if (event->type == api::WatchEventType::kError) {
    const api::ApiStatus& s = event->status;
    const long code = s.code != 0 ? s.code : 500;
    finish(statusError(code, s.message, "", "watch " + request_.url));
    return false;
  }
  std::lock_guard lock(mutex_);
  pending_.resourceVersion = event->object.metadata.resourceVersion;
  if (event->type != api::WatchEventType::kBookmark) pending_.events.push_back(std::move(*event));
  changed_.notify_all();
  return true;
}

void PodWatchStream::finish(std::optional<Error> error) {
  std::lock_guard lock(mutex_);
  if (pending_.ended) return;
  pending_.ended = true;
  pending_.error = std::move(error);
  changed_.notify_all();
}

PodWatchStream::Drained PodWatchStream::drain(Duration wait) {
  std::unique_lock lock(mutex_);
  if (pending_.events.empty() && !pending_.ended && wait > Duration::zero()) {
    changed_.wait_for(lock, wait, [this] { return !pending_.events.empty() || pending_.ended; });
  }
  Drained out;
  out.events = std::move(pending_.events);
  pending_.events.clear();
  out.resourceVersion = std::exchange(pending_.resourceVersion, std::string());
  out.ended = pending_.ended;
  out.error = pending_.error;
  return out;
}

}  // namespace attune::kube
