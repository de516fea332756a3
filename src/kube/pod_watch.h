// One pod watch stream (GET ...?watch=1) read by a background thread into a queue that the
// owner drains: how HttpClusterApi::watchPods turns a long-lived stream into pull-style batches.
#pragma once

#include <condition_variable>
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

// Thread-safe between the reader thread and one owner thread.
class PodWatchStream {
 public:
  // What the stream has delivered since the last drain.
  struct Drained {
    std::vector<api::WatchEvent<api::Pod>> events;  // ADDED, MODIFIED, DELETED, oldest first
    std::string resourceVersion;  // of the last event or bookmark; empty when none arrived
    std::optional<Error> error;   // set once, with the stream ended, after the events before it
    bool ended = false;           // the stream is over (server closed it, or an error)
  };

  // Starts reading `request` through `transport` (owned; used only by the reader thread).
  // Lines are decoded with api::decodeWatchEvent<Pod>; bookmarks only advance the
  // resourceVersion; an ERROR event ends the stream with statusError of its Status (410 →
  // kConflict, field "resourceVersion"); a non-2xx response ends it with statusError; a line that
  // does not decode ends it with that kInvalidArgument error.
  PodWatchStream(http::HttpTransportPtr transport, http::HttpRequest request);
  // Stops the stream and joins the reader thread.
  ~PodWatchStream();
  PodWatchStream(const PodWatchStream&) = delete;
  PodWatchStream& operator=(const PodWatchStream&) = delete;

  // Takes everything delivered so far. When nothing is queued and the stream is still open it
  // first waits up to `wait` for an event or the end of the stream (zero: no wait).
  Drained drain(Duration wait);

 private:
  void run(const std::stop_token& stop);
  bool onLine(std::string_view line);
  void finish(std::optional<Error> error);

  http::HttpTransportPtr transport_;
  http::HttpRequest request_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Drained pending_;      // guarded by mutex_
  std::jthread thread_;  // last: started after everything it uses
};

}  // namespace attune::kube
