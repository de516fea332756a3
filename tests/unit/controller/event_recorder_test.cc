// EventRecorder against the in-process API server: identical events are counted on one Event,
// different ones are separate, an event deleted behind the recorder's back is recreated, and
// only a bounded number of written events is remembered, the least recently written forgotten.
// Held, events are queued until flush() writes them, oldest first, one write per distinct event
// with its count, and none is dropped when the queue is full.
#include "controller/event_recorder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"

namespace attune::controller {
namespace {

using namespace std::chrono_literals;

class EventRecorderTest : public ::testing::Test {
 protected:
  SimulatedClock clock_{Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5))};
  sim::ClusterState state_{clock_};
  sim::Cluster api_{state_};
  EventRecorder recorder_{api_, clock_};

  api::ObjectReference pod(std::string name) {
    return api::ObjectReference{.apiVersion = "v1",
                                .kind = "Pod",
                                .namespace_ = "shop",
                                .name = std::move(name),
                                .uid = "uid-1",
                                .resourceVersion = {},
                                .fieldPath = {}};
  }
  std::vector<api::Event> events() { return api_.listEvents({}).value().items; }
  static bool everything(std::string_view /*reason*/) { return true; }
};

TEST_F(EventRecorderTest, IdenticalEventsBumpOneEvent) {
  const Time first = clock_.now();
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "ResizeSkipped", "Cooldown: 1h left"));
  clock_.advance(1min);
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "ResizeSkipped", "Cooldown: 1h left"));
  clock_.advance(1min);
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "ResizeSkipped", "Cooldown: 1h left"));

  const auto all = events();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].count, 3);
  EXPECT_EQ(all[0].firstTimestamp, first);
  EXPECT_EQ(all[0].lastTimestamp, first + 2min);
  EXPECT_EQ(all[0].involvedObject.name, "web-0");
  EXPECT_EQ(all[0].metadata.namespace_, "shop");
  EXPECT_EQ(all[0].sourceComponent, kEventComponent);
  EXPECT_EQ(recorder_.countsByReason().at("ResizeSkipped"), 3);
}

TEST_F(EventRecorderTest, DifferentMessagesObjectsOrReasonsAreSeparateEvents) {
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Normal", "Resized", "cpu 500m -> 250m"));
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Normal", "Resized", "cpu 250m -> 300m"));
  ASSERT_TRUE(recorder_.record(pod("web-1"), "Normal", "Resized", "cpu 500m -> 250m"));
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "Reverted", "cpu 500m -> 250m"));
  EXPECT_EQ(events().size(), 4u);
}

TEST_F(EventRecorderTest, AnEventDeletedElsewhereIsCreatedAgain) {
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "Reverted", "oomkill"));
  const std::string name = events().front().metadata.name;
  ASSERT_TRUE(state_.events.erase("shop", name));
  auto again = recorder_.record(pod("web-0"), "Warning", "Reverted", "oomkill");
  ASSERT_TRUE(again) << again.error().toString();
  const auto all = events();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].count, 1);
  EXPECT_NE(all[0].metadata.name, name);
}

// The events whose message is `message`, by count.
std::multiset<std::int64_t> countsOf(const std::vector<api::Event>& all, std::string_view message) {
  std::multiset<std::int64_t> out;
  for (const auto& e : all) {
    if (e.message == message) out.insert(e.count);
  }
  return out;
}

TEST_F(EventRecorderTest, OnlyTheBoundIsRememberedAndTheLeastRecentIsForgotten) {
  EventRecorder bounded(api_, clock_, 3);
  for (const char* message : {"a", "b", "c", "d", "e"}) {
    ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", message));
  }
  EXPECT_EQ(bounded.remembered(), 3u);
  // "e" is remembered: bumped. "a" was forgotten: a second Event.
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "e"));
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "a"));
  const auto all = events();
  EXPECT_EQ(countsOf(all, "e"), (std::multiset<std::int64_t>{2}));
  EXPECT_EQ(countsOf(all, "a"), (std::multiset<std::int64_t>{1, 1}));
  EXPECT_EQ(bounded.remembered(), 3u);
  EXPECT_EQ(bounded.countsByReason().at("Resized"), 7);
}

TEST_F(EventRecorderTest, ABumpMakesAnEventTheMostRecent) {
  EventRecorder bounded(api_, clock_, 2);
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "a"));
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "b"));
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "a"));  // bumped: now the newest
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "c"));  // forgets "b", not "a"
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "a"));
  ASSERT_TRUE(bounded.record(pod("web-0"), "Normal", "Resized", "b"));
  const auto all = events();
  EXPECT_EQ(countsOf(all, "a"), (std::multiset<std::int64_t>{3}));
  EXPECT_EQ(countsOf(all, "b"), (std::multiset<std::int64_t>{1, 1}));
  EXPECT_EQ(countsOf(all, "c"), (std::multiset<std::int64_t>{1}));
}

