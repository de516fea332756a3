#include "kube/http_cluster_api.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "api/policy/policy_codec.h"
#include "http/http_server.h"
#include "support/pod_json.h"
#include "support/prometheus/local_http_server.h"
#include "unit/http/raw_request.h"

namespace attune::kube {
namespace {

using attune::testing::LocalHttpServer;
using attune::testing::parseRawRequest;
using attune::testing::RawRequest;
using Reply = LocalHttpServer::Reply;
using namespace std::chrono_literals;

const Time kStart = Time{} + std::chrono::hours(24 * 365 * 50);

std::string statusBody(int code, const std::string& reason, const std::string& message,
                       const std::string& field = {}) {
  nlohmann::json s = {{"kind", "Status"},   {"apiVersion", "v1"}, {"status", "Failure"},
                      {"message", message}, {"reason", reason},   {"code", code}};
  if (!field.empty()) s["details"] = {{"causes", {{{"field", field}, {"reason", "Invalid"}}}}};
  return s.dump();
}

std::string podJson(int index, const std::string& rv = "7") {
  auto pod = attune::testing::realisticPod(index);
  pod["metadata"]["resourceVersion"] = rv;
  return pod.dump();
}

std::string emptyList() { return R"({"metadata":{"resourceVersion":"1"},"items":[]})"; }

// A LocalHttpServer answering through `route` and an HttpClusterApi talking to it.
class ApiTest : public ::testing::Test {
 protected:
  void start(std::function<Reply(const RawRequest&)> route, HttpClusterApiOptions options = {}) {
    server_ = std::make_unique<LocalHttpServer>(
        [route = std::move(route)](const std::string& raw) -> std::optional<Reply> {
          const auto request = parseRawRequest(raw);
          if (request.target.find("hold%3D1") != std::string::npos) return std::nullopt;
          return route(request);
        });
    ClusterConfig config;
    config.server = server_->address();
    config.http.bearerToken = "s3cret";
    api_ = std::make_unique<HttpClusterApi>(config, clock_, options);
  }
  std::vector<RawRequest> requests() const {
    std::vector<RawRequest> out;
    for (const auto& raw : server_->requests()) out.push_back(parseRawRequest(raw));
    return out;
  }
  RawRequest last() const { return requests().back(); }

