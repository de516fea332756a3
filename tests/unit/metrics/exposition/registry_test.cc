#include "metrics/exposition/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace attune::metrics {
namespace {

TEST(RegistryTest, CountersOnlyGoUp) {
  Registry registry;
  auto& reverts = registry.counter("attune_reverts_total", "Reverts.", {"reason"});
  reverts.inc({"oomkill"});
  reverts.inc({"oomkill"}, 2);
  reverts.inc({"oomkill"}, -5);
  EXPECT_EQ(reverts.value({"oomkill"}), 3);
  EXPECT_EQ(reverts.value({"throttle"}), 0);
}

TEST(RegistryTest, RegisteringTwiceReturnsTheSameFamily) {
  Registry registry;
  auto& a = registry.counter("c_total", "C.", {"x"});
  auto& b = registry.counter("c_total", "C.", {"x"});
  EXPECT_EQ(&a, &b);
}

TEST(RegistryTest, RendersFamiliesInNameOrderWithSortedSeries) {
  Registry registry;
  auto& gauge = registry.gauge("b_gauge", "A gauge.", {"ns"});
  gauge.set({"z"}, 1.5);
  gauge.set({"a"}, 2);
  gauge.set({"gone"}, 9);
  gauge.remove({"gone"});
  registry.counter("a_total", "A counter.", {}).inc({});
  EXPECT_EQ(registry.render(),
            "# HELP a_total A counter.\n"
            "# TYPE a_total counter\n"
            "a_total 1\n"
            "# HELP b_gauge A gauge.\n"
            "# TYPE b_gauge gauge\n"
            "b_gauge{ns=\"a\"} 2\n"
            "b_gauge{ns=\"z\"} 1.5\n");
}

// Series are kept hashed; rendering still lists them by their label values, value by value
// (not as one joined string: "a" and "b" before "a-b" and "a").
TEST(RegistryTest, RendersManySeriesByTheirLabelValuesWhateverTheInsertionOrder) {
  Registry registry;
  auto& gauge = registry.gauge("g", "Many series.", {"ns", "name"});
  std::vector<std::pair<std::string, std::string>> values;
  for (int i = 0; i < 300; ++i) {
    values.emplace_back("team-" + std::to_string(i % 7), "app-" + std::to_string((i * 37) % 101));
  }
  values.emplace_back("a", "b");
  values.emplace_back("a-b", "a");
  for (const auto& [ns, name] : values) gauge.set({ns, name}, 1);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::string expected = "# HELP g Many series.\n# TYPE g gauge\n";
  for (const auto& [ns, name] : values) {
    expected += "g{ns=\"" + ns + "\",name=\"" + name + "\"} 1\n";
  }
  EXPECT_EQ(registry.render(), expected);
  EXPECT_EQ(gauge.value({"a-b", "a"}), 1);
  EXPECT_EQ(gauge.value({"a", "b-a"}), 0);
  gauge.remove({"a", "b"});
  EXPECT_EQ(gauge.value({"a", "b"}), 0);
}

TEST(RegistryTest, EachOfManySeriesKeepsItsValueThroughGrowthAndRemovals) {
  // Enough series for the table to grow many times; label values that hash alike in part
  // (shared prefixes, the same values in another order) must still be told apart.
  Registry registry;
  auto& gauge = registry.gauge("g", "Many series.", {"ns", "name", "container"});
  const auto labels = [](int i) -> std::vector<std::string> {
    return {"team-" + std::to_string(i % 13), "app-" + std::to_string(i),
            "c" + std::to_string(i % 3)};
  };
  constexpr int kSeries = 20000;
  for (int i = 0; i < kSeries; ++i) gauge.set(labels(i), i);
  for (int i = 0; i < kSeries; i += 2) gauge.remove(labels(i));
  for (int i = 0; i < kSeries; ++i) {
    ASSERT_EQ(gauge.value(labels(i)), i % 2 == 0 ? 0 : i) << i;
  }
  EXPECT_EQ(gauge.value({"app-1", "team-1", "c1"}), 0);  // the values of series 1, reordered
  gauge.set(labels(4), 7);                               // a removed series set again starts afresh
  EXPECT_EQ(gauge.value(labels(4)), 7);
  auto& h = registry.histogram("h_seconds", "Durations.", {"name"}, {1});
  for (int i = 0; i < 1000; ++i) h.observe({"p-" + std::to_string(i % 100)}, 0.5);
  EXPECT_EQ(h.count({"p-42"}), 10u);
}

TEST(RegistryTest, HistogramBucketsAreCumulative) {
  Registry registry;
  auto& h = registry.histogram("d_seconds", "Durations.", {}, {0.1, 1});
  h.observe({}, 0.05);
  h.observe({}, 0.5);
  h.observe({}, 3);
  EXPECT_EQ(h.count({}), 3u);
  EXPECT_EQ(registry.render(),
            "# HELP d_seconds Durations.\n"
            "# TYPE d_seconds histogram\n"
            "d_seconds_bucket{le=\"0.1\"} 1\n"
            "d_seconds_bucket{le=\"1\"} 2\n"
            "d_seconds_bucket{le=\"+Inf\"} 3\n"
            "d_seconds_sum 3.55\n"
            "d_seconds_count 3\n");
}

}  // namespace
}  // namespace attune::metrics
