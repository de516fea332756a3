// Every wire fixture of ../shared/fixtures/k8s-api decodes with its decoder, and the values
// land in the right fields. The fixtures fill every field with placeholders ("nameValue",
// quantities "0", timestamps in 2008), so they check field names and nesting, not behaviour.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "api/k8s/decode.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

using ::attune::testing::readFile;

Time at(const char* text) { return *parseRfc3339(text); }

std::string fixture(const std::filesystem::path& shared, const char* name) {
  return readFile(shared / "fixtures" / "k8s-api" / name);
}

// Decodes with the decoder for the file, returning the error text (empty on success).
template <typename T>
std::function<std::string(std::string_view)> check(Result<T> (*decode)(std::string_view)) {
  return [decode](std::string_view json) -> std::string {
    auto result = decode(json);
    return result ? std::string() : result.error().toString();
  };
}

TEST(K8sFixtures, EveryFixtureDecodesWithoutError) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  const std::map<std::string, std::function<std::string(std::string_view)>> decoders = {
      {"admission.k8s.io.v1.AdmissionReview.json", check(&decodeAdmissionReview)},
      {"admissionregistration.k8s.io.v1.MutatingWebhookConfiguration.json",
       check(&decodeMutatingWebhookConfiguration)},
      {"apps.v1.DaemonSet.json", check(&decodeDaemonSet)},
      {"apps.v1.Deployment.json", check(&decodeDeployment)},
      {"apps.v1.ReplicaSet.json", check(&decodeReplicaSet)},
      {"apps.v1.StatefulSet.json", check(&decodeStatefulSet)},
      {"autoscaling.v2.HorizontalPodAutoscaler.json", check(&decodeHorizontalPodAutoscaler)},
      {"batch.v1.CronJob.json", check(&decodeCronJob)},
      {"batch.v1.Job.json", check(&decodeJob)},
      {"coordination.k8s.io.v1.Lease.json", check(&decodeLease)},
      {"core.v1.Event.json", check(&decodeEvent)},
      {"core.v1.LimitRange.json", check(&decodeLimitRange)},
      {"core.v1.Namespace.json", check(&decodeNamespace)},
      {"core.v1.Node.json", check(&decodeNode)},
      {"core.v1.Pod.json", check(&decodePod)},
      {"core.v1.ResourceQuota.json", check(&decodeResourceQuota)},
      {"events.k8s.io.v1.Event.json", check(&decodeEvent)},
      {"policy.v1.Eviction.json", check(&decodeEviction)},
  };
  int decoded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared / "fixtures" / "k8s-api")) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().filename().string();
    auto it = decoders.find(name);
    ASSERT_NE(it, decoders.end()) << "no decoder registered for fixture " << name;
    EXPECT_EQ(it->second(readFile(entry.path())), "") << name;
    ++decoded;
  }
  EXPECT_EQ(decoded, static_cast<int>(decoders.size()));
}