  SimulatedClock clock_{kStart};
  std::unique_ptr<LocalHttpServer> server_;
  std::unique_ptr<HttpClusterApi> api_;
};

TEST_F(ApiTest, GetsAPodWithCredentials) {
  start([](const RawRequest&) { return Reply{200, podJson(0, "42"), {}}; });
  auto pod = api_->getPod("team-0", "web");
  ASSERT_TRUE(pod.has_value()) << pod.error().toString();
  EXPECT_EQ(pod->metadata.resourceVersion, "42");
  EXPECT_EQ(pod->spec.containers.size(), 3u);
  const auto r = last();
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target, "/api/v1/namespaces/team-0/pods/web");
  EXPECT_EQ(r.header("Authorization"), "Bearer s3cret");
  EXPECT_EQ(r.header("Accept"), "application/json");
}

TEST_F(ApiTest, EveryKindHasItsPath) {
  start([](const RawRequest&) { return Reply{200, emptyList(), {}}; });
  const api::ListOptions ns{.namespace_ = "a"};
  const std::vector<std::pair<std::function<bool()>, std::string>> cases = {
      {[&] { return api_->listPods({}).has_value(); }, "/api/v1/pods"},
      {[&] { return api_->listPods(ns).has_value(); }, "/api/v1/namespaces/a/pods"},
      {[&] { return api_->listNodes(ns).has_value(); }, "/api/v1/nodes"},
      {[&] { return api_->listNamespaces(ns).has_value(); }, "/api/v1/namespaces"},
      {[&] { return api_->listDeployments(ns).has_value(); },
       "/apis/apps/v1/namespaces/a/deployments"},
      {[&] { return api_->listStatefulSets(ns).has_value(); },
       "/apis/apps/v1/namespaces/a/statefulsets"},
      {[&] { return api_->listDaemonSets(ns).has_value(); },
       "/apis/apps/v1/namespaces/a/daemonsets"},
      {[&] { return api_->listReplicaSets(ns).has_value(); },
       "/apis/apps/v1/namespaces/a/replicasets"},
      {[&] { return api_->listJobs(ns).has_value(); }, "/apis/batch/v1/namespaces/a/jobs"},
      {[&] { return api_->listCronJobs(ns).has_value(); }, "/apis/batch/v1/namespaces/a/cronjobs"},
      {[&] { return api_->listLimitRanges(ns).has_value(); }, "/api/v1/namespaces/a/limitranges"},
      {[&] { return api_->listResourceQuotas(ns).has_value(); },
       "/api/v1/namespaces/a/resourcequotas"},
      {[&] { return api_->listHpas(ns).has_value(); },
       "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers"},
      {[&] { return api_->listEvents(ns).has_value(); }, "/api/v1/namespaces/a/events"},
      {[&] { return api_->listAttunePolicies({}).has_value(); },
       "/apis/attune.io/v1alpha1/attunepolicies"},
      {[&] { return api_->listAttunePolicies(ns).has_value(); },
       "/apis/attune.io/v1alpha1/namespaces/a/attunepolicies"},
      // Cluster-scoped: the namespace of the options is not part of the path.
      {[&] { return api_->listAttuneDefaults(ns).has_value(); },
       "/apis/attune.io/v1alpha1/attunedefaults"},
      {[&] { return api_->listAttuneNamespaceDefaults({}).has_value(); },
       "/apis/attune.io/v1alpha1/attunenamespacedefaults"},
      {[&] { return api_->listAttuneNamespaceDefaults(ns).has_value(); },
       "/apis/attune.io/v1alpha1/namespaces/a/attunenamespacedefaults"},
  };
  for (const auto& [call, path] : cases) {
    EXPECT_TRUE(call()) << path;
    EXPECT_EQ(last().path(), path);
    EXPECT_EQ(last().query(), "limit=500");
  }
}

TEST_F(ApiTest, DefaultsObjectsDecodeAndBadOnesAreInternalErrors) {
  start([](const RawRequest& r) {
    if (r.path().ends_with("/attunedefaults/bad")) {
      return Reply{200,
                   R"({"apiVersion":"attune.io/v1alpha1","kind":"AttuneDefaults",)"
                   R"("metadata":{"name":"bad"},"spec":{"cpu":{"percentile":"high"}}})",
                   {}};
    }
    if (r.path().ends_with("/attunedefaults/d")) {
      return Reply{200,
                   R"({"apiVersion":"attune.io/v1alpha1","kind":"AttuneDefaults",)"
                   R"("metadata":{"name":"d","managedFields":[{}]},)"
                   R"("spec":{"updateStrategy":{"type":"Auto"}}})",
                   {}};
    }
    return Reply{200,
                 R"({"kind":"AttuneNamespaceDefaultsList","metadata":{"resourceVersion":"7"},)"
                 R"("items":[{"metadata":{"name":"n","namespace":"a"},)"
                 R"("spec":{"cpu":{"percentile":90}}}]})",
                 {}};
  });
  auto d = api_->getAttuneDefaults("d");
  ASSERT_TRUE(d) << d.error().toString();
  EXPECT_EQ(last().path(), "/apis/attune.io/v1alpha1/attunedefaults/d");
  EXPECT_EQ(d->scope, api::DefaultsScope::kCluster);
  EXPECT_EQ(d->spec.updateStrategy.type, api::UpdateMode::kAuto);
  auto bad = api_->getAttuneDefaults("bad");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInternal);
  EXPECT_EQ(bad.error().field, "spec.cpu.percentile");
  auto list = api_->listAttuneNamespaceDefaults({.namespace_ = "a"});
  ASSERT_TRUE(list) << list.error().toString();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].scope, api::DefaultsScope::kNamespace);
  EXPECT_EQ(list->items[0].metadata.namespace_, "a");
  EXPECT_EQ(list->items[0].spec.cpu.percentile, 90);
  EXPECT_EQ(list->resourceVersion, "7");
}

TEST_F(ApiTest, ListsFollowContinueTokensAndMergePages) {
  start([](const RawRequest& r) {
    nlohmann::json page = {{"kind", "PodList"}, {"apiVersion", "v1"}};
    if (r.query().find("continue=") == std::string::npos) {
      page["metadata"] = {{"resourceVersion", "100"}, {"continue", "tok/1"}};
      page["items"] = {attune::testing::realisticPod(2), attune::testing::realisticPod(1)};
    } else {
      page["metadata"] = {{"resourceVersion", "100"}};
      page["items"] = {attune::testing::realisticPod(0)};
    }
    return Reply{200, page.dump(), {}};
  });
  HttpClusterApiOptions options;
  auto list = api_->listPods({.labelSelector = {.matchLabels = {{"app", "web"}},
                                                .matchExpressions = {{"tier", "In", {"a", "b"}}}}});
  ASSERT_TRUE(list.has_value()) << list.error().toString();
  EXPECT_EQ(list->resourceVersion, "100");
  EXPECT_TRUE(list->continueToken.empty());
  ASSERT_EQ(list->items.size(), 3u);
  for (size_t i = 1; i < list->items.size(); ++i) {
    const auto& a = list->items[i - 1].metadata;
    const auto& b = list->items[i].metadata;
    EXPECT_LE(std::tie(a.namespace_, a.name), std::tie(b.namespace_, b.name));
  }
  const auto sent = requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].query(), "limit=500&labelSelector=app%3Dweb%2Ctier%20in%20%28a%2Cb%29");
  EXPECT_EQ(sent[1].query(),
            "limit=500&labelSelector=app%3Dweb%2Ctier%20in%20%28a%2Cb%29&continue=tok%2F1");
}

TEST_F(ApiTest, ExpiredContinueTokenIsAConflictToRelistOn) {
  start([](const RawRequest& r) {
    if (r.query().find("continue=") == std::string::npos) {
      return Reply{200, R"({"metadata":{"resourceVersion":"5","continue":"old"},"items":[]})", {}};
    }
    return Reply{410, statusBody(410, "Expired", "The provided continue parameter is too old"), {}};
  });
  auto list = api_->listPods({});
  ASSERT_FALSE(list.has_value());
  EXPECT_EQ(list.error().code, ErrorCode::kConflict);
  EXPECT_EQ(list.error().field, "resourceVersion");
}

