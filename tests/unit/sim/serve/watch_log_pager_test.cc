// WatchLog (bounded, ordered change log) and ListPager (snapshots and continue tokens).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/serve/list_pager.h"
#include "sim/serve/watch_log.h"

namespace attune::sim::serve {
namespace {

LoggedEvent event(std::uint64_t rv, std::string resource = "pods") {
  LoggedEvent e;
  e.resourceVersion = rv;
  e.resource = std::move(resource);
  e.name = "o" + std::to_string(rv);
  e.json = "{}";
  return e;
}

std::vector<std::uint64_t> versionsAfter(const WatchLog& log, std::uint64_t after) {
  std::vector<std::uint64_t> out;
  EXPECT_TRUE(
      log.forEachAfter(after, [&](const LoggedEvent& e) { out.push_back(e.resourceVersion); }));
  return out;
}

TEST(WatchLog, KeepsResourceVersionOrderWhenANestedWriteIsReportedFirst) {
  WatchLog log(10, 5);
  log.append(event(6));
  log.append(event(8));  // written while 7 was being reported
  log.append(event(7));
  log.append(event(9));
  EXPECT_EQ(versionsAfter(log, 5), (std::vector<std::uint64_t>{6, 7, 8, 9}));
  EXPECT_EQ(versionsAfter(log, 7), (std::vector<std::uint64_t>{8, 9}));
  EXPECT_EQ(log.latest(), 9u);
}

TEST(WatchLog, DropsTheOldestBeyondItsCapacityAndRefusesOlderResumes) {
  WatchLog log(3, 0);
  for (std::uint64_t rv = 1; rv <= 5; ++rv) log.append(event(rv));
  EXPECT_EQ(log.size(), 3u);
  EXPECT_EQ(log.floor(), 2u);
  EXPECT_EQ(versionsAfter(log, 2), (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_FALSE(log.forEachAfter(1, [](const LoggedEvent&) { FAIL(); }));
  EXPECT_EQ(log.changedSince("pods", 1), std::nullopt);
}

TEST(WatchLog, ChangedSinceLooksAtOneResource) {
  WatchLog log(10, 0);
  log.append(event(1, "pods"));
  log.append(event(2, "deployments.apps"));
  EXPECT_EQ(log.changedSince("pods", 0), true);
  EXPECT_EQ(log.changedSince("pods", 1), false);
  EXPECT_EQ(log.changedSince("deployments.apps", 1), true);
  EXPECT_EQ(log.changedSince("nodes", 0), false);
}

TEST(WatchLog, ParsesResourceVersions) {
  EXPECT_EQ(parseResourceVersion("42").value_or(0), 42u);
  EXPECT_FALSE(parseResourceVersion("4x"));
  EXPECT_FALSE(parseResourceVersion(""));
}

std::vector<KeyedItem> items(int n) {
  std::vector<KeyedItem> out;
  for (int i = 0; i < n; ++i) {
    const std::string name = "p" + std::to_string(10 + i);
    out.push_back({"ns", name, "\"" + name + "\""});
  }
  return out;
}

TEST(ListPager, PagesFromOneSnapshotWithRemainingCounts) {
  ListPager pager;
  const std::string scope = ListPager::scopeOf("pods", "", "", "");
  ListPage page = pager.page(scope, 7, items(7), 3);
  std::vector<std::string> all = page.items;
  EXPECT_EQ(page.remainingItemCount, 4);
  ASSERT_FALSE(page.continueToken.empty());
  EXPECT_EQ(pager.snapshots(), 1u);
  while (!page.continueToken.empty()) {
    auto token = pager.decode(scope, page.continueToken);
    ASSERT_TRUE(token) << token.error().toString();
    EXPECT_EQ(token->resourceVersion, 7u);
    auto next = pager.next(*token, 3);
    ASSERT_TRUE(next);
    page = std::move(*next);
    all.insert(all.end(), page.items.begin(), page.items.end());
  }
  EXPECT_EQ(all.size(), 7u);
  EXPECT_EQ(all.front(), "\"p10\"");
  EXPECT_EQ(all.back(), "\"p16\"");
  EXPECT_EQ(pager.snapshots(), 0u) << "the last page drops the snapshot";
}

TEST(ListPager, AListThatFitsHasNoToken) {
  ListPager pager;
  ListPage page = pager.page("s", 1, items(3), 3);
  EXPECT_TRUE(page.continueToken.empty());
  EXPECT_EQ(page.items.size(), 3u);
  EXPECT_TRUE(pager.page("s", 1, items(3), 0).continueToken.empty());
  EXPECT_EQ(pager.snapshots(), 0u);
}

TEST(ListPager, RejectsForeignAndMalformedTokens) {
  ListPager pager;
  const std::string pods = ListPager::scopeOf("pods", "", "", "");
  ListPage page = pager.page(pods, 1, items(5), 2);
  auto other = pager.decode(ListPager::scopeOf("nodes", "", "", ""), page.continueToken);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().field, "continue");
  EXPECT_FALSE(pager.decode(pods, "not-a-token"));
  EXPECT_FALSE(pager.decode(pods, "e30"));  // "{}"
}

TEST(ListPager, ADroppedSnapshotLeavesTheTokensKeyForAResume) {
  ListPager pager(1);
  const std::string scope = "s";
  ListPage first = pager.page(scope, 3, items(5), 2);
  pager.page(scope, 4, items(5), 2);  // drops the first snapshot
  auto token = pager.decode(scope, first.continueToken);
  ASSERT_TRUE(token);
  EXPECT_FALSE(pager.next(*token, 2));
  EXPECT_EQ(token->lastNs, "ns");
  EXPECT_EQ(token->lastName, "p11");
  EXPECT_EQ(token->resourceVersion, 3u);
}

}  // namespace
}  // namespace attune::sim::serve