TEST(K8sFixtures, PodFieldsLandWhereExpected) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  auto pod = decodePod(fixture(shared, "core.v1.Pod.json"));
  ASSERT_TRUE(pod) << pod.error().toString();
  const ObjectMeta& m = pod->metadata;
  EXPECT_EQ(m.name, "nameValue");
  EXPECT_EQ(m.namespace_, "namespaceValue");
  EXPECT_EQ(m.uid, "uidValue");
  EXPECT_EQ(m.resourceVersion, "resourceVersionValue");
  EXPECT_EQ(m.generation, 7);
  EXPECT_EQ(m.labels.at("labelsKey"), "labelsValue");
  EXPECT_EQ(m.annotations.at("annotationsKey"), "annotationsValue");
  ASSERT_EQ(m.ownerReferences.size(), 1u);
  EXPECT_EQ(m.ownerReferences[0].kind, "kindValue");
  EXPECT_TRUE(m.ownerReferences[0].controller);
  EXPECT_EQ(m.creationTimestamp, at("2008-01-01T01:01:01Z"));
  EXPECT_EQ(m.deletionTimestamp, at("2009-01-01T01:01:01Z"));

  const PodSpec& spec = pod->spec;
  ASSERT_EQ(spec.containers.size(), 1u);
  ASSERT_EQ(spec.initContainers.size(), 1u);
  const Container& c = spec.containers[0];
  EXPECT_EQ(c.name, "nameValue");
  EXPECT_EQ(c.image, "imageValue");
  ASSERT_NE(c.resources.requests.find("requestsKey"), nullptr);
  EXPECT_TRUE(c.resources.requests.find("requestsKey")->isZero());
  EXPECT_NE(c.resources.limits.find("limitsKey"), nullptr);
  ASSERT_EQ(c.resizePolicy.size(), 1u);
  EXPECT_EQ(c.resizePolicy[0].resourceName, "resourceNameValue");
  EXPECT_EQ(c.resizePolicy[0].restartPolicy, "restartPolicyValue");
  EXPECT_EQ(spec.initContainers[0].restartPolicy, "restartPolicyValue");
  EXPECT_EQ(spec.nodeName, "nodeNameValue");
  EXPECT_EQ(spec.priority, 25);
  EXPECT_EQ(spec.priorityClassName, "priorityClassNameValue");
  EXPECT_EQ(spec.schedulerName, "schedulerNameValue");
  ASSERT_TRUE(spec.resources.has_value());
  EXPECT_NE(spec.overhead.find("overheadKey"), nullptr);

  const PodStatus& st = pod->status;
  EXPECT_EQ(st.phase, "phaseValue");
  EXPECT_EQ(st.qosClass, "qosClassValue");
  EXPECT_EQ(st.observedGeneration, 17);
  EXPECT_EQ(st.resize, "resizeValue");
  ASSERT_EQ(st.conditions.size(), 1u);
  EXPECT_EQ(st.conditions[0].type, "typeValue");
  EXPECT_EQ(st.conditions[0].observedGeneration, 7);
  EXPECT_EQ(st.conditions[0].lastTransitionTime, at("2004-01-01T01:01:01Z"));
  ASSERT_EQ(st.containerStatuses.size(), 1u);
  ASSERT_EQ(st.initContainerStatuses.size(), 1u);
  const ContainerStatus& cs = st.containerStatuses[0];
  EXPECT_TRUE(cs.ready);
  EXPECT_EQ(cs.started, true);
  EXPECT_EQ(cs.restartCount, 5);
  ASSERT_TRUE(cs.state.waiting && cs.state.running && cs.state.terminated);
  EXPECT_EQ(cs.state.waiting->reason, "reasonValue");
  EXPECT_EQ(cs.state.running->startedAt, at("2001-01-01T01:01:01Z"));
  EXPECT_EQ(cs.lastState.terminated->exitCode, 1);
  EXPECT_EQ(cs.lastState.terminated->finishedAt, at("2006-01-01T01:01:01Z"));
  ASSERT_TRUE(cs.resources.has_value());
  EXPECT_NE(cs.resources->limits.find("limitsKey"), nullptr);
  EXPECT_NE(cs.allocatedResources.find("allocatedResourcesKey"), nullptr);
}