TEST_F(ApiTest, MapsErrorStatusesWithTheServersMessageAndField) {
  int code = 0;
  start([&code](const RawRequest&) {
    switch (code) {
      case 404:
        return Reply{404, statusBody(404, "NotFound", "pods \"web\" not found"), {}};
      case 409:
        return Reply{409, statusBody(409, "Conflict", "the object has been modified"), {}};
      case 422:
        return Reply{422,
                     statusBody(422, "Invalid", "Pod \"web\" is invalid",
                                "spec.containers[0].resources.requests.cpu"),
                     {}};
      default:
        return Reply{
            403, statusBody(403, "Forbidden", "pods \"web\" is forbidden: exceeded quota: q"), {}};
    }
  });
  code = 404;
  auto e = api_->getPod("a", "web").error();
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_EQ(e.message, "pods \"web\" not found");
  code = 409;
  EXPECT_EQ(api_->patchPodAnnotations("a", "web", {{"k", "v"}}, "3").error().code,
            ErrorCode::kConflict);
  code = 422;
  e = api_->patchPodAnnotations("a", "web", {{"k", "v"}}, "").error();
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(e.field, "spec.containers[0].resources.requests.cpu");
  code = 403;
  e = api_->getLease("a", "l").error();
  EXPECT_EQ(e.code, ErrorCode::kForbidden);
  EXPECT_EQ(e.message, "pods \"web\" is forbidden: exceeded quota: q");
  EXPECT_EQ(requests().size(), 4u);  // none of them retried
}

TEST_F(ApiTest, RetriesServerErrorsAndHonoursRetryAfter) {
  int calls = 0;
  start([&calls](const RawRequest&) {
    ++calls;
    if (calls == 1) return Reply{500, statusBody(500, "InternalError", "etcd hiccup"), {}};
    if (calls == 2) {
      return Reply{429, statusBody(429, "TooManyRequests", "slow down"), {{"Retry-After", "3"}}};
    }
    return Reply{200, podJson(0), {}};
  });
  auto pod = api_->getPod("a", "web");
  ASSERT_TRUE(pod.has_value()) << pod.error().toString();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(clock_.now(), kStart + 250ms + 3s);  // first backoff, then Retry-After
}

TEST_F(ApiTest, PatchesAnnotationsWithAResourceVersionPrecondition) {
  start([](const RawRequest&) { return Reply{200, podJson(0, "43"), {}}; });
  auto meta =
      api_->patchPodAnnotations("team-0", "web", {{"a", "1"}, {"gone", std::nullopt}}, "42");
  ASSERT_TRUE(meta.has_value()) << meta.error().toString();
  EXPECT_EQ(meta->resourceVersion, "43");
  const auto r = last();
  EXPECT_EQ(r.method, "PATCH");
  EXPECT_EQ(r.target, "/api/v1/namespaces/team-0/pods/web");
  EXPECT_EQ(r.header("Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(nlohmann::json::parse(r.body),
            nlohmann::json::parse(
                R"({"metadata":{"annotations":{"a":"1","gone":null},"resourceVersion":"42"}})"));

  ASSERT_TRUE(api_->patchPodAnnotations("team-0", "web", {{"a", "2"}}, "").has_value());
  EXPECT_EQ(nlohmann::json::parse(last().body),
            nlohmann::json::parse(R"({"metadata":{"annotations":{"a":"2"}}})"));
}

TEST_F(ApiTest, PatchesWorkloadAnnotationsAtTheKindsPath) {
  start([](const RawRequest&) {
    return Reply{200, R"({"metadata":{"name":"w","namespace":"a","resourceVersion":"9"}})", {}};
  });
  const std::vector<std::pair<api::WorkloadKind, std::string>> kinds = {
      {api::WorkloadKind::kDeployment, "/apis/apps/v1/namespaces/a/deployments/w"},
      {api::WorkloadKind::kStatefulSet, "/apis/apps/v1/namespaces/a/statefulsets/w"},
      {api::WorkloadKind::kDaemonSet, "/apis/apps/v1/namespaces/a/daemonsets/w"},
      {api::WorkloadKind::kReplicaSet, "/apis/apps/v1/namespaces/a/replicasets/w"},
      {api::WorkloadKind::kJob, "/apis/batch/v1/namespaces/a/jobs/w"},
      {api::WorkloadKind::kCronJob, "/apis/batch/v1/namespaces/a/cronjobs/w"}};
  for (const auto& [kind, path] : kinds) {
    auto meta = api_->patchWorkloadAnnotations(kind, "a", "w", {{"k", "v"}}, "8");
    ASSERT_TRUE(meta.has_value()) << path << ": " << meta.error().toString();
    EXPECT_EQ(meta->resourceVersion, "9");
    EXPECT_EQ(last().target, path);
    EXPECT_EQ(last().method, "PATCH");
  }
}

TEST_F(ApiTest, ResizesThroughTheResizeSubresourceWithAStrategicMergePatch) {
  start([](const RawRequest&) { return Reply{200, podJson(0), {}}; });
  api::ContainerResize app{"app", {}};
  app.resources.requests.cpu = Quantity::parse("500m").value();
  app.resources.requests.memory = Quantity::parse("512Mi").value();
  app.resources.limits.cpu = Quantity::parse("1").value();  // memory limit dropped: deleted
  // An init container: listed under initContainers; the resources not given are deleted.
  api::ContainerResize init{"init-config", {}, /*initContainer=*/true};
  init.resources.requests.cpu = Quantity::parse("100m").value();
  const std::vector<api::ContainerResize> resize{app, init};
  auto pod = api_->resizePod("team-0", "web", resize);
  ASSERT_TRUE(pod.has_value()) << pod.error().toString();
  // One request: the pod is not read first.
  const auto sent = requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].method, "PATCH");
  EXPECT_EQ(sent[0].target, "/api/v1/namespaces/team-0/pods/web/resize");
  EXPECT_EQ(sent[0].header("Content-Type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(nlohmann::json::parse(sent[0].body), nlohmann::json::parse(R"({"spec":{
      "containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"512Mi"},
                                                "limits":{"cpu":"1","memory":null}}}],
      "initContainers":[{"name":"init-config","resources":{"requests":{"cpu":"100m","memory":null},
                                                         "limits":{"cpu":null,"memory":null}}}]}})"));
}

