// Encoders of what Attune writes, checked by content and by round trip through the decoders.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "api/k8s/encode.h"
#include "api/k8s/patch.h"

namespace attune::api {
namespace {

using Json = nlohmann::json;

Time at(const char* text) { return *parseRfc3339(text); }
Quantity q(const char* text) { return *Quantity::parse(text); }

TEST(K8sPatch, AnnotationsMergePatchSetsAndDeletes) {
  std::string patch = encodeAnnotationsMergePatch(
      {{"attune.io/resized-at", "2025-03-01T10:00:00Z"}, {"attune.io/original", std::nullopt}});
  EXPECT_EQ(patch, R"({"metadata":{"annotations":{"attune.io/original":null,)"
                   R"("attune.io/resized-at":"2025-03-01T10:00:00Z"}}})");
  auto pod = decodePod(patch);  // a merge patch is a partial object
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->metadata.annotations.size(), 1u);
}

TEST(K8sPatch, JsonPointerEscaping) {
  EXPECT_EQ(escapeJsonPointerToken("attune.io/resized-at"), "attune.io~1resized-at");
  EXPECT_EQ(escapeJsonPointerToken("a~b/c"), "a~0b~1c");
  EXPECT_EQ(escapeJsonPointerToken("~1"), "~01");
  EXPECT_EQ(jsonPointer({"metadata", "annotations", "attune.io/x"}),
            "/metadata/annotations/attune.io~1x");
  EXPECT_EQ(jsonPointer({"spec", "containers", "0", "resources"}), "/spec/containers/0/resources");
  EXPECT_EQ(jsonPointer({}), "");
  EXPECT_EQ(jsonPointer({""}), "/");
}

TEST(K8sPatch, JsonPatchOps) {
  ResourceRequirements r;
  r.requests.cpu = q("250m");
  r.requests.memory = q("512Mi");
  r.limits.memory = q("1Gi");
  std::vector<JsonPatchOp> ops = {
      {JsonPatchOpType::kTest, jsonPointer({"metadata", "uid"}), jsonString("abc-123")},
      {JsonPatchOpType::kReplace, jsonPointer({"spec", "containers", "0", "resources"}),
       jsonResourceRequirements(r)},
      {JsonPatchOpType::kAdd, jsonPointer({"metadata", "annotations", "attune.io/mode"}),
       jsonString("say \"hi\"")},
      {JsonPatchOpType::kRemove, jsonPointer({"metadata", "annotations", "old~key"}), ""},
  };
  auto patch = encodeJsonPatch(ops);
  ASSERT_TRUE(patch) << patch.error().toString();
  Json doc = Json::parse(*patch);
  ASSERT_EQ(doc.size(), 4u);
  EXPECT_EQ(doc[0], Json({{"op", "test"}, {"path", "/metadata/uid"}, {"value", "abc-123"}}));
  EXPECT_EQ(doc[1]["op"], "replace");
  EXPECT_EQ(doc[1]["value"], Json({{"requests", {{"cpu", "250m"}, {"memory", "512Mi"}}},
                                   {"limits", {{"memory", "1Gi"}}}}));
  EXPECT_EQ(doc[2]["path"], "/metadata/annotations/attune.io~1mode");
  EXPECT_EQ(doc[2]["value"], "say \"hi\"");
  EXPECT_EQ(doc[3], Json({{"op", "remove"}, {"path", "/metadata/annotations/old~0key"}}));

  ops[1].value = "{not json";
  auto bad = encodeJsonPatch(ops);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "[1].value");
}

TEST(K8sEncode, ResizePatchRoundTrip) {
  std::vector<ResizePatchContainer> resize(2);
  resize[0].name = "app";
  resize[0].resources.requests.cpu = q("300m");
  resize[0].resources.requests.memory = q("600Mi");
  resize[0].resources.limits.cpu = q("1500m");
  resize[0].resources.limits.memory = q("1Gi");
  resize[1].name = "istio-proxy";
  resize[1].initContainer = true;
  resize[1].resources.requests.cpu = q("50m");
  std::string body = encodeResizePatch(resize);
  EXPECT_EQ(Json::parse(body)["spec"]["containers"][0]["resources"]["limits"]["cpu"], "1500m");
  auto pod = decodePod(body);
  ASSERT_TRUE(pod) << pod.error().toString();
  ASSERT_EQ(pod->spec.containers.size(), 1u);
  ASSERT_EQ(pod->spec.initContainers.size(), 1u);
  EXPECT_EQ(pod->spec.containers[0].name, "app");
  EXPECT_EQ(pod->spec.containers[0].resources, resize[0].resources);
  EXPECT_EQ(pod->spec.initContainers[0].name, "istio-proxy");
  EXPECT_EQ(pod->spec.initContainers[0].resources, resize[1].resources);
}