TEST(K8sFixtures, WorkloadsFieldsLandWhereExpected) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  auto deployment = decodeDeployment(fixture(shared, "apps.v1.Deployment.json"));
  ASSERT_TRUE(deployment) << deployment.error().toString();
  EXPECT_EQ(deployment->spec.replicas, 1);
  EXPECT_EQ(deployment->spec.selector.matchLabels.at("matchLabelsKey"), "matchLabelsValue");
  ASSERT_EQ(deployment->spec.selector.matchExpressions.size(), 1u);
  EXPECT_EQ(deployment->spec.selector.matchExpressions[0].operator_, "operatorValue");
  EXPECT_EQ(deployment->spec.selector.matchExpressions[0].values[0], "valuesValue");
  EXPECT_TRUE(deployment->spec.paused);
  EXPECT_EQ(deployment->spec.template_.spec.containers.at(0).name, "nameValue");
  EXPECT_EQ(deployment->spec.template_.metadata.labels.at("labelsKey"), "labelsValue");
  EXPECT_EQ(deployment->status.observedGeneration, 1);
  EXPECT_EQ(deployment->status.updatedReplicas, 3);
  EXPECT_EQ(deployment->status.readyReplicas, 7);
  EXPECT_EQ(deployment->status.availableReplicas, 4);

  auto daemonSet = decodeDaemonSet(fixture(shared, "apps.v1.DaemonSet.json"));
  ASSERT_TRUE(daemonSet) << daemonSet.error().toString();
  EXPECT_FALSE(daemonSet->spec.replicas.has_value());
  EXPECT_EQ(daemonSet->status.desiredNumberScheduled, 3);
  EXPECT_EQ(daemonSet->status.numberReady, 4);
  EXPECT_EQ(daemonSet->status.updatedNumberScheduled, 6);
  EXPECT_EQ(daemonSet->status.observedGeneration, 5);

  auto statefulSet = decodeStatefulSet(fixture(shared, "apps.v1.StatefulSet.json"));
  ASSERT_TRUE(statefulSet) << statefulSet.error().toString();
  EXPECT_EQ(statefulSet->status.currentReplicas, 4);
  EXPECT_EQ(statefulSet->status.availableReplicas, 11);

  auto replicaSet = decodeReplicaSet(fixture(shared, "apps.v1.ReplicaSet.json"));
  ASSERT_TRUE(replicaSet) << replicaSet.error().toString();
  EXPECT_EQ(replicaSet->status.readyReplicas, 4);

  auto job = decodeJob(fixture(shared, "batch.v1.Job.json"));
  ASSERT_TRUE(job) << job.error().toString();
  EXPECT_EQ(job->spec.parallelism, 1);
  EXPECT_EQ(job->spec.completions, 2);
  EXPECT_EQ(job->status.active, 4);
  EXPECT_EQ(job->status.succeeded, 5);
  EXPECT_EQ(job->status.failed, 6);

  auto cronJob = decodeCronJob(fixture(shared, "batch.v1.CronJob.json"));
  ASSERT_TRUE(cronJob) << cronJob.error().toString();
  EXPECT_EQ(cronJob->spec.schedule, "scheduleValue");
  EXPECT_TRUE(cronJob->spec.suspend);
  EXPECT_EQ(cronJob->spec.jobTemplate.spec.parallelism, 1);
  EXPECT_EQ(cronJob->spec.jobTemplate.spec.template_.spec.containers.at(0).image, "imageValue");
  EXPECT_EQ(cronJob->status.active.at(0).kind, "kindValue");
}