TEST_F(ApiTest, EvictsThroughTheEvictionSubresource) {
  start([](const RawRequest&) {
    return Reply{201, R"({"kind":"Status","status":"Success","code":201})", {}};
  });
  api::Eviction eviction;
  eviction.metadata.name = "web";
  eviction.metadata.namespace_ = "a";
  eviction.deleteOptions = api::DeleteOptions{.preconditionUid = "u-1"};
  ASSERT_TRUE(api_->evictPod(eviction).has_value());
  const auto r = last();
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/api/v1/namespaces/a/pods/web/eviction");
  const auto body = nlohmann::json::parse(r.body);
  EXPECT_EQ(body["kind"], "Eviction");
  EXPECT_EQ(body["deleteOptions"]["preconditions"]["uid"], "u-1");
  EXPECT_EQ(api_->evictPod(api::Eviction{}).error().field, "metadata.name");
}

TEST_F(ApiTest, CreatesAndUpdatesEventsAndLeases) {
  start([](const RawRequest& r) {
    if (r.path().find("/events") != std::string::npos) {
      return Reply{201,
                   R"({"metadata":{"name":"e1","namespace":"a","resourceVersion":"5"},
                           "reason":"Resized","count":2})",
                   {}};
    }
    return Reply{200,
                 R"({"metadata":{"name":"attune","namespace":"a","resourceVersion":"6"},
                         "spec":{"holderIdentity":"me"}})",
                 {}};
  });
  api::Event event;
  event.metadata.generateName = "web.";
  event.metadata.namespace_ = "a";
  event.reason = "Resized";
  auto created = api_->createEvent(event);
  ASSERT_TRUE(created.has_value()) << created.error().toString();
  EXPECT_EQ(created->metadata.name, "e1");
  EXPECT_EQ(last().method, "POST");
  EXPECT_EQ(last().target, "/api/v1/namespaces/a/events");
  EXPECT_EQ(nlohmann::json::parse(last().body)["reason"], "Resized");
  auto updated = api_->updateEvent(*created);
  ASSERT_TRUE(updated.has_value()) << updated.error().toString();
  EXPECT_EQ(last().method, "PUT");
  EXPECT_EQ(last().target, "/api/v1/namespaces/a/events/e1");

  api::Lease lease;
  lease.metadata.name = "attune";
  lease.metadata.namespace_ = "a";
  lease.spec.holderIdentity = "me";
  ASSERT_TRUE(api_->createLease(lease).has_value());
  EXPECT_EQ(last().method, "POST");
  EXPECT_EQ(last().target, "/apis/coordination.k8s.io/v1/namespaces/a/leases");
  lease.metadata.resourceVersion = "6";
  auto stored = api_->updateLease(lease);
  ASSERT_TRUE(stored.has_value()) << stored.error().toString();
  EXPECT_EQ(stored->spec.holderIdentity, "me");
  EXPECT_EQ(last().method, "PUT");
  EXPECT_EQ(last().target, "/apis/coordination.k8s.io/v1/namespaces/a/leases/attune");
  EXPECT_EQ(nlohmann::json::parse(last().body)["metadata"]["resourceVersion"], "6");
  ASSERT_TRUE(api_->getLease("a", "attune").has_value());
  EXPECT_EQ(last().method, "GET");
}

TEST_F(ApiTest, ReadsASecretByNameWithItsDataDecoded) {
  start([](const RawRequest&) {
    return Reply{200,
                 R"({"kind":"Secret","apiVersion":"v1","type":"Opaque",)"
                 R"("metadata":{"name":"prom-token","namespace":"a","resourceVersion":"9"},)"
                 R"("data":{"token":"czNjcmV0LXRva2Vu"}})",
                 {}};
  });
  auto secret = api_->getSecret("a", "prom-token");
  ASSERT_TRUE(secret.has_value()) << secret.error().toString();
  EXPECT_EQ(secret->data.at("token"), "s3cret-token");
  EXPECT_EQ(last().method, "GET");
  EXPECT_EQ(last().target, "/api/v1/namespaces/a/secrets/prom-token");
}