TEST_F(EventRecorderTest, AnEventRecreatedAfterItsDeletionIsRememberedOnce) {
  EventRecorder bounded(api_, clock_, 2);
  ASSERT_TRUE(bounded.record(pod("web-0"), "Warning", "Reverted", "oomkill"));
  ASSERT_TRUE(state_.events.erase("shop", events().front().metadata.name));
  ASSERT_TRUE(bounded.record(pod("web-0"), "Warning", "Reverted", "oomkill"));
  EXPECT_EQ(bounded.remembered(), 1u);
  ASSERT_TRUE(bounded.record(pod("web-0"), "Warning", "Reverted", "oomkill"));
  EXPECT_EQ(countsOf(events(), "oomkill"), (std::multiset<std::int64_t>{2}));
}

TEST_F(EventRecorderTest, HeldEventsAreWrittenByFlushOldestFirst) {
  recorder_.hold(everything);
  const Time recorded = clock_.now();
  for (const char* name : {"web-0", "web-1", "web-2"}) {
    auto queued = recorder_.record(pod(name), "Normal", "Resized", "cpu 500m -> 250m");
    ASSERT_TRUE(queued) << queued.error().toString();
    EXPECT_EQ(queued->involvedObject.name, name);
    EXPECT_TRUE(queued->metadata.name.empty());
  }
  EXPECT_TRUE(events().empty());
  EXPECT_EQ(recorder_.held(), 3U);
  EXPECT_TRUE(recorder_.countsByReason().empty());

  clock_.advance(1min);
  const EventRecorder::Flushed first = recorder_.flush(2);
  EXPECT_EQ(first.sent, 2U);
  EXPECT_EQ(first.failed, 0U);
  auto all = events();
  ASSERT_EQ(all.size(), 2U);
  std::set<std::string> written;
  for (const auto& e : all) {
    written.insert(e.involvedObject.name);
    EXPECT_EQ(e.firstTimestamp, recorded);  // when recorded, not when written
    EXPECT_EQ(e.lastTimestamp, recorded);
  }
  EXPECT_EQ(written, (std::set<std::string>{"web-0", "web-1"}));
  EXPECT_EQ(recorder_.held(), 1U);
  EXPECT_EQ(recorder_.flush().sent, 1U);
  EXPECT_EQ(events().size(), 3U);
  EXPECT_EQ(recorder_.held(), 0U);
  EXPECT_EQ(recorder_.flush().sent, 0U);
  EXPECT_EQ(recorder_.countsByReason().at("Resized"), 3);
}

TEST_F(EventRecorderTest, AnEventRecordedAgainWhileHeldIsOneWriteWithItsCount) {
  recorder_.hold(everything);
  const Time first = clock_.now();
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "ResizeSkipped", "Cooldown"));
  clock_.advance(1min);
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "ResizeSkipped", "Cooldown"));
  EXPECT_EQ(recorder_.held(), 1U);
  EXPECT_EQ(recorder_.flush().sent, 1U);
  auto all = events();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].count, 2);
  EXPECT_EQ(all[0].firstTimestamp, first);
  EXPECT_EQ(all[0].lastTimestamp, first + 1min);
  // Written once, it is bumped by the next flush, like an event written at once.
  clock_.advance(1min);
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "ResizeSkipped", "Cooldown"));
  EXPECT_EQ(recorder_.flush().sent, 1U);
  all = events();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].count, 3);
  EXPECT_EQ(all[0].lastTimestamp, first + 2min);
  EXPECT_EQ(recorder_.countsByReason().at("ResizeSkipped"), 3);
}

TEST_F(EventRecorderTest, AFullQueueWritesItsOldestInsteadOfDroppingAnything) {
  recorder_.hold(everything);
  for (std::size_t i = 0; i <= kHeldEvents; ++i) {
    ASSERT_TRUE(recorder_.record(pod("web-0"), "Normal", "Resized", std::to_string(i)));
  }
  EXPECT_EQ(recorder_.held(), kHeldEvents);
  auto all = events();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].message, "0");
  EXPECT_EQ(recorder_.flush().sent, kHeldEvents);
  EXPECT_EQ(events().size(), kHeldEvents + 1);
}

TEST_F(EventRecorderTest, OnlyTheReasonsGivenAreHeld) {
  recorder_.hold([](std::string_view reason) { return reason == "ResizeSkipped"; });
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Warning", "ResizeSkipped", "Cooldown"));
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Normal", "Resized", "cpu 500m -> 250m"));
  auto all = events();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].reason, "Resized");
  EXPECT_EQ(recorder_.held(), 1U);
  EXPECT_EQ(recorder_.flush().sent, 1U);
  EXPECT_EQ(events().size(), 2U);
}

TEST_F(EventRecorderTest, FlushStartsNoWriteOnceItsSliceHasPassed) {
  recorder_.hold(everything);
  ASSERT_TRUE(recorder_.record(pod("web-0"), "Normal", "Resized", "a"));
  EXPECT_EQ(recorder_.flush(10, Duration::zero()).sent, 0U);
  EXPECT_EQ(recorder_.held(), 1U);
  // No longer held: recorded events are written at once; the queued one waits for a flush.
  recorder_.hold({});
  ASSERT_TRUE(recorder_.record(pod("web-1"), "Normal", "Resized", "b"));
  auto all = events();
  ASSERT_EQ(all.size(), 1U);
  EXPECT_EQ(all[0].message, "b");
  EXPECT_EQ(recorder_.flush().sent, 1U);
  EXPECT_EQ(events().size(), 2U);
}

}  // namespace
}  // namespace attune::controller
