// Pod decoding behaviour on realistic API-server JSON: values, resize conditions, OOM kills,
// tolerance of unknown fields, error paths, lists and watch events.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "support/pod_json.h"

namespace attune::api {
namespace {

using ::attune::testing::realisticPod;
using Json = nlohmann::json;

Time at(const char* text) { return *parseRfc3339(text); }

TEST(K8sPodDecode, RealisticPodValues) {
  auto pod = decodePod(realisticPod(3).dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->metadata.namespace_, "team-3");
  EXPECT_EQ(pod->metadata.labels.at("app"), "svc-3");
  EXPECT_EQ(pod->metadata.annotations.at("prometheus.io/port"), "9102");
  ASSERT_NE(pod->metadata.controllerRef(), nullptr);
  EXPECT_EQ(pod->metadata.controllerRef()->kind, "ReplicaSet");
  ASSERT_EQ(pod->spec.containers.size(), 3u);
  const Container& app = pod->spec.containers[0];
  EXPECT_EQ(app.name, "app");
  EXPECT_EQ(app.resources.requests.cpu->toMillicores(), Millicores(250));
  EXPECT_EQ(app.resources.requests.memory->toBytes(), Bytes(512LL << 20));
  EXPECT_EQ(app.resources.limits.cpu->toMillicores(), Millicores(1000));
  EXPECT_EQ(app.resources.limits.memory->toBytes(), Bytes(1LL << 30));
  ASSERT_EQ(app.resizePolicy.size(), 2u);
  EXPECT_EQ(app.resizePolicy[1].restartPolicy, "RestartContainer");
  EXPECT_FALSE(pod->spec.containers[1].resources.limits.cpu.has_value());
  EXPECT_EQ(pod->spec.initContainers.at(0).name, "init-config");
  EXPECT_EQ(pod->spec.priority, 100000);
  EXPECT_EQ(pod->status.phase, "Running");
  EXPECT_EQ(pod->status.qosClass, "Burstable");
  EXPECT_EQ(pod->status.conditions.size(), 5u);
  EXPECT_TRUE(findCondition(pod->status.conditions, "Ready")->isTrue());
  EXPECT_EQ(pod->status.startTime, at("2025-03-01T09:58:12Z"));
  const ContainerStatus* proxy = pod->status.findContainerStatus("proxy");
  ASSERT_NE(proxy, nullptr);
  EXPECT_TRUE(proxy->ready);
  EXPECT_EQ(proxy->state.running->startedAt, at("2025-03-01T10:00:00Z"));
  EXPECT_EQ(proxy->allocatedResources.cpu->toMillicores(), Millicores(100));
  EXPECT_EQ(pod->status.initContainerStatuses.at(0).state.terminated->reason, "Completed");
  EXPECT_EQ(computeQosClass(pod->spec), QosClass::kBurstable);
}

// A resize names the list its container is in (the resize request's spec.containers or
// spec.initContainers).
TEST(K8sPodDecode, AResizeSaysWhetherItsContainerIsAnInitContainer) {
  auto pod = decodePod(realisticPod(3).dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  ResourceRequirements wanted;
  wanted.requests.cpu = Quantity::fromMillicores(Millicores(300));
  const ContainerResize app = pod->spec.resizeOf(pod->spec.containers.at(0), wanted);
  EXPECT_EQ(app.name, "app");
  EXPECT_FALSE(app.initContainer);
  EXPECT_EQ(app.resources, wanted);
  const ContainerResize init = pod->spec.resizeOf(pod->spec.initContainers.at(0), wanted);
  EXPECT_EQ(init.name, "init-config");
  EXPECT_TRUE(init.initContainer);
}

TEST(K8sPodDecode, OomKilledLastStateWithFinishedAt) {
  auto pod = decodePod(realisticPod(0).dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  const ContainerStatus* app = pod->status.findContainerStatus("app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->restartCount, 2);
  ASSERT_TRUE(app->lastState.terminated.has_value());
  EXPECT_EQ(app->lastState.terminated->reason, "OOMKilled");
  EXPECT_EQ(app->lastState.terminated->exitCode, 137);
  EXPECT_EQ(app->lastState.terminated->finishedAt, at("2025-03-01T09:59:58Z"));
  EXPECT_FALSE(app->lastState.running.has_value());
  EXPECT_FALSE(pod->status.findContainerStatus("proxy")->lastState.terminated.has_value());
}

TEST(K8sPodDecode, ResizeConditionsAndDeprecatedResizeField) {
  Json j = realisticPod(1);
  j["metadata"]["generation"] = 4;
  j["status"]["observedGeneration"] = 3;
  j["status"]["conditions"].push_back({{"type", "PodResizePending"},
                                       {"status", "True"},
                                       {"reason", "Deferred"},
                                       {"message", "Node didn't have enough capacity: cpu"},
                                       {"lastTransitionTime", "2025-03-01T11:00:00Z"},
                                       {"observedGeneration", 4}});
  j["status"]["conditions"].push_back({{"type", "PodResizeInProgress"},
                                       {"status", "True"},
                                       {"lastProbeTime", nullptr},
                                       {"lastTransitionTime", "2025-03-01T11:00:05Z"}});
  j["status"]["resize"] = "InProgress";
  auto pod = decodePod(j.dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->metadata.generation, 4);
  EXPECT_EQ(pod->status.observedGeneration, 3);
  const Condition* pending = findCondition(pod->status.conditions, kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Deferred");
  EXPECT_EQ(pending->message, "Node didn't have enough capacity: cpu");
  EXPECT_EQ(pending->observedGeneration, 4);
  EXPECT_EQ(pending->lastTransitionTime, at("2025-03-01T11:00:00Z"));
  const Condition* inProgress = findCondition(pod->status.conditions, kPodResizeInProgress);
  ASSERT_NE(inProgress, nullptr);
  EXPECT_TRUE(inProgress->isTrue());
  EXPECT_EQ(pod->status.resize, "InProgress");
}

TEST(K8sPodDecode, SidecarInitContainer) {
  Json j = realisticPod(2);
  j["spec"]["initContainers"][0]["restartPolicy"] = "Always";
  auto pod = decodePod(j.dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_TRUE(pod->spec.initContainers[0].isSidecar());
  EXPECT_FALSE(pod->spec.containers[0].isSidecar());
  EXPECT_EQ(pod->spec.findContainer("init-config"), &pod->spec.initContainers[0]);
}

TEST(K8sPodDecode, UnknownFieldsAndNullsAreTolerated) {
  Json j = realisticPod(4);
  j["spec"]["futureField"] = {{"nested", {1, 2, {{"deep", "x"}}}}, {"flag", true}};
  j["spec"]["containers"][0]["resources"]["claims"] = {{{"name", "gpu"}}};
  j["spec"]["containers"][0]["someNewKnob"] = 3.25;
  j["status"]["containerStatuses"][0]["user"] = {{"linux", {{"uid", 1}, {"gid", 2}}}};
  j["metadata"]["deletionTimestamp"] = nullptr;
  j["metadata"]["labels"] = nullptr;
  j["spec"]["nodeName"] = nullptr;
  auto pod = decodePod(j.dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_FALSE(pod->metadata.deletionTimestamp.has_value());
  EXPECT_TRUE(pod->metadata.labels.empty());
  EXPECT_EQ(pod->spec.nodeName, "");
  EXPECT_EQ(pod->spec.containers[0].resources.requests.cpu->toMillicores(), Millicores(250));
}

TEST(K8sPodDecode, TolerationsAndTheTaintsTheyTolerate) {
  Json j = realisticPod(6);
  j["spec"]["tolerations"] = Json::array(
      {{{"key", "dedicated"}, {"operator", "Equal"}, {"value", "gpu"}, {"effect", "NoSchedule"}},
       {{"key", "node.kubernetes.io/not-ready"},
        {"operator", "Exists"},
        {"effect", "NoExecute"},
        {"tolerationSeconds", 300}}});
  auto pod = decodePod(j.dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  ASSERT_EQ(pod->spec.tolerations.size(), 2u);
  const Toleration& gpu = pod->spec.tolerations[0];
  const Toleration& notReady = pod->spec.tolerations[1];
  EXPECT_EQ(notReady.tolerationSeconds, 300);
  EXPECT_TRUE(gpu.tolerates({"dedicated", "gpu", "NoSchedule"}));
  EXPECT_FALSE(gpu.tolerates({"dedicated", "db", "NoSchedule"}));
  EXPECT_FALSE(gpu.tolerates({"dedicated", "gpu", "NoExecute"}));
  EXPECT_TRUE(notReady.tolerates({"node.kubernetes.io/not-ready", "", "NoExecute"}));
  EXPECT_FALSE(notReady.tolerates({"other", "", "NoExecute"}));
  EXPECT_TRUE((Toleration{.operator_ = "Exists"}.tolerates({"any", "thing", "NoSchedule"})));
}

TEST(K8sPodDecode, ExtendedResourcesAndBareNumberQuantities) {
  Json j = realisticPod(5);
  j["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "1";
  j["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = "2Gi";
  j["spec"]["containers"][1]["resources"]["requests"]["cpu"] = 2;  // accepted by the API server
  auto pod = decodePod(j.dump());
  ASSERT_TRUE(pod) << pod.error().toString();
  const ResourceRequirements& r = pod->spec.containers[0].resources;
  ASSERT_NE(r.limits.find("nvidia.com/gpu"), nullptr);
  EXPECT_EQ(r.limits.find("nvidia.com/gpu")->toBytes(), Bytes(1));
  EXPECT_EQ(r.requests.find("ephemeral-storage")->toBytes(), Bytes(2LL << 30));
  EXPECT_EQ(pod->spec.containers[1].resources.requests.cpu->toMillicores(), Millicores(2000));
}

TEST(K8sPodDecode, BadQuantityNamesTheFieldPath) {
  Json j = realisticPod(0);
  j["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "12 cores";
  auto pod = decodePod(j.dump());
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(pod.error().field, "spec.containers[0].resources.requests.cpu");
  EXPECT_NE(pod.error().toString().find("spec.containers[0].resources.requests.cpu: "),
            std::string::npos);

  Json k = realisticPod(0);
  k["status"]["containerStatuses"][2]["allocatedResources"]["memory"] = "lots";
  auto other = decodePod(k.dump());
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().field, "status.containerStatuses[2].allocatedResources.memory");
}

TEST(K8sPodDecode, WrongTypesAndBadTimestampsNameTheFieldPath) {
  Json j = realisticPod(0);
  j["status"]["containerStatuses"][1]["restartCount"] = "three";
  auto pod = decodePod(j.dump());
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().field, "status.containerStatuses[1].restartCount");

  Json k = realisticPod(0);
  k["status"]["conditions"][2]["lastTransitionTime"] = "yesterday";
  auto other = decodePod(k.dump());
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().field, "status.conditions[2].lastTransitionTime");

  Json l = realisticPod(0);
  l["spec"]["containers"] = {{"name", "not-a-list"}};
  auto third = decodePod(l.dump());
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().field, "spec.containers");

  Json m = realisticPod(0);
  m["spec"]["priority"] = 1LL << 40;
  auto fourth = decodePod(m.dump());
  ASSERT_FALSE(fourth);
  EXPECT_EQ(fourth.error().code, ErrorCode::kOutOfRange);
  EXPECT_EQ(fourth.error().field, "spec.priority");
}

TEST(K8sPodDecode, TimestampsOutsideTheRepresentableRangeAreErrors) {
  auto pod = decodePod(R"({"metadata":{"creationTimestamp":"0001-01-01T00:00:00Z"}})");
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().code, ErrorCode::kOutOfRange);
  EXPECT_EQ(pod.error().field, "metadata.creationTimestamp");
  EXPECT_TRUE(decodePod(R"({"metadata":{"creationTimestamp":"2261-12-31T23:59:59Z"}})"));
}

TEST(K8sPodDecode, MalformedJsonIsAnError) {
  const std::string good = realisticPod(0).dump();
  for (const std::string& bad :
       {good.substr(0, good.size() / 2), good.substr(0, good.size() - 1), good + "}",
        good + " {\"extra\":1}", std::string("[1, 2"), std::string("\"a string\""), std::string(""),
        std::string("{\"metadata\": {\"name\": \"x}}")}) {
    auto pod = decodePod(bad);
    EXPECT_FALSE(pod) << "accepted: " << bad.substr(0, 80);
    if (!pod) {
      EXPECT_EQ(pod.error().code, ErrorCode::kInvalidArgument);
    }
  }
  auto notObject = decodePod("[]");
  ASSERT_FALSE(notObject);
  EXPECT_NE(notObject.error().message.find("expected an object"), std::string::npos);
}

TEST(K8sPodDecode, ListWithMetadataAndItemErrorPaths) {
  auto list = decodePodList(::attune::testing::realisticPodListJson(25));
  ASSERT_TRUE(list) << list.error().toString();
  ASSERT_EQ(list->items.size(), 25u);
  EXPECT_EQ(list->resourceVersion, "987654321");
  EXPECT_EQ(list->continueToken, "");
  EXPECT_EQ(list->items[24].metadata.namespace_, "team-11");
  EXPECT_NE(list->items[0].metadata.name, list->items[1].metadata.name);

  Json page = {{"kind", "PodList"},
               {"metadata",
                {{"resourceVersion", "42"},
                 {"continue", "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"},
                 {"remainingItemCount", 1200}}},
               {"items", {realisticPod(0), realisticPod(1)}}};
  page["items"][1]["spec"]["containers"][2]["resources"]["limits"]["memory"] = "-1Gi?";
  auto bad = decodePodList(page.dump());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "items[1].spec.containers[2].resources.limits.memory");

  page["items"][1] = realisticPod(1);
  auto ok = decodePodList(page.dump());
  ASSERT_TRUE(ok) << ok.error().toString();
  EXPECT_EQ(ok->continueToken, "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ");
  EXPECT_EQ(ok->remainingItemCount, 1200);

  auto empty =
      decodePodList(R"({"kind":"PodList","metadata":{"resourceVersion":"7"},"items":null})");
  ASSERT_TRUE(empty) << empty.error().toString();
  EXPECT_TRUE(empty->items.empty());
}

TEST(K8sPodDecode, WatchEvents) {
  // The API server writes "type" first; nlohmann sorts keys, so build this line by hand.
  auto event = decodePodWatchEvent(R"({"type":"ADDED","object":)" + realisticPod(6).dump() + "}");
  ASSERT_TRUE(event) << event.error().toString();
  EXPECT_EQ(event->type, WatchEventType::kAdded);
  EXPECT_EQ(event->object.metadata.labels.at("app"), "svc-6");

  Json objectFirst = {{"object", realisticPod(7)},
                      {"type", "DELETED"}};  // keys sorted: object first
  auto deleted = decodePodWatchEvent(objectFirst.dump());
  ASSERT_TRUE(deleted) << deleted.error().toString();
  EXPECT_EQ(deleted->type, WatchEventType::kDeleted);
  EXPECT_EQ(deleted->object.spec.containers.size(), 3u);

  auto bookmark = decodePodWatchEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12345","annotations":{"k8s.io/initial-events-end":"true"}}}})");
  ASSERT_TRUE(bookmark) << bookmark.error().toString();
  EXPECT_EQ(bookmark->type, WatchEventType::kBookmark);
  EXPECT_EQ(bookmark->object.metadata.resourceVersion, "12345");

  auto error = decodePodWatchEvent(
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}})json");
  ASSERT_TRUE(error) << error.error().toString();
  EXPECT_EQ(error->type, WatchEventType::kError);
  EXPECT_EQ(error->status.code, 410);
  EXPECT_EQ(error->status.reason, "Expired");

  auto unknown = decodePodWatchEvent(R"({"type":"RENAMED","object":{}})");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().field, "type");

  Json badPod = realisticPod(0);
  badPod["spec"]["containers"][0]["resources"]["limits"]["cpu"] = "x";
  auto bad = decodePodWatchEvent(R"({"type":"MODIFIED","object":)" + badPod.dump() + "}");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "object.spec.containers[0].resources.limits.cpu");

  Json deferredBad = {{"object", badPod}, {"type", "MODIFIED"}};
  auto bad2 = decodePodWatchEvent(deferredBad.dump());
  ASSERT_FALSE(bad2);
  EXPECT_EQ(bad2.error().field, "object.spec.containers[0].resources.limits.cpu");

  EXPECT_FALSE(decodePodWatchEvent(R"({"object":{}})"));
}

TEST(K8sPodDecode, EscapedStringsAndKeysAreUnescaped) {
  auto pod = decodePod(
      R"({"metadata":{"name":"a\"b","annotations":{"x\/y":"line1\nline2 \u00e9"}},"spec":{}})");
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->metadata.name, "a\"b");
  EXPECT_EQ(pod->metadata.annotations.at("x/y"), "line1\nline2 \xc3\xa9");
}

}  // namespace
}  // namespace attune::api