// Seven policies p0..p6 with resourceVersion "3".
std::vector<api::AttunePolicy> sevenPolicies() {
  std::vector<api::AttunePolicy> policies;
  for (int i = 0; i < 7; ++i) {
    api::AttunePolicy p;
    p.metadata.name = "p" + std::to_string(i);
    p.metadata.namespace_ = "a";
    p.metadata.resourceVersion = "3";
    p.status.observedGeneration = i;
    policies.push_back(p);
  }
  return policies;
}

TEST_F(ApiTest, StatusWritesSentTogetherComeBackInOrder) {
  // p3 is refused (409); p5's first attempt meets a 503 and is retried on its lane, as the
  // client retries.
  int unavailable = 1;
  start(
      [&unavailable](const RawRequest& r) {
        auto json = nlohmann::json::parse(r.body);
        const std::string name = json["metadata"]["name"];
        if (name == "p3") {
          return Reply{409, statusBody(409, "Conflict", "the object has been modified"), {}};
        }
        if (name == "p5" && unavailable-- > 0) {
          return Reply{503, statusBody(503, "ServiceUnavailable", "busy"), {}};
        }
        json["metadata"]["resourceVersion"] = "9";
        return Reply{200, json.dump(), {}};
      },
      HttpClusterApiOptions{.parallelWrites = 3});
  const std::vector<api::AttunePolicy> policies = sevenPolicies();
  const auto results = api_->updateAttunePolicyStatuses(policies);
  ASSERT_EQ(results.size(), policies.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i == 3) {
      ASSERT_FALSE(results[i].has_value());
      EXPECT_EQ(results[i].error().code, ErrorCode::kConflict);
      continue;
    }
    ASSERT_TRUE(results[i].has_value()) << i << ": " << results[i].error().toString();
    EXPECT_EQ(results[i]->metadata.name, policies[i].metadata.name);
    EXPECT_EQ(results[i]->status.observedGeneration, static_cast<std::int64_t>(i));
    EXPECT_EQ(results[i]->metadata.resourceVersion, "9");
  }
  std::map<std::string, int> puts;
  for (const RawRequest& r : requests()) {
    EXPECT_EQ(r.method, "PUT");
    ++puts[r.path()];
  }
  for (const api::AttunePolicy& p : policies) {
    const std::string path =
        "/apis/attune.io/v1alpha1/namespaces/a/attunepolicies/" + p.metadata.name + "/status";
    EXPECT_EQ(puts[path], p.metadata.name == "p5" ? 2 : 1) << path;
  }
}

TEST(ApiParallelWritesTest, StatusWritesAreInFlightTogether) {
  // Each request waits (up to 10 s) for a second one to arrive while it is handled: written one
  // after another, every request would wait the whole time and none would see another.
  std::mutex mutex;
  std::condition_variable arrived;
  int inFlight = 0;
  int most = 0;
  auto server = http::server::HttpServer::start({}, [&](const http::server::HttpRequest& request) {
    {
      std::unique_lock lock(mutex);
      most = std::max(most, ++inFlight);
      arrived.notify_all();
      arrived.wait_for(lock, 10s, [&] { return most >= 2; });
      --inFlight;
    }
    http::server::HttpResponse response;
    response.body = request.body;
    return response;
  });
  ASSERT_TRUE(server.has_value()) << server.error().toString();
  ClusterConfig config;
  config.server = "http://127.0.0.1:" + std::to_string((*server)->port());
  SimulatedClock clock(kStart);
  HttpClusterApi api(config, clock, HttpClusterApiOptions{.parallelWrites = 4});
  const auto results = api.updateAttunePolicyStatuses(sevenPolicies());
  ASSERT_EQ(results.size(), 7U);
  for (const auto& result : results) EXPECT_TRUE(result.has_value());
  EXPECT_GE(most, 2);
}

