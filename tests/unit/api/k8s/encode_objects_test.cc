// encode_objects.h: every kind's encoder round-trips through its decoder, on the real wire
// fixtures of ../shared/fixtures/k8s-api and on values built here; lists, watch events and
// Status bodies decode with the existing list, watch and status decoders.
#include "api/k8s/encode_objects.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

using ::attune::testing::readFile;

// decode(fixture) == decode(encode(decode(fixture))), and the encoding names its kind.
template <typename T>
void expectRoundTrip(const std::filesystem::path& shared, const char* file,
                     Result<T> (*decode)(std::string_view)) {
  SCOPED_TRACE(file);
  auto original = decode(readFile(shared / "fixtures" / "k8s-api" / file));
  ASSERT_TRUE(original) << original.error().toString();
  const std::string encoded = encodeObjectJson(*original);
  auto again = decode(encoded);
  ASSERT_TRUE(again) << again.error().toString() << "\n" << encoded;
  EXPECT_EQ(*again, *original) << encoded;
  const auto json = nlohmann::json::parse(encoded);
  const TypeMeta meta = typeMetaOf(*original);
  EXPECT_EQ(json["apiVersion"], meta.apiVersion);
  EXPECT_EQ(json["kind"], meta.kind);
}

TEST(EncodeObjects, EveryFixtureRoundTrips) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  expectRoundTrip(shared, "core.v1.Pod.json", &decodePod);
  expectRoundTrip(shared, "core.v1.Node.json", &decodeNode);
  expectRoundTrip(shared, "core.v1.Namespace.json", &decodeNamespace);
  expectRoundTrip(shared, "core.v1.LimitRange.json", &decodeLimitRange);
  expectRoundTrip(shared, "core.v1.ResourceQuota.json", &decodeResourceQuota);
  expectRoundTrip(shared, "core.v1.Event.json", &decodeEvent);
  expectRoundTrip(shared, "events.k8s.io.v1.Event.json", &decodeEvent);
  expectRoundTrip(shared, "apps.v1.Deployment.json", &decodeDeployment);
  expectRoundTrip(shared, "apps.v1.StatefulSet.json", &decodeStatefulSet);
  expectRoundTrip(shared, "apps.v1.DaemonSet.json", &decodeDaemonSet);
  expectRoundTrip(shared, "apps.v1.ReplicaSet.json", &decodeReplicaSet);
  expectRoundTrip(shared, "batch.v1.Job.json", &decodeJob);
  expectRoundTrip(shared, "batch.v1.CronJob.json", &decodeCronJob);
  expectRoundTrip(shared, "autoscaling.v2.HorizontalPodAutoscaler.json",
                  &decodeHorizontalPodAutoscaler);
  expectRoundTrip(shared, "coordination.k8s.io.v1.Lease.json", &decodeLease);
}

Pod samplePod() {
  Pod pod;
  pod.metadata.name = "web-1";
  pod.metadata.namespace_ = "shop";
  pod.metadata.resourceVersion = "42";
  pod.metadata.labels["app"] = "web";
  Container c;
  c.name = "app";
  c.image = "registry/app:1";
  c.resources.requests.cpu = Quantity::parse("250m").value();
  c.resources.limits.memory = Quantity::parse("512Mi").value();
  c.resizePolicy.push_back({"cpu", "NotRequired"});
  pod.spec.containers.push_back(c);
  pod.spec.nodeName = "n1";
  pod.status.phase = "Running";
  pod.status.qosClass = "Burstable";
  ContainerStatus s;
  s.name = "app";
  s.ready = true;
  s.restartCount = 2;
  s.state.running = ContainerStateRunning{parseRfc3339("2025-01-01T00:00:00Z").value()};
  s.lastState.terminated = ContainerStateTerminated{137, "OOMKilled", "", {}, {}};
  pod.status.containerStatuses.push_back(s);
  pod.status.conditions.push_back({"Ready", "True", "", "", {}, 0});
  return pod;
}

TEST(EncodeObjects, BuiltPodRoundTripsWithZeroValuedFieldsKept) {
  const Pod pod = samplePod();
  auto again = decodePod(encodeObjectJson(pod));
  ASSERT_TRUE(again) << again.error().toString();
  EXPECT_EQ(*again, pod);
}

TEST(EncodeObjects, ListDecodesWithTheListDecoder) {
  List<Pod> list{{samplePod(), samplePod()}, "77", "", {}};
  list.items[1].metadata.name = "web-2";
  const std::string json = encodeListJson(list);
  auto decoded = decodePodList(json);
  ASSERT_TRUE(decoded) << decoded.error().toString();
  EXPECT_EQ(decoded->resourceVersion, "77");
  ASSERT_EQ(decoded->items.size(), 2u);
  EXPECT_EQ(decoded->items[1], list.items[1]);
  EXPECT_EQ(nlohmann::json::parse(json)["kind"], "PodList");
}

TEST(EncodeObjects, EmptyListHasAnEmptyItemsArray) {
  const std::string json = encodeListJson(List<Node>{{}, "5", "", {}});
  EXPECT_EQ(nlohmann::json::parse(json)["items"], nlohmann::json::array());
}

TEST(EncodeObjects, WatchEventDecodesWithTheWatchDecoder) {
  WatchEvent<Pod> event{WatchEventType::kModified, samplePod(), {}};
  auto decoded = decodePodWatchEvent(encodeWatchEventJson(event));
  ASSERT_TRUE(decoded) << decoded.error().toString();
  EXPECT_EQ(decoded->type, WatchEventType::kModified);
  EXPECT_EQ(decoded->object, event.object);

  WatchEvent<Pod> gone{WatchEventType::kError, {}, {"Failure", "too old", "Expired", 410}};
  auto error = decodePodWatchEvent(encodeWatchEventJson(gone));
  ASSERT_TRUE(error) << error.error().toString();
  EXPECT_EQ(error->type, WatchEventType::kError);
  EXPECT_EQ(error->status, gone.status);
}

TEST(EncodeObjects, StatusDecodesAndCarriesCauses) {
  const ApiStatus status{"Failure", "AttunePolicy \"p\" is invalid", "Invalid", 422};
  StatusDetails details;
  details.name = "p";
  details.group = "attune.io";
  details.kind = "attunepolicies";
  details.causes.push_back({"FieldValueInvalid", "Invalid value: -1", "spec.cpu.minAllowed"});
  const std::string json = encodeStatusJson(status, details);
  auto decoded = decodeApiStatus(json);
  ASSERT_TRUE(decoded) << decoded.error().toString();
  EXPECT_EQ(*decoded, status);
  const auto j = nlohmann::json::parse(json);
  EXPECT_EQ(j["kind"], "Status");
  EXPECT_EQ(j["details"]["causes"][0]["field"], "spec.cpu.minAllowed");
  EXPECT_EQ(j["details"]["causes"][0]["reason"], "FieldValueInvalid");
}

}  // namespace
}  // namespace attune::api