TEST(K8sFixtures, ClusterObjectsFieldsLandWhereExpected) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  auto node = decodeNode(fixture(shared, "core.v1.Node.json"));
  ASSERT_TRUE(node) << node.error().toString();
  EXPECT_TRUE(node->spec.unschedulable);
  ASSERT_EQ(node->spec.taints.size(), 1u);
  EXPECT_EQ(node->spec.taints[0].effect, "effectValue");
  EXPECT_NE(node->status.capacity.find("capacityKey"), nullptr);
  EXPECT_NE(node->status.allocatable.find("allocatableKey"), nullptr);
  EXPECT_EQ(node->status.conditions.at(0).type, "typeValue");
  EXPECT_EQ(node->status.kubeletVersion, "kubeletVersionValue");

  auto ns = decodeNamespace(fixture(shared, "core.v1.Namespace.json"));
  ASSERT_TRUE(ns) << ns.error().toString();
  EXPECT_EQ(ns->phase, "phaseValue");

  auto limits = decodeLimitRange(fixture(shared, "core.v1.LimitRange.json"));
  ASSERT_TRUE(limits) << limits.error().toString();
  ASSERT_EQ(limits->limits.size(), 1u);
  EXPECT_EQ(limits->limits[0].type, "typeValue");
  EXPECT_NE(limits->limits[0].max.find("maxKey"), nullptr);
  EXPECT_NE(limits->limits[0].min.find("minKey"), nullptr);
  EXPECT_NE(limits->limits[0].default_.find("defaultKey"), nullptr);
  EXPECT_NE(limits->limits[0].defaultRequest.find("defaultRequestKey"), nullptr);
  EXPECT_NE(limits->limits[0].maxLimitRequestRatio.find("maxLimitRequestRatioKey"), nullptr);

  auto quota = decodeResourceQuota(fixture(shared, "core.v1.ResourceQuota.json"));
  ASSERT_TRUE(quota) << quota.error().toString();
  EXPECT_NE(quota->specHard.find("hardKey"), nullptr);
  EXPECT_NE(quota->hard.find("hardKey"), nullptr);
  EXPECT_NE(quota->used.find("usedKey"), nullptr);
  EXPECT_EQ(quota->scopes, std::vector<std::string>{"scopesValue"});
}

TEST(K8sFixtures, HorizontalPodAutoscalerFieldsLandWhereExpected) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  auto hpa =
      decodeHorizontalPodAutoscaler(fixture(shared, "autoscaling.v2.HorizontalPodAutoscaler.json"));
  ASSERT_TRUE(hpa) << hpa.error().toString();
  EXPECT_EQ(hpa->spec.scaleTargetRef.kind, "kindValue");
  EXPECT_EQ(hpa->spec.minReplicas, 2);
  EXPECT_EQ(hpa->spec.maxReplicas, 3);
  ASSERT_EQ(hpa->spec.metrics.size(), 1u);
  const MetricSpec& metric = hpa->spec.metrics[0];
  EXPECT_EQ(metric.type, "typeValue");  // not a type we know: still decoded
  ASSERT_TRUE(metric.containerResource.has_value());
  EXPECT_EQ(metric.containerResource->container, "containerValue");
  EXPECT_EQ(metric.containerResource->target.averageUtilization, 4);
  ASSERT_TRUE(metric.object.has_value());
  EXPECT_EQ(metric.object->describedObject.name, "nameValue");
  EXPECT_EQ(metric.object->metric.selector->matchLabels.at("matchLabelsKey"), "matchLabelsValue");
  ASSERT_TRUE(metric.external && metric.pods && metric.resource);
  EXPECT_TRUE(metric.external->target.value->isZero());
  ASSERT_TRUE(hpa->spec.behavior && hpa->spec.behavior->scaleDown);
  EXPECT_EQ(hpa->spec.behavior->scaleDown->stabilizationWindowSeconds, 3);
  EXPECT_EQ(hpa->spec.behavior->scaleDown->selectPolicy, "selectPolicyValue");
  EXPECT_EQ(hpa->spec.behavior->scaleDown->policies.at(0).periodSeconds, 3);
  EXPECT_EQ(hpa->status.currentReplicas, 3);
  EXPECT_EQ(hpa->status.desiredReplicas, 4);
  EXPECT_EQ(hpa->status.currentMetrics.at(0).containerResource->target.averageUtilization, 3);
  EXPECT_EQ(hpa->status.conditions.at(0).observedGeneration, 6);
}