TEST(K8sEncode, EventRoundTrip) {
  Event e;
  e.metadata.name = "web-7d4b9c-abcde.17f2a3b4c5d6e7f8";
  e.metadata.namespace_ = "shop";
  e.involvedObject = {.apiVersion = "v1",
                      .kind = "Pod",
                      .namespace_ = "shop",
                      .name = "web-7d4b9c-abcde",
                      .uid = "4f1c2d3e-0000-4000-8000-123456789abc",
                      .resourceVersion = "1234"};
  e.reason = "ResizeApplied";
  e.message = "cpu 250m→300m, memory 512Mi→600Mi (container app)";
  e.type = "Normal";
  e.action = "Resize";
  e.sourceComponent = "attune";
  e.firstTimestamp = at("2025-03-01T10:00:00Z");
  e.lastTimestamp = at("2025-03-01T10:05:00Z");
  e.eventTime = at("2025-03-01T10:00:00.123456Z");
  e.count = 3;
  e.reportingComponent = "attune.io/attune";
  e.reportingInstance = "attune-5c9f8-xk2lp";
  std::string json = encodeEvent(e);
  Json doc = Json::parse(json);
  EXPECT_EQ(doc["apiVersion"], "v1");
  EXPECT_EQ(doc["kind"], "Event");
  EXPECT_EQ(doc["source"]["component"], "attune");
  EXPECT_EQ(doc["firstTimestamp"], "2025-03-01T10:00:00Z");
  EXPECT_EQ(doc["eventTime"], "2025-03-01T10:00:00.123456Z");
  auto back = decodeEvent(json);
  ASSERT_TRUE(back) << back.error().toString();
  EXPECT_EQ(*back, e);
}

TEST(K8sEncode, LeaseRoundTripWithMicroTime) {
  Lease lease;
  lease.metadata.name = "attune-leader";
  lease.metadata.namespace_ = "attune-system";
  lease.metadata.resourceVersion = "777";
  lease.spec.holderIdentity = "attune-5c9f8-xk2lp_0b7e";
  lease.spec.leaseDurationSeconds = 15;
  lease.spec.acquireTime = at("2025-03-01T10:00:00.000001Z");
  lease.spec.renewTime = at("2025-03-01T10:00:12.500000Z");
  lease.spec.leaseTransitions = 4;
  std::string json = encodeLease(lease);
  Json doc = Json::parse(json);
  EXPECT_EQ(doc["apiVersion"], "coordination.k8s.io/v1");
  EXPECT_EQ(doc["spec"]["renewTime"], "2025-03-01T10:00:12.500000Z");
  EXPECT_EQ(doc["spec"]["acquireTime"], "2025-03-01T10:00:00.000001Z");
  EXPECT_EQ(doc["metadata"]["resourceVersion"], "777");
  auto back = decodeLease(json);
  ASSERT_TRUE(back) << back.error().toString();
  EXPECT_EQ(*back, lease);
}

TEST(K8sEncode, EvictionRoundTrip) {
  Eviction eviction;
  eviction.metadata.name = "web-7d4b9c-abcde";
  eviction.metadata.namespace_ = "shop";
  eviction.deleteOptions = DeleteOptions{.gracePeriodSeconds = 30,
                                         .preconditionUid = "4f1c2d3e",
                                         .preconditionResourceVersion = "",
                                         .dryRun = {"All"}};
  std::string json = encodeEviction(eviction);
  Json doc = Json::parse(json);
  EXPECT_EQ(doc["apiVersion"], "policy/v1");
  EXPECT_EQ(doc["kind"], "Eviction");
  EXPECT_EQ(doc["deleteOptions"]["preconditions"]["uid"], "4f1c2d3e");
  auto back = decodeEviction(json);
  ASSERT_TRUE(back) << back.error().toString();
  EXPECT_EQ(*back, eviction);
}

