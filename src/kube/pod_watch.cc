#include "kube/pod_watch.h"

#include <type_traits>
#include <utility>

#include "api/k8s/decode.h"
#include "api/k8s/hpa.h"
#include "api/k8s/node.h"
#include "api/k8s/pdb.h"
#include "api/k8s/quota.h"
#include "api/k8s/watch_head.h"
#include "api/k8s/workloads.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/attune_policy.h"
#include "kube/rest_client.h"

namespace attune::kube {
namespace {

// api::decodeWatchEvent<T> for the kinds api/k8s decodes; streams of Attune's custom resources
// bring their own decoder (kube/wire.h).
template <typename T>
typename WatchStream<T>::Decode defaultDecode() {
  if constexpr (std::is_same_v<T, api::AttunePolicy> || std::is_same_v<T, api::AttuneDefaults> ||
                std::is_same_v<T, api::AttuneNamespaceDefaults>) {
    return [](std::string_view) -> Result<api::WatchEvent<T>> {
      return fail(ErrorCode::kInternal, "no decoder for this watch");
    };
  } else {
    return api::decodeWatchEvent<T>;
  }
}

}  // namespace

template <typename T>
WatchStream<T>::WatchStream(http::HttpTransportPtr transport, http::HttpRequest request,
                            Decode decode, NamespaceFilter keep)
    : transport_(std::move(transport)),
      request_(std::move(request)),
      decode_(decode ? std::move(decode) : defaultDecode<T>()),
      keep_(std::move(keep)),
      thread_([this](const std::stop_token& stop) { run(stop); }) {}

template <typename T>
WatchStream<T>::~WatchStream() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

template <typename T>
void WatchStream<T>::run(const std::stop_token& stop) {
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

template <typename T>
bool WatchStream<T>::onLine(std::string_view line) {
  if (keep_) {
    // A line whose head does not decode is decoded in full below, which reports it.
    auto head = api::decodeWatchEventHead(line);
    if (head && !head->namespace_.empty() && !keep_(head->namespace_) &&
        (head->type == api::WatchEventType::kAdded ||
         head->type == api::WatchEventType::kModified ||
         head->type == api::WatchEventType::kDeleted)) {
      std::lock_guard lock(mutex_);
      pending_.resourceVersion = std::move(head->resourceVersion);
      return true;
    }
  }
  auto event = decode_(line);
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

template <typename T>
void WatchStream<T>::finish(std::optional<Error> error) {
  std::lock_guard lock(mutex_);
  if (pending_.ended) return;
  pending_.ended = true;
  pending_.error = std::move(error);
  changed_.notify_all();
}

template <typename T>
typename WatchStream<T>::Drained WatchStream<T>::drain(Duration wait) {
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

template class WatchStream<api::Pod>;
template class WatchStream<api::Node>;
template class WatchStream<api::Deployment>;
template class WatchStream<api::StatefulSet>;
template class WatchStream<api::DaemonSet>;
template class WatchStream<api::ReplicaSet>;
template class WatchStream<api::Job>;
template class WatchStream<api::CronJob>;
template class WatchStream<api::LimitRange>;
template class WatchStream<api::ResourceQuota>;
template class WatchStream<api::HorizontalPodAutoscaler>;
template class WatchStream<api::PodDisruptionBudget>;
template class WatchStream<api::AttunePolicy>;
template class WatchStream<api::AttuneDefaults>;
template class WatchStream<api::AttuneNamespaceDefaults>;

}  // namespace attune::kube