TEST(K8sFixtures, EventsOfBothApiGroupsDecodeToTheSameShape) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  auto core = decodeEvent(fixture(shared, "core.v1.Event.json"));
  ASSERT_TRUE(core) << core.error().toString();
  EXPECT_EQ(core->involvedObject.fieldPath, "fieldPathValue");
  EXPECT_EQ(core->message, "messageValue");
  EXPECT_EQ(core->sourceComponent, "componentValue");
  EXPECT_EQ(core->count, 8);
  EXPECT_EQ(core->firstTimestamp, at("2006-01-01T01:01:01Z"));
  EXPECT_EQ(core->eventTime, at("2010-01-01T01:01:01.000010Z"));
  EXPECT_EQ(core->reportingComponent, "reportingComponentValue");

  auto events = decodeEvent(fixture(shared, "events.k8s.io.v1.Event.json"));
  ASSERT_TRUE(events) << events.error().toString();
  EXPECT_EQ(events->involvedObject.kind, "kindValue");  // from "regarding"
  EXPECT_EQ(events->message, "noteValue");
  EXPECT_EQ(events->reportingComponent, "reportingControllerValue");
  EXPECT_EQ(events->count, 15);  // deprecatedCount
  EXPECT_EQ(events->firstTimestamp, at("2013-01-01T01:01:01Z"));
  EXPECT_EQ(events->series->count, 1);
}

TEST(K8sFixtures, LeaseEvictionAndAdmissionFieldsLandWhereExpected) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  auto lease = decodeLease(fixture(shared, "coordination.k8s.io.v1.Lease.json"));
  ASSERT_TRUE(lease) << lease.error().toString();
  EXPECT_EQ(lease->spec.holderIdentity, "holderIdentityValue");
  EXPECT_EQ(lease->spec.leaseDurationSeconds, 2);
  EXPECT_EQ(lease->spec.renewTime, at("2004-01-01T01:01:01.000004Z"));
  EXPECT_EQ(lease->spec.leaseTransitions, 5);

  auto eviction = decodeEviction(fixture(shared, "policy.v1.Eviction.json"));
  ASSERT_TRUE(eviction) << eviction.error().toString();
  ASSERT_TRUE(eviction->deleteOptions.has_value());
  EXPECT_EQ(eviction->deleteOptions->gracePeriodSeconds, 1);
  EXPECT_EQ(eviction->deleteOptions->preconditionUid, "uidValue");

  auto review = decodeAdmissionReview(fixture(shared, "admission.k8s.io.v1.AdmissionReview.json"));
  ASSERT_TRUE(review) << review.error().toString();
  ASSERT_TRUE(review->request.has_value());
  const AdmissionRequest& req = *review->request;
  EXPECT_EQ(req.uid, "uidValue");
  EXPECT_EQ(req.kind.kind, "kindValue");
  EXPECT_EQ(req.resource.resource, "resourceValue");
  EXPECT_EQ(req.subResource, "subResourceValue");
  EXPECT_EQ(req.operation, "operationValue");
  EXPECT_EQ(req.username, "usernameValue");
  EXPECT_TRUE(req.dryRun);
  EXPECT_EQ(req.object.front(), '{');
  EXPECT_EQ(req.object.back(), '}');
  EXPECT_NE(req.object.find("\"CustomType\""), std::string::npos);
  EXPECT_NE(req.oldObject.find("\"available\": 1"), std::string::npos);
  ASSERT_TRUE(review->response.has_value());
  EXPECT_EQ(review->response->patch, std::string(1, '\x04'));  // "BA==" decoded
  EXPECT_EQ(review->response->status->code, 6);

  auto webhook = decodeMutatingWebhookConfiguration(
      fixture(shared, "admissionregistration.k8s.io.v1.MutatingWebhookConfiguration.json"));
  ASSERT_TRUE(webhook) << webhook.error().toString();
  ASSERT_EQ(webhook->webhooks.size(), 1u);
  EXPECT_EQ(webhook->webhooks[0].caBundle, "Ag==");
  EXPECT_EQ(webhook->webhooks[0].service->port, 4);
  EXPECT_EQ(webhook->webhooks[0].timeoutSeconds, 7);
}

}  // namespace
}  // namespace attune::api
