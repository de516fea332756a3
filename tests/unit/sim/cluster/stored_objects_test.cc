// Namespaces, AttunePolicies (spec and status subresource), Event updates and HPAs in the
// simulated cluster: the API server's resourceVersion, generation and precondition rules.
#include <gtest/gtest.h>

#include <string>

#include "sim/cluster/cluster.h"

namespace attune::sim {
namespace {

class StoredObjectsTest : public ::testing::Test {
 protected:
  static void expectCode(const auto& result, ErrorCode code) {
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, code) << result.error().toString();
  }

  static api::AttunePolicy policy(std::string ns = "team", std::string name = "web") {
    api::AttunePolicy p;
    p.metadata.namespace_ = std::move(ns);
    p.metadata.name = std::move(name);
    p.spec.targetRef.kind = api::TargetKind::kDeployment;
    p.spec.targetRef.name = "web";
    p.spec.updateStrategy.type = api::UpdateMode::kRecommend;
    return p;
  }

  static api::AttunePolicyStatus readyStatus(std::string reason) {
    api::AttunePolicyStatus status;
    status.conditions.push_back({.type = "Ready", .status = "True", .reason = std::move(reason)});
    status.observedGeneration = 1;
    return status;
  }

  api::Event event() const {
    api::Event e;
    e.metadata.namespace_ = "team";
    e.metadata.name = "web.1";
    e.involvedObject = {.apiVersion = "v1", .kind = "Pod", .namespace_ = "team", .name = "web"};
    e.reason = "ResizeSkipped";
    e.type = "Warning";
    e.message = "active rollout";
    return e;
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
};

TEST_F(StoredObjectsTest, NamespacesCanBeReadAndListed) {
  auto created = state_.ensureNamespace("team");
  ASSERT_TRUE(created) << created.error().toString();
  EXPECT_EQ(created->phase, "Active");
  // Ensuring an existing namespace is not a write.
  EXPECT_EQ(state_.ensureNamespace("team")->metadata.resourceVersion,
            created->metadata.resourceVersion);
  api::Namespace labelled;
  labelled.metadata.name = "attune-system";
  labelled.metadata.labels = {{"tier", "system"}};
  labelled.phase = "Active";
  ASSERT_TRUE(state_.namespaces.create(labelled));

  auto got = cluster_.getNamespace("team");
  ASSERT_TRUE(got) << got.error().toString();
  EXPECT_EQ(got->metadata.uid, created->metadata.uid);
  expectCode(cluster_.getNamespace("ghost"), ErrorCode::kNotFound);

  // Cluster-scoped: a namespace in the options is ignored; the selector is not.
  auto all = cluster_.listNamespaces({.namespace_ = "team"});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->items.size(), 2u);
  EXPECT_EQ(all->items[0].metadata.name, "attune-system");
  EXPECT_EQ(all->items[1].metadata.name, "team");
  api::ListOptions system;
  system.labelSelector.matchLabels = {{"tier", "system"}};
  ASSERT_EQ(cluster_.listNamespaces(system)->items.size(), 1u);
}

TEST_F(StoredObjectsTest, PolicyCreateGetListAndIgnoredStatus) {
  api::AttunePolicy request = policy();
  request.status = readyStatus("FromClient");
  request.preserved = {{"spec.cpu.startupBoost", "true"}, {"status.extra", "1"}};
  auto created = cluster_.createAttunePolicy(request);
  ASSERT_TRUE(created) << created.error().toString();
  EXPECT_EQ(created->metadata.generation, 1);
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_FALSE(created->metadata.resourceVersion.empty());
  EXPECT_EQ(created->spec, request.spec);
  EXPECT_EQ(created->status, api::AttunePolicyStatus{});
  ASSERT_EQ(created->preserved.size(), 1u);
  EXPECT_EQ(created->preserved[0].path, "spec.cpu.startupBoost");

  EXPECT_EQ(*cluster_.getAttunePolicy("team", "web"), *created);
  ASSERT_TRUE(cluster_.createAttunePolicy(policy("other", "db")));
  EXPECT_EQ(cluster_.listAttunePolicies({})->items.size(), 2u);
  auto team = cluster_.listAttunePolicies({.namespace_ = "team"});
  ASSERT_EQ(team->items.size(), 1u);
  EXPECT_EQ(team->items[0].metadata.name, "web");

  expectCode(cluster_.createAttunePolicy(policy()), ErrorCode::kConflict);
  expectCode(cluster_.getAttunePolicy("team", "ghost"), ErrorCode::kNotFound);
  auto unnamespaced = cluster_.createAttunePolicy(policy(""));
  ASSERT_FALSE(unnamespaced);
  EXPECT_EQ(unnamespaced.error().field, "metadata.namespace");
}

TEST_F(StoredObjectsTest, StatusUpdateWithStaleResourceVersionIsConflict) {
  const api::AttunePolicy created = *cluster_.createAttunePolicy(policy());
  api::AttunePolicy first = created;
  first.status = readyStatus("First");
  auto written = cluster_.updateAttunePolicyStatus(first);
  ASSERT_TRUE(written) << written.error().toString();
  EXPECT_NE(written->metadata.resourceVersion, created.metadata.resourceVersion);

  api::AttunePolicy stale = created;  // still holds the creation's resourceVersion
  stale.status = readyStatus("Stale");
  expectCode(cluster_.updateAttunePolicyStatus(stale), ErrorCode::kConflict);
  EXPECT_EQ(cluster_.getAttunePolicy("team", "web")->status, first.status);

  // Unconditional (empty resourceVersion) writes go through; absent policies are 404.
  stale.metadata.resourceVersion.clear();
  ASSERT_TRUE(cluster_.updateAttunePolicyStatus(stale));
  EXPECT_EQ(cluster_.getAttunePolicy("team", "web")->status.conditions[0].reason, "Stale");
  expectCode(cluster_.updateAttunePolicyStatus(policy("team", "ghost")), ErrorCode::kNotFound);
}

TEST_F(StoredObjectsTest, StatusWriteChangesOnlyStatusAndKeepsGeneration) {
  const api::AttunePolicy created = *cluster_.createAttunePolicy(policy());
  api::AttunePolicy request = created;
  request.status = readyStatus("Reconciled");
  request.spec.updateStrategy.type = api::UpdateMode::kAuto;  // ignored by /status
  request.metadata.labels = {{"ignored", "yes"}};
  request.preserved = {{"status.extra", "1"}};
  auto written = cluster_.updateAttunePolicyStatus(request);
  ASSERT_TRUE(written) << written.error().toString();
  EXPECT_EQ(written->metadata.generation, 1);
  EXPECT_EQ(written->status, request.status);
  EXPECT_EQ(written->spec, created.spec);
  EXPECT_TRUE(written->metadata.labels.empty());
  ASSERT_EQ(written->preserved.size(), 1u);
  EXPECT_EQ(written->preserved[0].path, "status.extra");

  // The same status again is not a write.
  api::AttunePolicy again = *written;
  EXPECT_EQ(cluster_.updateAttunePolicyStatus(again)->metadata.resourceVersion,
            written->metadata.resourceVersion);
}

TEST_F(StoredObjectsTest, SpecUpdateBumpsGenerationAndKeepsStatus) {
  const api::AttunePolicy created = *cluster_.createAttunePolicy(policy());
  api::AttunePolicy withStatus = created;
  withStatus.status = readyStatus("Reconciled");
  const api::AttunePolicy reconciled = *cluster_.updateAttunePolicyStatus(withStatus);

  api::AttunePolicy request = reconciled;
  request.spec.updateStrategy.type = api::UpdateMode::kAuto;
  request.status = {};  // ignored by a spec update
  auto updated = cluster_.updateAttunePolicy(request);
  ASSERT_TRUE(updated) << updated.error().toString();
  EXPECT_EQ(updated->metadata.generation, 2);
  EXPECT_EQ(updated->spec.updateStrategy.type, api::UpdateMode::kAuto);
  EXPECT_EQ(updated->status, reconciled.status);

  // Labels only: a write, but not a new generation.
  api::AttunePolicy labelled = *updated;
  labelled.metadata.labels = {{"team", "payments"}};
  auto relabelled = cluster_.updateAttunePolicy(labelled);
  ASSERT_TRUE(relabelled);
  EXPECT_EQ(relabelled->metadata.generation, 2);
  EXPECT_NE(relabelled->metadata.resourceVersion, updated->metadata.resourceVersion);
  EXPECT_EQ(relabelled->metadata.labels.at("team"), "payments");

  // No change: not a write. A stale resourceVersion: conflict. Absent: 404.
  EXPECT_EQ(cluster_.updateAttunePolicy(*relabelled)->metadata.resourceVersion,
            relabelled->metadata.resourceVersion);
  expectCode(cluster_.updateAttunePolicy(request), ErrorCode::kConflict);
  expectCode(cluster_.updateAttunePolicy(policy("team", "ghost")), ErrorCode::kNotFound);
}

TEST_F(StoredObjectsTest, CreatedEventGetsCountAndTimestamps) {
  auto created = cluster_.createEvent(event());
  ASSERT_TRUE(created) << created.error().toString();
  EXPECT_EQ(created->count, 1);
  EXPECT_EQ(created->firstTimestamp, clock_.now());
  EXPECT_EQ(created->lastTimestamp, clock_.now());
  EXPECT_EQ(created->involvedObject.name, "web");

  // What the client sets is kept.
  api::Event explicit_ = event();
  explicit_.metadata.name = "web.2";
  explicit_.count = 3;
  explicit_.firstTimestamp = *parseRfc3339("2024-12-31T23:00:00Z");
  auto kept = cluster_.createEvent(explicit_);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->count, 3);
  EXPECT_EQ(kept->firstTimestamp, explicit_.firstTimestamp);
  EXPECT_EQ(kept->lastTimestamp, explicit_.firstTimestamp);