// runTasks: the tasks run on several connections at once, each task's calls in its order, and
// every request takes its token from the client's own limiter.
TEST(ApiParallelWritesTest, TasksRunOnSeveralConnectionsAtOnceEachInItsOrder) {
  // Each request waits (up to 10 s) for a second one to arrive while it is handled, as above.
  std::mutex mutex;
  std::condition_variable arrived;
  int inFlight = 0;
  int most = 0;
  std::map<std::string, std::vector<std::string>> steps;  // by pod: the "step" annotations sent
  auto server = http::server::HttpServer::start({}, [&](const http::server::HttpRequest& request) {
    {
      std::unique_lock lock(mutex);
      most = std::max(most, ++inFlight);
      const auto patch = nlohmann::json::parse(request.body);
      steps[request.path].push_back(patch["metadata"]["annotations"]["step"]);
      arrived.notify_all();
      arrived.wait_for(lock, 10s, [&] { return most >= 2; });
      --inFlight;
    }
    http::server::HttpResponse response;
    response.body = podJson(0);
    return response;
  });
  ASSERT_TRUE(server.has_value()) << server.error().toString();
  ClusterConfig config;
  config.server = "http://127.0.0.1:" + std::to_string((*server)->port());
  SimulatedClock clock(kStart);
  HttpClusterApiOptions options{.parallelWrites = 3};
  options.rest.rateLimit = {.qps = 1, .burst = 20};  // the simulated clock never refills it
  HttpClusterApi api(config, clock, options);
  EXPECT_EQ(api.taskLanes(), 3U);

  std::vector<api::ClusterApi::Task> tasks;
  std::vector<int> failures(5, 0);
  for (int t = 0; t < 5; ++t) {
    tasks.emplace_back([t, &failures](api::ClusterApi& lane) {
      for (int step = 0; step < 3; ++step) {
        api::AnnotationChanges changes;
        changes["step"] = std::to_string(step);
        if (!lane.patchPodAnnotations("a", "p" + std::to_string(t), changes, "")) ++failures[t];
      }
    });
  }
  api.runTasks(tasks);

  EXPECT_GE(most, 2);
  EXPECT_EQ(failures, std::vector<int>(5, 0));
  ASSERT_EQ(steps.size(), 5U);
  for (const auto& [path, sent] : steps) {
    EXPECT_EQ(sent, (std::vector<std::string>{"0", "1", "2"})) << path;
  }
  // 15 requests took 15 of the limiter's 20 tokens: 5 are left.
  int left = 0;
  while (left < 20 && api.rest().limiter().tryAcquire()) ++left;
  EXPECT_EQ(left, 5);
}

TEST_F(ApiTest, WritesAttunePoliciesAndTheirStatus) {
  api::AttunePolicy policy;
  policy.metadata.name = "p";
  policy.metadata.namespace_ = "a";
  policy.metadata.resourceVersion = "3";
  auto stored = policy;
  stored.metadata.resourceVersion = "4";
  stored.metadata.generation = 2;
  auto json = nlohmann::json::parse(api::encodePolicyJson(stored));
  json["metadata"]["managedFields"] = nlohmann::json::array({{{"manager", "kubectl"}}});
  start([body = json.dump()](const RawRequest&) { return Reply{200, body, {}}; });

  auto created = api_->createAttunePolicy(policy);
  ASSERT_TRUE(created.has_value()) << created.error().toString();
  EXPECT_EQ(created->metadata.resourceVersion, "4");
  EXPECT_EQ(last().method, "POST");
  EXPECT_EQ(last().target, "/apis/attune.io/v1alpha1/namespaces/a/attunepolicies");
  ASSERT_TRUE(api_->updateAttunePolicy(policy).has_value());
  EXPECT_EQ(last().method, "PUT");
  EXPECT_EQ(last().target, "/apis/attune.io/v1alpha1/namespaces/a/attunepolicies/p");
  EXPECT_EQ(nlohmann::json::parse(last().body)["metadata"]["resourceVersion"], "3");
  ASSERT_TRUE(api_->updateAttunePolicyStatus(policy).has_value());
  EXPECT_EQ(last().target, "/apis/attune.io/v1alpha1/namespaces/a/attunepolicies/p/status");
  auto got = api_->getAttunePolicy("a", "p");
  ASSERT_TRUE(got.has_value()) << got.error().toString();
  EXPECT_EQ(got->metadata.generation, 2);
  auto noNamespace = policy;
  noNamespace.metadata.namespace_.clear();
  EXPECT_EQ(api_->createAttunePolicy(noNamespace).error().field, "metadata.namespace");
}

// Calls watchPods until the batch's resourceVersion reaches `until` or an error.
Result<std::vector<api::WatchEvent<api::Pod>>> watchUntil(HttpClusterApi& api,
                                                          const api::ListOptions& options,
                                                          std::string& rv,
                                                          const std::string& until) {
  std::vector<api::WatchEvent<api::Pod>> events;
  for (int i = 0; i < 50 && rv != until; ++i) {
    auto batch = api.watchPods(options, rv);
    if (!batch) return std::unexpected(batch.error());
    std::ranges::move(batch->events, std::back_inserter(events));
    rv = batch->resourceVersion;
  }
  return events;
}

std::string watchLine(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}\n";
}

