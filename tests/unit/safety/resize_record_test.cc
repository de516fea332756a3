// The resize record written on a pod before it is resized: annotations round-trip, and every
// malformed annotation is reported with its key.
#include "safety/resize_record.h"

#include <gtest/gtest.h>

#include "safety/annotations.h"
#include "safety_testing.h"

namespace attune::safety {
namespace {

using namespace testing;

// The pod with `changes` applied to its annotations.
api::Pod annotated(api::Pod pod, const api::AnnotationChanges& changes) {
  for (const auto& [k, v] : changes) {
    if (v) {
      pod.metadata.annotations[k] = *v;
    } else {
      pod.metadata.annotations.erase(k);
    }
  }
  return pod;
}

TEST(ResizeRecord, EncodesTheKeysOfThePublicOperator) {
  auto changes = encodeResizeAnnotations(appRecord());
  ASSERT_TRUE(changes) << changes.error().toString();
  EXPECT_EQ(changes->at("attune.io/resized-at"), "2025-03-01T12:00:00Z");
  EXPECT_EQ(changes->at("attune.io/resized-containers"), "app");
  EXPECT_EQ(changes->at("attune.io/resized-workload"), "web");
  EXPECT_EQ(changes->at("attune.io/policy"), "web-policy");
  EXPECT_EQ(changes->at("attune.io/original-cpu-request.app"), "500m");
  EXPECT_EQ(changes->at("attune.io/original-memory-request.app"), "512Mi");
  EXPECT_EQ(changes->at("attune.io/original-cpu-limit.app"), "1");
  EXPECT_EQ(changes->at("attune.io/original-memory-limit.app"), "1Gi");
  EXPECT_EQ(changes->at("attune.io/original-restart-count.app"), "3");
  EXPECT_EQ(changes->at("attune.io/target-cpu-request.app"), "250m");
  EXPECT_EQ(changes->at("attune.io/target-memory-limit.app"), "768Mi");
}

TEST(ResizeRecord, RoundTripsThroughPodAnnotations) {
  ResizeRecord record = appRecord();
  record.resizedAt += 250ms;  // sub-second resize times survive
  ContainerRecord worker;
  worker.name = "worker";
  worker.original.cpuRequest = 100_m;  // no limits, no memory request
  worker.target.cpuRequest = 150_m;
  worker.restartCount = 0;
  record.containers.push_back(worker);

  auto changes = encodeResizeAnnotations(record);
  ASSERT_TRUE(changes);
  EXPECT_FALSE(changes->contains("attune.io/original-cpu-limit.worker"));
  auto decoded = decodeResizeRecord(annotated(runningPod(), *changes));
  ASSERT_TRUE(decoded) << decoded.error().toString();
  ASSERT_TRUE(decoded->has_value());
  EXPECT_EQ(**decoded, record);
}

TEST(ResizeRecord, AbsentWithoutResizedAt) {
  auto decoded = decodeResizeRecord(runningPod());
  ASSERT_TRUE(decoded);
  EXPECT_FALSE(decoded->has_value());
  EXPECT_FALSE(hasResizeRecord(runningPod()));
}

TEST(ResizeRecord, ReportsTheMalformedAnnotationAsTheField) {
  const api::Pod good = annotated(runningPod(), encodeResizeAnnotations(appRecord()).value());
  struct Case {
    std::string key;
    std::optional<std::string> value;  // nullopt: delete
  };
  for (const Case& c : std::vector<Case>{
           {"attune.io/resized-at", "yesterday"},
           {"attune.io/resized-containers", std::nullopt},
           {"attune.io/resized-containers", " , "},
           {"attune.io/resized-containers", "app,app"},
           {"attune.io/original-restart-count.app", std::nullopt},
           {"attune.io/original-restart-count.app", "-1"},
           {"attune.io/original-restart-count.app", "3x"},
           {"attune.io/original-cpu-request.app", "lots"},
           {"attune.io/target-memory-request.app", "-5Mi"},
       }) {
    auto decoded = decodeResizeRecord(annotated(good, {{c.key, c.value}}));
    ASSERT_FALSE(decoded) << c.key << "=" << c.value.value_or("<deleted>");
    EXPECT_EQ(decoded.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(decoded.error().field, c.key);
  }
}

TEST(ResizeRecord, RefusesRecordsTheApiServerWouldReject) {
  ResizeRecord empty = appRecord();
  empty.containers.clear();
  EXPECT_FALSE(encodeResizeAnnotations(empty));

  ResizeRecord repeated = appRecord();
  repeated.containers.push_back(repeated.containers[0]);
  EXPECT_FALSE(encodeResizeAnnotations(repeated));

  ResizeRecord longName = appRecord();
  longName.containers[0].name = std::string(40, 'c');  // "original-memory-request." + 40 > 63
  auto encoded = encodeResizeAnnotations(longName);
  ASSERT_FALSE(encoded);
  EXPECT_EQ(encoded.error().field, "attune.io/original-restart-count." + std::string(40, 'c'));
}

TEST(ResizeRecord, ClearRemovesEveryRecordKeyAndNothingElse) {
  api::Pod pod = annotated(runningPod(), encodeResizeAnnotations(appRecord()).value());
  pod.metadata.annotations["attune.io/original-cpu-request.gone"] = "garbage";
  pod.metadata.annotations["attune.io/skip"] = "false";
  pod.metadata.annotations["team.io/owner"] = "me";
  const api::Pod cleared = annotated(pod, clearResizeAnnotations(pod));
  EXPECT_EQ(cleared.metadata.annotations,
            (api::StringMap{{"attune.io/skip", "false"}, {"team.io/owner", "me"}}));
}

TEST(ResizeRecord, ReplaceDropsTheKeysOfAnEarlierRecord) {
  ResizeRecord earlier = appRecord();
  earlier.containers[0].name = "old";
  api::Pod pod = annotated(runningPod(), encodeResizeAnnotations(earlier).value());
  auto changes = replaceResizeAnnotations(pod, appRecord());
  ASSERT_TRUE(changes);
  const api::Pod next = annotated(pod, *changes);
  EXPECT_FALSE(next.metadata.annotations.contains("attune.io/original-cpu-request.old"));
  EXPECT_EQ(decodeResizeRecord(next).value().value(), appRecord());
}

}  // namespace
}  // namespace attune::safety