  api::Event elsewhere = event();
  elsewhere.metadata.name = "web.3";
  elsewhere.involvedObject.namespace_ = "other";
  auto rejected = cluster_.createEvent(elsewhere);
  ASSERT_FALSE(rejected);
  EXPECT_EQ(rejected.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(rejected.error().field, "involvedObject.namespace");
  // A node's event (cluster-scoped object) lives in "default".
  api::Event nodeEvent = event();
  nodeEvent.metadata.namespace_ = "default";
  nodeEvent.involvedObject = {.kind = "Node", .name = "node-1"};
  EXPECT_TRUE(cluster_.createEvent(nodeEvent));
}

TEST_F(StoredObjectsTest, EventUpdateDeduplicates) {
  const api::Event created = *cluster_.createEvent(event());
  clock_.advance(std::chrono::minutes(1));
  api::Event repeat = created;
  repeat.count = created.count + 1;
  repeat.lastTimestamp = clock_.now();
  auto updated = cluster_.updateEvent(repeat);
  ASSERT_TRUE(updated) << updated.error().toString();
  EXPECT_EQ(updated->count, 2);
  EXPECT_EQ(updated->lastTimestamp, clock_.now());
  EXPECT_EQ(updated->firstTimestamp, created.firstTimestamp);
  EXPECT_EQ(updated->metadata.uid, created.metadata.uid);
  EXPECT_NE(updated->metadata.resourceVersion, created.metadata.resourceVersion);
  ASSERT_EQ(cluster_.listEvents({.namespace_ = "team"})->items.size(), 1u);
  EXPECT_EQ(cluster_.listEvents({})->items[0].count, 2);

  // Unchanged: not a write. Stale: conflict. Absent: 404.
  EXPECT_EQ(cluster_.updateEvent(*updated)->metadata.resourceVersion,
            updated->metadata.resourceVersion);
  expectCode(cluster_.updateEvent(repeat), ErrorCode::kConflict);
  api::Event ghost = event();
  ghost.metadata.name = "ghost";
  expectCode(cluster_.updateEvent(ghost), ErrorCode::kNotFound);
}

TEST_F(StoredObjectsTest, HpasCreatedInTheStateAreListed) {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.namespace_ = "team";
  hpa.metadata.name = "web";
  auto created = state_.hpas.create(hpa);
  ASSERT_TRUE(created) << created.error().toString();
  auto listed = cluster_.listHpas({.namespace_ = "team"});
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(listed->items[0], *created);
  EXPECT_TRUE(cluster_.listHpas({.namespace_ = "other"})->items.empty());
}

}  // namespace
}  // namespace attune::sim
