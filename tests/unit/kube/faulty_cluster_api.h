// A ClusterApi for informer tests: forwards every call to another ClusterApi (a sim::Cluster),
// counts a few of them, and injects the faults an informer must survive — a failed LIST, a failed
// watch, a watch that loses events or lags behind.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "api/cluster_api.h"
#include "api/forwarding_cluster_api.h"

namespace attune::kube::testing {

class FaultyClusterApi final : public api::ForwardingClusterApi {
 public:
  explicit FaultyClusterApi(api::ClusterApi& inner) : ForwardingClusterApi(inner) {}

  // One-shot faults: the next listPods / watchPods call fails with this error.
  std::optional<Error> listPodsError;
  std::optional<Error> watchError;
  // Every watch batch arrives without its events (the resourceVersion still advances): a
  // watch that silently lost changes.
  bool dropWatchEvents = false;
  // At most this many events per watch batch, resuming after the last one delivered: a watch
  // that lags behind the server.
  std::optional<std::size_t> watchLimit;

  // listPodsPage serves pages cut from inner().listPods(), the continue token being the offset
  // of the page. When goneOnContinue is set, the next page asked for with a continue token
  // fails with 410 Gone (kConflict, field "resourceVersion") and the flag clears: an expired
  // token. afterPage runs after each page served (changes made between two pages).
  bool goneOnContinue = false;
  std::function<void()> afterPage;
  int pageCalls = 0;

  // The Deployment watch (ClusterApi::watch(Watched<Deployment>)): this function when set,
  // otherwise inner()'s.
  std::function<Result<api::WatchBatch<api::Deployment>>(const api::ListOptions&, std::string_view)>
      deploymentWatch;
  int deploymentWatchCalls = 0;

  int listPodsCalls = 0;  // unpaged LISTs and first pages
  int watchCalls = 0;
  int listDeploymentsCalls = 0;
  int getPodCalls = 0;
  int versionCalls = 0;

  Result<api::ServerVersion> getServerVersion() override {
    ++versionCalls;
    return inner().getServerVersion();
  }
  Result<api::Pod> getPod(std::string_view ns, std::string_view name) override {
    ++getPodCalls;
    return inner().getPod(ns, name);
  }
  Result<api::List<api::Pod>> listPods(const api::ListOptions& options) override {
    ++listPodsCalls;
    if (listPodsError) return std::unexpected(*std::exchange(listPodsError, std::nullopt));
    return inner().listPods(options);
  }
  Result<api::List<api::Pod>> listPodsPage(const api::ListOptions& options, std::size_t limit,
                                           std::string_view continueToken) override {
    ++pageCalls;
    if (continueToken.empty()) {
      ++listPodsCalls;
      if (listPodsError) return std::unexpected(*std::exchange(listPodsError, std::nullopt));
    } else if (std::exchange(goneOnContinue, false)) {
      return fail(ErrorCode::kConflict,
                  "The provided continue parameter is too old to display a consistent list "
                  "result.",
                  "resourceVersion");
    }
    auto all = inner().listPods(options);
    if (!all) return all;
    const std::size_t offset = continueToken.empty() ? 0 : std::stoul(std::string(continueToken));
    const std::size_t end =
        limit == 0 ? all->items.size() : std::min(all->items.size(), offset + limit);
    api::List<api::Pod> page;
    page.resourceVersion = all->resourceVersion;
    for (std::size_t i = offset; i < end; ++i) page.items.push_back(std::move(all->items[i]));
    if (end < all->items.size()) page.continueToken = std::to_string(end);
    if (afterPage) afterPage();
    return page;
  }
  Result<api::WatchBatch<api::Pod>> watchPods(const api::ListOptions& options,
                                              std::string_view resourceVersion) override {
    ++watchCalls;
    if (watchError) return std::unexpected(*std::exchange(watchError, std::nullopt));
    auto batch = inner().watchPods(options, resourceVersion);
    if (!batch) return batch;
    if (dropWatchEvents) batch->events.clear();
    if (watchLimit && batch->events.size() > *watchLimit) {
      batch->events.resize(*watchLimit);
      batch->resourceVersion = batch->events.empty()
                                   ? std::string(resourceVersion)
                                   : batch->events.back().object.metadata.resourceVersion;
    }
    return batch;
  }
  using ForwardingClusterApi::watch;
  Result<api::WatchBatch<api::Deployment>> watch(api::Watched<api::Deployment> kind,
                                                 const api::ListOptions& options,
                                                 std::string_view resourceVersion) override {
    ++deploymentWatchCalls;
    if (deploymentWatch) return deploymentWatch(options, resourceVersion);
    return ForwardingClusterApi::watch(kind, options, resourceVersion);
  }
  Result<api::List<api::Deployment>> listDeployments(const api::ListOptions& options) override {
    ++listDeploymentsCalls;
    return inner().listDeployments(options);
  }
};

}  // namespace attune::kube::testing