TEST_F(ApiTest, WatchDeliversEventsAndBookmarksThenRelistsOnExpiry) {
  int watches = 0;
  start(
      [&watches](const RawRequest&) {
        if (++watches == 1) {
          return Reply{
              200,
              watchLine("ADDED", podJson(0, "11")) + watchLine("MODIFIED", podJson(0, "12")) +
                  watchLine("BOOKMARK", R"({"kind":"Pod","metadata":{"resourceVersion":"15"}})"),
              {}};
        }
        return Reply{
            200,
            watchLine("ERROR", statusBody(410, "Expired", "too old resource version: 15 (90)")),
            {}};
      },
      HttpClusterApiOptions{.watchWait = 20s});
  std::string rv = "10";
  auto events = watchUntil(*api_, {.namespace_ = "team-0"}, rv, "15");
  ASSERT_TRUE(events.has_value()) << events.error().toString();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].type, api::WatchEventType::kAdded);
  EXPECT_EQ((*events)[0].object.metadata.resourceVersion, "11");
  EXPECT_EQ((*events)[1].type, api::WatchEventType::kModified);
  EXPECT_EQ(rv, "15");
  const auto first = requests().at(0);
  EXPECT_EQ(first.path(), "/api/v1/namespaces/team-0/pods");
  EXPECT_EQ(first.query(),
            "watch=1&allowWatchBookmarks=true&resourceVersion=10&timeoutSeconds=300");

  // The stream ended; the next calls reopen it from the bookmark and meet the expiry.
  Result<api::WatchBatch<api::Pod>> batch;
  for (int i = 0; i < 5 && batch.has_value(); ++i)
    batch = api_->watchPods({.namespace_ = "team-0"}, "15");
  ASSERT_FALSE(batch.has_value());
  EXPECT_EQ(batch.error().code, ErrorCode::kConflict);
  EXPECT_EQ(batch.error().field, "resourceVersion");
  EXPECT_NE(batch.error().message.find("too old resource version"), std::string::npos);
  EXPECT_EQ(watches, 2);
  EXPECT_NE(requests().back().query().find("resourceVersion=15"), std::string::npos);
}

TEST_F(ApiTest, GenericWatchStreamsEachKindFromItsCollection) {
  api::AttunePolicy policy;
  policy.metadata.name = "p";
  policy.metadata.namespace_ = "a";
  policy.metadata.resourceVersion = "31";
  const std::string policyJson = nlohmann::json::parse(api::encodePolicyJson(policy)).dump();
  start(
      [&](const RawRequest& r) {
        if (r.path().find("deployments") != std::string::npos) {
          return Reply{
              200,
              watchLine("ADDED", R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":)"
                                 R"({"namespace":"a","name":"web","resourceVersion":"21"}})") +
                  watchLine("DELETED", R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":)"
                                       R"({"namespace":"a","name":"old","resourceVersion":"22"}})"),
              {}};
        }
        return Reply{
            200,
            watchLine("MODIFIED", policyJson) +
                watchLine("BOOKMARK",
                          R"({"kind":"AttunePolicy","metadata":{"resourceVersion":"35"}})"),
            {}};
      },
      HttpClusterApiOptions{.watchWait = 20s});
  std::vector<api::WatchEvent<api::Deployment>> deployments;
  std::string rv = "20";
  for (int i = 0; i < 50 && rv != "22"; ++i) {
    auto batch = api_->watch(api::Watched<api::Deployment>{}, {.namespace_ = "a"}, rv);
    ASSERT_TRUE(batch.has_value()) << batch.error().toString();
    std::ranges::move(batch->events, std::back_inserter(deployments));
    rv = batch->resourceVersion;
  }
  ASSERT_EQ(deployments.size(), 2u);
  EXPECT_EQ(deployments[0].type, api::WatchEventType::kAdded);
  EXPECT_EQ(deployments[0].object.metadata.name, "web");
  EXPECT_EQ(deployments[1].type, api::WatchEventType::kDeleted);
  EXPECT_EQ(requests().at(0).path(), "/apis/apps/v1/namespaces/a/deployments");
  EXPECT_EQ(requests().at(0).query(),
            "watch=1&allowWatchBookmarks=true&resourceVersion=20&timeoutSeconds=300");

  std::vector<api::WatchEvent<api::AttunePolicy>> policies;
  rv = "30";
  for (int i = 0; i < 50 && rv != "35"; ++i) {
    auto batch = api_->watch(api::Watched<api::AttunePolicy>{}, {}, rv);
    ASSERT_TRUE(batch.has_value()) << batch.error().toString();
    std::ranges::move(batch->events, std::back_inserter(policies));
    rv = batch->resourceVersion;
  }
  ASSERT_EQ(policies.size(), 1u);
  EXPECT_EQ(policies[0].type, api::WatchEventType::kModified);
  EXPECT_EQ(policies[0].object.metadata.name, "p");
  EXPECT_EQ(rv, "35");
  EXPECT_EQ(requests().back().path(), "/apis/attune.io/v1alpha1/attunepolicies");
}

std::string podIn(const std::string& ns, int index, const std::string& rv) {
  auto pod = attune::testing::realisticPod(index);
  pod["metadata"]["namespace"] = ns;
  pod["metadata"]["resourceVersion"] = rv;
  return pod.dump();
}