TEST(K8sEncode, AdmissionResponseRoundTrip) {
  for (std::string patch :
       {std::string(R"([{"op":"add","path":"/a","value":1}])"), std::string("x"), std::string("xy"),
        std::string("xyz"), std::string("")}) {
    AdmissionResponse response;
    response.uid = "705ab4f5-6393-11e8-b7cc-42010a800002";
    response.allowed = true;
    response.patch = patch;
    if (!patch.empty()) response.patchType = "JSONPatch";
    std::string json = encodeAdmissionReviewResponse(response);
    Json doc = Json::parse(json);
    EXPECT_EQ(doc["apiVersion"], "admission.k8s.io/v1");
    EXPECT_EQ(doc["kind"], "AdmissionReview");
    EXPECT_EQ(doc["response"].contains("patchType"), !patch.empty());
    auto back = decodeAdmissionReview(json);
    ASSERT_TRUE(back) << back.error().toString();
    ASSERT_TRUE(back->response.has_value());
    EXPECT_EQ(*back->response, response) << patch;
  }
  Json doc = Json::parse(encodeAdmissionReviewResponse(
      {.uid = "u", .allowed = true, .status = std::nullopt, .patch = "[]", .patchType = ""}));
  EXPECT_EQ(doc["response"]["patch"], "W10=");
  EXPECT_EQ(doc["response"]["patchType"], "JSONPatch");

  AdmissionResponse denied{.uid = "u2",
                           .allowed = false,
                           .status = ApiStatus{.status = "Failure",
                                               .message = "resize would exceed the LimitRange",
                                               .reason = "Forbidden",
                                               .code = 403}};
  auto back = decodeAdmissionReview(encodeAdmissionReviewResponse(denied));
  ASSERT_TRUE(back) << back.error().toString();
  EXPECT_EQ(*back->response, denied);
}

TEST(K8sDecode, AdmissionRequestObjectDecodesAsPod) {
  const char* review = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
    "request":{"uid":"abc","kind":{"group":"","version":"v1","kind":"Pod"},
      "resource":{"group":"","version":"v1","resource":"pods"},"namespace":"shop",
      "operation":"CREATE","userInfo":{"username":"system:serviceaccount:kube-system:replicaset-controller"},
      "object":{"metadata":{"generateName":"web-"},"spec":{"containers":[{"name":"app",
        "resources":{"requests":{"cpu":"100m"}}}]}} ,
      "oldObject":null,"dryRun":false}})";
  auto decoded = decodeAdmissionReview(review);
  ASSERT_TRUE(decoded) << decoded.error().toString();
  const AdmissionRequest& req = *decoded->request;
  EXPECT_EQ(req.operation, "CREATE");
  EXPECT_EQ(req.resource.resource, "pods");
  EXPECT_TRUE(req.oldObject.empty());
  EXPECT_EQ(req.object.back(), '}');
  auto pod = decodePod(req.object);
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->metadata.generateName, "web-");
  EXPECT_EQ(pod->spec.containers.at(0).resources.requests.cpu->toMillicores(), Millicores(100));
}

