// api::decodeWatchEventHead: the type and the object's namespace and resourceVersion of a watch
// line, read the way decodeWatchEvent reads the whole line (fields in either order), with the
// same errors for a missing or unknown type.
#include "api/k8s/watch_head.h"

#include <gtest/gtest.h>

#include "api/k8s/decode.h"
#include "support/pod_json.h"

namespace attune::api {
namespace {

TEST(WatchEventHead, ReadsTheTypeNamespaceAndResourceVersionOfARealPodEvent) {
  auto pod = attune::testing::realisticPod(3);
  pod["metadata"]["namespace"] = "team-7";
  pod["metadata"]["resourceVersion"] = "4711";
  const std::string line = R"({"type":"MODIFIED","object":)" + pod.dump() + "}";
  auto head = decodeWatchEventHead(line);
  ASSERT_TRUE(head) << head.error().toString();
  EXPECT_EQ(head->type, WatchEventType::kModified);
  EXPECT_EQ(head->namespace_, "team-7");
  EXPECT_EQ(head->resourceVersion, "4711");
  // The same as the full decode says.
  auto full = decodeWatchEvent<Pod>(line);
  ASSERT_TRUE(full) << full.error().toString();
  EXPECT_EQ(full->object.metadata.namespace_, head->namespace_);
  EXPECT_EQ(full->object.metadata.resourceVersion, head->resourceVersion);
}

TEST(WatchEventHead, TheObjectMayComeBeforeTheType) {
  auto head = decodeWatchEventHead(
      R"({"object":{"kind":"Deployment","metadata":{"resourceVersion":"9","namespace":"a",)"
      R"("name":"web"},"spec":{"replicas":3}},"type":"DELETED"})");
  ASSERT_TRUE(head) << head.error().toString();
  EXPECT_EQ(head->type, WatchEventType::kDeleted);
  EXPECT_EQ(head->namespace_, "a");
  EXPECT_EQ(head->resourceVersion, "9");
}

TEST(WatchEventHead, ClusterScopedObjectsAndBookmarksHaveNoNamespace) {
  auto node = decodeWatchEventHead(
      R"({"type":"ADDED","object":{"kind":"Node","metadata":{"name":"n1","resourceVersion":"5"}}})");
  ASSERT_TRUE(node) << node.error().toString();
  EXPECT_EQ(node->namespace_, "");
  EXPECT_EQ(node->resourceVersion, "5");
  auto bookmark =
      decodeWatchEventHead(R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"8"}}})");
  ASSERT_TRUE(bookmark) << bookmark.error().toString();
  EXPECT_EQ(bookmark->type, WatchEventType::kBookmark);
  EXPECT_EQ(bookmark->resourceVersion, "8");
}

TEST(WatchEventHead, AMissingOrUnknownTypeIsAnErrorAtType) {
  auto missing = decodeWatchEventHead(R"({"object":{"metadata":{"namespace":"a"}}})");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(missing.error().field, "type");
  auto unknown = decodeWatchEventHead(R"({"type":"RENAMED","object":{}})");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().field, "type");
  auto wrongType =
      decodeWatchEventHead(R"({"type":"ADDED","object":{"metadata":{"namespace":1}}})");
  ASSERT_FALSE(wrongType);
  EXPECT_EQ(wrongType.error().field, "object.metadata.namespace");
  EXPECT_FALSE(decodeWatchEventHead("{\"type\":\"ADDED\",").has_value());
}

}  // namespace
}  // namespace attune::api