TEST_F(ApiTest, AWatchNamespaceFilterPassesOverTheOtherNamespacesEvents) {
  start(
      [](const RawRequest& r) {
        if (r.path().find("/nodes") != std::string::npos) {
          return Reply{200,
                       watchLine("ADDED", R"({"kind":"Node","metadata":{"name":"n1",)"
                                          R"("resourceVersion":"51"}})"),
                       {}};
        }
        // A pod in a namespace not kept carries a malformed field past its metadata: passed
        // over, it is never decoded.
        auto broken = nlohmann::json::parse(podIn("b", 2, "13"));
        broken["spec"]["containers"] = "not a list";
        return Reply{
            200,
            watchLine("ADDED", podIn("a", 0, "11")) + watchLine("MODIFIED", podIn("b", 1, "12")) +
                watchLine("DELETED", broken.dump()) + watchLine("MODIFIED", podIn("a", 0, "14")) +
                watchLine("ADDED", podIn("c", 3, "15")),
            {}};
      },
      HttpClusterApiOptions{.watchWait = 20s,
                            .watchNamespaceFilter = [](std::string_view ns) { return ns == "a"; }});
  std::string rv = "10";
  auto pods = watchUntil(*api_, {}, rv, "15");
  ASSERT_TRUE(pods.has_value()) << pods.error().toString();
  // Only namespace a's events; the resourceVersion moved past the last event passed over.
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ((*pods)[0].object.metadata.resourceVersion, "11");
  EXPECT_EQ((*pods)[1].type, api::WatchEventType::kModified);
  EXPECT_EQ((*pods)[1].object.metadata.resourceVersion, "14");
  EXPECT_EQ(rv, "15");

  // Cluster-scoped objects (no namespace) are decoded whatever the filter says.
  std::vector<api::WatchEvent<api::Node>> nodes;
  rv = "50";
  for (int i = 0; i < 50 && rv != "51"; ++i) {
    auto batch = api_->watch(api::Watched<api::Node>{}, {}, rv);
    ASSERT_TRUE(batch.has_value()) << batch.error().toString();
    std::ranges::move(batch->events, std::back_inserter(nodes));
    rv = batch->resourceVersion;
  }
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].object.metadata.name, "n1");
}

TEST_F(ApiTest, WithoutAWatchNamespaceFilterAMalformedEventEndsTheStream) {
  start(
      [](const RawRequest&) {
        auto broken = nlohmann::json::parse(podIn("b", 2, "13"));
        broken["spec"]["containers"] = "not a list";
        return Reply{
            200, watchLine("ADDED", podIn("a", 0, "11")) + watchLine("DELETED", broken.dump()), {}};
      },
      HttpClusterApiOptions{.watchWait = 20s});
  std::string rv = "10";
  auto pods = watchUntil(*api_, {}, rv, "never");
  ASSERT_FALSE(pods.has_value());
  EXPECT_EQ(pods.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(pods.error().message.find("watch event does not decode"), std::string::npos);
  EXPECT_EQ(rv, "11");  // the event before it was delivered
}

TEST_F(ApiTest, ListPodsPageIsOneRequestAndAnExpiredTokenIsAConflict) {
  start([](const RawRequest& r) {
    if (r.query().find("continue=") == std::string::npos) {
      return Reply{200,
                   R"({"metadata":{"resourceVersion":"5","continue":"tok"},"items":[)" +
                       podJson(1) + "," + podJson(0) + "]}",
                   {}};
    }
    return Reply{410, statusBody(410, "Expired", "The provided continue parameter is too old"), {}};
  });
  auto page = api_->listPodsPage({.namespace_ = "team-0"}, 2, "");
  ASSERT_TRUE(page.has_value()) << page.error().toString();
  EXPECT_EQ(page->continueToken, "tok");
  EXPECT_EQ(page->resourceVersion, "5");
  ASSERT_EQ(page->items.size(), 2u);
  const api::ObjectMeta& a = page->items[0].metadata;
  const api::ObjectMeta& b = page->items[1].metadata;
  EXPECT_LT(std::tie(a.namespace_, a.name), std::tie(b.namespace_, b.name));  // sorted
  EXPECT_EQ(last().query(), "limit=2");
  auto next = api_->listPodsPage({.namespace_ = "team-0"}, 2, "tok");
  ASSERT_FALSE(next.has_value());
  EXPECT_EQ(next.error().code, ErrorCode::kConflict);
  EXPECT_EQ(next.error().field, "resourceVersion");
  EXPECT_EQ(last().query(), "limit=2&continue=tok");
  EXPECT_EQ(requests().size(), 2u);  // one request per page, no merging
}

TEST_F(ApiTest, WatchRefusedWith410IsAConflict) {
  start(
      [](const RawRequest&) {
        return Reply{410, statusBody(410, "Gone", "too old resource version"), {}};
      },
      HttpClusterApiOptions{.watchWait = 20s});
  Result<api::WatchBatch<api::Pod>> batch;
  for (int i = 0; i < 5 && batch.has_value(); ++i) batch = api_->watchPods({}, "3");
  ASSERT_FALSE(batch.has_value());
  EXPECT_EQ(batch.error().code, ErrorCode::kConflict);
}

TEST_F(ApiTest, AnOpenWatchIsStoppedWhenTheClientGoes) {
  start([](const RawRequest&) { return Reply{200, "", {}}; });
  auto batch = api_->watchPods({.labelSelector = {.matchLabels = {{"hold", "1"}}}}, "1");
  ASSERT_TRUE(batch.has_value()) << batch.error().toString();
  EXPECT_TRUE(batch->events.empty());
  EXPECT_EQ(batch->resourceVersion, "1");
  api_.reset();  // joins the reader thread; hangs here if the stream cannot be stopped
  SUCCEED();
}

}  // namespace
}  // namespace attune::kube