TEST(K8sDecode, HpaWithUnknownMetricTypeAndBehavior) {
  auto hpa = decodeHorizontalPodAutoscaler(R"({"apiVersion":"autoscaling/v2",
    "kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"shop"},
    "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "minReplicas":2,"maxReplicas":20,
      "metrics":[
        {"type":"ContainerResource","containerResource":{"name":"cpu","container":"app",
          "target":{"type":"Utilization","averageUtilization":60}}},
        {"type":"Resource","resource":{"name":"memory",
          "target":{"type":"AverageValue","averageValue":"700Mi"}}},
        {"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"100"}}},
        {"type":"Object","object":{"describedObject":{"kind":"Ingress","name":"main"},
          "metric":{"name":"requests-per-second"},"target":{"type":"Value","value":"10k"}}},
        {"type":"External","external":{"metric":{"name":"queue_depth",
          "selector":{"matchLabels":{"queue":"orders"}}},"target":{"type":"AverageValue","averageValue":"30"}}},
        {"type":"Quantum","quantum":{"entanglement":{"target":"max"}}}],
      "behavior":{"scaleDown":{"stabilizationWindowSeconds":300,"selectPolicy":"Min",
        "policies":[{"type":"Percent","value":10,"periodSeconds":60},
                    {"type":"Pods","value":2,"periodSeconds":60}]},
        "scaleUp":{"policies":[{"type":"Percent","value":100,"periodSeconds":15}]}}},
    "status":{"currentReplicas":4,"desiredReplicas":5,"currentMetrics":[
      {"type":"ContainerResource","containerResource":{"name":"cpu","container":"app",
        "current":{"averageUtilization":75,"averageValue":"300m"}}}],
      "conditions":[{"type":"AbleToScale","status":"True","reason":"ReadyForNewScale"}]}})");
  ASSERT_TRUE(hpa) << hpa.error().toString();
  ASSERT_EQ(hpa->spec.metrics.size(), 6u);
  const auto& cr = hpa->spec.metrics[0].containerResource;
  ASSERT_TRUE(cr.has_value());
  EXPECT_EQ(cr->container, "app");
  EXPECT_EQ(cr->target.type, "Utilization");
  EXPECT_EQ(cr->target.averageUtilization, 60);
  EXPECT_EQ(hpa->spec.metrics[1].resource->target.averageValue->toBytes(), Bytes(700LL << 20));
  EXPECT_EQ(hpa->spec.metrics[2].pods->metric.name, "rps");
  EXPECT_EQ(hpa->spec.metrics[3].object->target.value->toMillicores(), Millicores(10000000));
  EXPECT_EQ(hpa->spec.metrics[4].external->metric.selector->matchLabels.at("queue"), "orders");
  const MetricSpec& unknown = hpa->spec.metrics[5];
  EXPECT_EQ(unknown.type, "Quantum");
  EXPECT_FALSE(unknown.resource || unknown.containerResource || unknown.pods || unknown.object ||
               unknown.external);
  EXPECT_EQ(hpa->spec.behavior->scaleDown->policies.size(), 2u);
  EXPECT_EQ(hpa->spec.behavior->scaleDown->selectPolicy, "Min");
  EXPECT_FALSE(hpa->spec.behavior->scaleUp->stabilizationWindowSeconds.has_value());
  EXPECT_EQ(hpa->status.currentMetrics[0].containerResource->target.averageUtilization, 75);
  EXPECT_EQ(hpa->status.conditions[0].reason, "ReadyForNewScale");

  auto bad = decodeHorizontalPodAutoscaler(
      R"({"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"averageValue":"1x"}}}]}})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "spec.metrics[0].resource.target.averageValue");
}

TEST(K8sDecode, NodeListAndWorkloadWatch) {
  auto nodes = decodeList<Node>(R"({"kind":"NodeList","metadata":{"resourceVersion":"9"},"items":[
    {"metadata":{"name":"n1","labels":{"node.kubernetes.io/instance-type":"m6i.large"}},
     "spec":{"taints":[{"key":"attune.io/load","value":"high","effect":"PreferNoSchedule"}]},
     "status":{"capacity":{"cpu":"2","memory":"8Gi","pods":"110"},
               "allocatable":{"cpu":"1930m","memory":"7484Mi","pods":"110"},
               "conditions":[{"type":"Ready","status":"True"}],
               "nodeInfo":{"kubeletVersion":"v1.33.1"}}}]})");
  ASSERT_TRUE(nodes) << nodes.error().toString();
  ASSERT_EQ(nodes->items.size(), 1u);
  const Node& n = nodes->items[0];
  EXPECT_EQ(n.status.allocatable.cpu->toMillicores(), Millicores(1930));
  EXPECT_EQ(n.status.capacity.find("pods")->toBytes(), Bytes(110));
  EXPECT_EQ(n.spec.taints[0].effect, "PreferNoSchedule");
  EXPECT_EQ(n.status.kubeletVersion, "v1.33.1");

  auto watch = decodeWatchEvent<Deployment>(R"({"type":"MODIFIED","object":{
    "metadata":{"name":"web","generation":5},
    "spec":{"replicas":3,"strategy":{"type":"RollingUpdate"},"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app"}]}}},
    "status":{"observedGeneration":4,"replicas":3,"updatedReplicas":1,"readyReplicas":3}}})");
  ASSERT_TRUE(watch) << watch.error().toString();
  EXPECT_EQ(watch->object.spec.strategyType, "RollingUpdate");
  EXPECT_EQ(watch->object.metadata.generation, 5);
  EXPECT_EQ(watch->object.status.observedGeneration, 4);
  EXPECT_EQ(watch->object.spec.template_.spec.containers[0].name, "app");
}

}  // namespace
}  // namespace attune::api
