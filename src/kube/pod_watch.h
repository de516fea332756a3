// One watch stream (GET ...?watch=1) read by a background thread into a queue that the owner
// drains: how HttpClusterApi's watches (watchPods and the generic ClusterApi::watch of the other
// kinds) turn a long-lived stream into pull-style batches.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "api/k8s/meta.h"
#include "api/k8s/pod.h"
#include "core/error.h"
#include "core/time.h"
#include "http/http_client.h"

namespace attune::kube {

// Thread-safe between the reader thread and one owner thread. Instantiated (in pod_watch.cc) for
// every kind HttpClusterApi watches.
template <typename T>
class WatchStream {
 public:
  // Decodes one line of the stream.
  using Decode = std::function<Result<api::WatchEvent<T>>(std::string_view)>;
  // Whether the events of objects in a namespace are wanted (a sharded controller's owned
  // namespaces).
  using NamespaceFilter = std::function<bool(std::string_view)>;

  // What the stream has delivered since the last drain.
  struct Drained {
    std::vector<api::WatchEvent<T>> events;  // ADDED, MODIFIED, DELETED, oldest first
    std::string resourceVersion;  // of the last event or bookmark; empty when none arrived
    std::optional<Error> error;   // set once, with the stream ended, after the events before it
    bool ended = false;           // the stream is over (server closed it, or an error)
  };

  // Starts reading `request` through `transport` (owned; used only by the reader thread).
  // Lines are decoded with `decode` (api::decodeWatchEvent<T> when not given); bookmarks only
  // advance the resourceVersion; an ERROR event ends the stream with statusError of its Status
  // (410 → kConflict, field "resourceVersion"); a non-2xx response ends it with statusError; a
  // line that does not decode ends it with that kInvalidArgument error.
  // With `keep`, an ADDED, MODIFIED or DELETED event whose object's namespace is not empty and
  // not kept is passed over after reading its head alone (api::decodeWatchEventHead): it only
  // advances the resourceVersion, as a bookmark does. Every other line is decoded in full.
  WatchStream(http::HttpTransportPtr transport, http::HttpRequest request, Decode decode = {},
              NamespaceFilter keep = {});
  // Stops the stream and joins the reader thread.
  ~WatchStream();
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // Takes everything delivered so far. When nothing is queued and the stream is still open it
  // first waits up to `wait` for an event or the end of the stream (zero: no wait).
  Drained drain(Duration wait);

 private:
  void run(const std::stop_token& stop);
  bool onLine(std::string_view line);
  void finish(std::optional<Error> error);

  http::HttpTransportPtr transport_;
  http::HttpRequest request_;
  Decode decode_;
  NamespaceFilter keep_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Drained pending_;      // guarded by mutex_
  std::jthread thread_;  // last: started after everything it uses
};

using PodWatchStream = WatchStream<api::Pod>;

}  // namespace attune::kube
