#include "metrics/prometheus/prometheus_source.h"

#include <gtest/gtest.h>

#include <functional>

#include "fake_transport.h"

namespace attune::metrics {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::FakeTransport;
using testing::formFields;
using testing::jsonResponse;

const Time kEnd = Time(seconds(1'700'000'000));
const Range kRange{kEnd - minutes(60), kEnd, minutes(5)};

std::string envelope(std::string_view type, std::string_view result) {
  return R"({"status":"success","data":{"resultType":")" + std::string(type) + R"(","result":[)" +
         std::string(result) + "]}}";
}

// A source whose every query is answered by `answer(promql)` (a JSON body with status 200).
struct Fixture {
  explicit Fixture(std::function<std::string(const std::string&)> answer) {
    auto fake =
        std::make_unique<FakeTransport>([answer](const HttpRequest& r) -> Result<HttpResponse> {
          return jsonResponse(200, answer(formFields(r.body)["query"]));
        });
    transport = fake.get();
    PrometheusOptions options;
    options.client.address = "http://prom:9090";
    source = std::make_unique<PrometheusSource>(options, std::move(fake), clock);
  }

  std::vector<std::string> queries() const {
    std::vector<std::string> out;
    for (const auto& r : transport->requests) out.push_back(formFields(r.body)["query"]);
    return out;
  }

  SimulatedClock clock{kEnd};
  FakeTransport* transport = nullptr;
  std::unique_ptr<PrometheusSource> source;
};

// No series (the decoder accepts either result type for any endpoint).
std::string emptyAnswer(const std::string&) { return envelope("matrix", ""); }

TEST(PrometheusSource, SendsOneQueryPerNamespacePerMetric) {
  Fixture f(emptyAnswer);
  MetricsSource& s = *f.source;
  const Scope scope{{"shop", "data", "shop", "batch"}};
  const std::vector<std::function<bool()>> calls = {
      [&] { return s.cpuUsage(scope, kRange).has_value(); },
      [&] { return s.cpuPressureWaiting(scope, kRange).has_value(); },
      [&] { return s.memoryWorkingSet(scope, kRange).has_value(); },
      [&] { return s.cpuThrottleRatio(scope, kRange).has_value(); },
      [&] { return s.oomKills(scope, kRange).has_value(); },
      [&] { return s.restartCounts(scope, kEnd).has_value(); },
      [&] { return s.resources(scope, kEnd).has_value(); },
      [&] { return s.podOwners(scope, kEnd).has_value(); },
  };
  for (size_t i = 0; i < calls.size(); ++i) {
    f.transport->requests.clear();
    ASSERT_TRUE(calls[i]()) << "call " << i;
    auto queries = f.queries();
    ASSERT_EQ(queries.size(), 3u) << "call " << i;
    for (size_t n = 0; n < 3; ++n) {
      const std::string ns = std::vector<std::string>{"batch", "data", "shop"}[n];
      EXPECT_NE(queries[n].find("namespace=\"" + ns + "\""), std::string::npos) << queries[n];
      for (const std::string other : {"batch", "data", "shop"}) {
        if (other != ns) {
          EXPECT_EQ(queries[n].find("\"" + other + "\""), std::string::npos);
        }
      }
    }
  }
}

TEST(PrometheusSource, SendsOneQueryPerMetricForTheWholeCluster) {
  Fixture f(emptyAnswer);
  MetricsSource& s = *f.source;
  ASSERT_TRUE(s.cpuUsage(Scope{}, kRange).has_value());
  ASSERT_TRUE(s.resources(Scope{}, kEnd).has_value());
  ASSERT_TRUE(s.nodeLoad(kRange).has_value());
  ASSERT_TRUE(s.nodeCapacity(kEnd).has_value());
  auto queries = f.queries();
  ASSERT_EQ(queries.size(), 4u);
  for (const auto& q : queries) EXPECT_EQ(q.find("namespace=\""), std::string::npos) << q;
  EXPECT_EQ(f.transport->requests[0].url, "http://prom:9090/api/v1/query_range");
  EXPECT_EQ(f.transport->requests[1].url, "http://prom:9090/api/v1/query");
}

TEST(PrometheusSource, ExcludedContainersAreLeftOutOfEveryPerContainerQuery) {
  Fixture f(emptyAnswer);
  MetricsSource& s = *f.source;
  const Scope scope{{"shop", "data"}, {"linkerd-proxy", "istio-proxy", "a.b"}};
  ASSERT_TRUE(s.cpuUsage(scope, kRange).has_value());
  ASSERT_TRUE(s.cpuPressureWaiting(scope, kRange).has_value());
  ASSERT_TRUE(s.memoryWorkingSet(scope, kRange).has_value());
  ASSERT_TRUE(s.cpuThrottleRatio(scope, kRange).has_value());
  ASSERT_TRUE(s.oomKills(scope, kRange).has_value());
  ASSERT_TRUE(s.restartCounts(scope, kEnd).has_value());
  ASSERT_TRUE(s.resources(scope, kEnd).has_value());
  const std::string matcher = R"(container!~"^(a\\.b|istio-proxy|linkerd-proxy)$")";
  const std::vector<size_t> selectors = {1, 1, 1, 2, 3, 1, 1};  // per query, per method
  auto queries = f.queries();
  ASSERT_EQ(queries.size(), 2 * selectors.size());
  for (size_t i = 0; i < queries.size(); ++i) {
    size_t found = 0;
    for (auto at = queries[i].find(matcher); at != std::string::npos;
         at = queries[i].find(matcher, at + 1)) {
      ++found;
    }
    EXPECT_EQ(found, selectors[i / 2]) << queries[i];
  }

  f.transport->requests.clear();
  ASSERT_TRUE(s.podOwners(scope, kEnd).has_value());
  ASSERT_TRUE(s.cpuUsage(Scope{{"shop"}}, kRange).has_value());
  for (const auto& q : f.queries()) EXPECT_EQ(q.find("container!~"), std::string::npos) << q;
}

TEST(PrometheusSource, RateWindowIsTheStepButAtLeastTheMinimum) {
  Fixture f(emptyAnswer);
  ASSERT_TRUE(f.source->cpuUsage(Scope{{"a"}}, Range{kEnd - minutes(60), kEnd, seconds(30)}));
  ASSERT_TRUE(f.source->cpuUsage(Scope{{"a"}}, Range{kEnd - minutes(60), kEnd, minutes(10)}));
  ASSERT_TRUE(
      f.source->cpuThrottleRatio(Scope{{"a"}}, Range{kEnd - minutes(60), kEnd, seconds(30)}));
  auto queries = f.queries();
  EXPECT_NE(queries[0].find("[120s]"), std::string::npos) << queries[0];
  EXPECT_NE(queries[1].find("[600s]"), std::string::npos) << queries[1];
  EXPECT_NE(queries[2].find("[300s]"), std::string::npos) << queries[2];
}

TEST(PrometheusSource, ConvertsContainerSeries) {
  Fixture f([](const std::string&) {
    return envelope("matrix", R"(
        {"metric":{"namespace":"shop","pod":"web-1","container":"app"},
         "values":[[1700000000,"0.25"],[1700000300,"NaN"],[1700000600,"0.5"]]},
        {"metric":{"namespace":"shop","pod":"web-1"},"values":[[1700000000,"9"]]},
        {"metric":{"namespace":"shop","pod":"web-2","container":"app"},
         "values":[[1700000000,"+Inf"]]})");
  });
  auto r = f.source->cpuUsage(Scope{{"shop"}}, kRange);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].id, (ContainerId{"shop", "web-1", "app"}));
  ASSERT_EQ((*r)[0].points.size(), 2u);
  EXPECT_EQ((*r)[0].points[1].time, kEnd + seconds(600));
  EXPECT_DOUBLE_EQ((*r)[0].points[1].value, 0.5);
}

TEST(PrometheusSource, RangePartsStayOnTheStepGridAndWithinPrometheusResolution) {
  const Time start = kEnd - std::chrono::hours(168);
  const Duration step = seconds(30);  // a week: 20,160 steps
  const Range week{start, kEnd, step};
  const Range first = rangePart(week, start, 1'000'000);
  EXPECT_EQ(first.start, start);
  EXPECT_EQ(first.end, start + kMaxStepsPerRangeQuery * step);
  EXPECT_EQ(first.step, step);
  const Range second = rangePart(week, first.end + step, 1'000'000);
  EXPECT_EQ(second.end, kEnd);
  EXPECT_EQ(rangePart(week, start, 10).end, start + 9 * step);
  EXPECT_EQ(rangePart(week, start, 0).end, start);  // at least one point
  EXPECT_EQ(rangePart(kRange, kRange.start, 1'000'000).end, kRange.end);
}

// Answers every range query with `series` series of cAdvisor-like labels, a point at each of
// the part's steps; records the parts asked.
struct PartsFixture {
  explicit PartsFixture(std::size_t maxSamples) {
    auto fake =
        std::make_unique<FakeTransport>([this](const HttpRequest& r) -> Result<HttpResponse> {
          auto form = formFields(r.body);
          const auto from = static_cast<std::int64_t>(std::stod(form["start"]));
          const auto to = static_cast<std::int64_t>(std::stod(form["end"]));
          const auto every = static_cast<std::int64_t>(std::stod(form["step"]));
          parts.push_back(Range{Time(seconds(from)), Time(seconds(to)), seconds(every)});
          // Prometheus leaves out series without a point in the part.
          const std::int64_t first =
              std::max(from, from + (dataFrom - from + every - 1) / every * every);
          std::string result;
          for (std::size_t i = 0; i < series && first <= to; ++i) {
            result += std::string(result.empty() ? "" : ",") +
                      R"({"metric":{"namespace":"shop","pod":"web-)" + std::to_string(i) +
                      R"(","container":"app"},"values":[)";
            for (std::int64_t t = first; t <= to; t += every) {
              result += (t == first ? "" : ",") +
                        ("[" + std::to_string(t) + ",\"" + std::to_string(t % 1000) + "\"]");
            }
            result += "]}";
          }
          return jsonResponse(200, envelope("matrix", result));
        });
    PrometheusOptions options;
    options.maxSamplesPerQuery = maxSamples;
    source = std::make_unique<PrometheusSource>(options, std::move(fake), clock);
  }
  std::size_t series = 10;
  std::int64_t dataFrom = 0;  // seconds: the first time with points (the history's start)
  std::vector<Range> parts;
  SimulatedClock clock{kEnd};
  std::unique_ptr<PrometheusSource> source;
};

TEST(PrometheusSource, ALongRangeIsReadInPartsSizedByTheSeriesOfTheLastAnswer) {
  const Range day{kEnd - std::chrono::hours(24), kEnd, minutes(1)};  // 1,441 points
  PartsFixture whole(/*maxSamples=*/0);
  auto expected = whole.source->cpuUsage(Scope{{"shop"}}, day);
  ASSERT_TRUE(expected.has_value()) << expected.error().message;
  ASSERT_EQ(whole.parts.size(), 1u);

  PartsFixture parts(/*maxSamples=*/3'000);
  auto read = parts.source->cpuUsage(Scope{{"shop"}}, day);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  // The same series and points as one query.
  ASSERT_EQ(read->size(), expected->size());
  for (std::size_t i = 0; i < read->size(); ++i) {
    EXPECT_EQ((*read)[i].id, (*expected)[i].id);
    ASSERT_EQ((*read)[i].points.size(), 1441u);
    for (std::size_t n = 0; n < 1441; ++n) {
      ASSERT_EQ((*read)[i].points[n].time, (*expected)[i].points[n].time);
      ASSERT_EQ((*read)[i].points[n].value, (*expected)[i].points[n].value);
    }
  }
  // Before any answer 1,000 series are assumed: a first part of 60 points (the least); then
  // 10 series: 300 points a part, consecutive on the step grid.
  ASSERT_EQ(parts.parts.size(), 6u);  // 60 + 300 × 4 + 181
  EXPECT_EQ(parts.parts[0].start, day.start);
  EXPECT_EQ(parts.parts[0].end, day.start + minutes(59));
  for (std::size_t i = 1; i < parts.parts.size(); ++i) {
    EXPECT_EQ(parts.parts[i].start, parts.parts[i - 1].end + minutes(1));
    if (i + 1 < parts.parts.size()) {
      EXPECT_EQ(parts.parts[i].end - parts.parts[i].start, minutes(299));
    }
  }
  EXPECT_EQ(parts.parts.back().end, day.end);
  // The next read of the same kind starts at 300 points; a short range is one query.
  parts.parts.clear();
  ASSERT_TRUE(parts.source->cpuUsage(Scope{{"shop"}}, kRange).has_value());
  EXPECT_EQ(parts.parts.size(), 1u);
  parts.parts.clear();
  ASSERT_TRUE(parts.source->cpuUsage(Scope{{"shop"}}, day).has_value());
  EXPECT_EQ(parts.parts.size(), 5u);  // 300 × 4 + 241
}

TEST(PrometheusSource, PartsBeforeTheHistoryBeginsKeepTheEstimateAndPointsAreSizedToTheirData) {
  // A week's window at 5m (2,017 steps) over a history of its last day (289 points).
  const Range week{kEnd - std::chrono::hours(168), kEnd, minutes(5)};
  PartsFixture f(/*maxSamples=*/3'000);
  f.dataFrom =
      std::chrono::duration_cast<seconds>((kEnd - std::chrono::hours(24)).time_since_epoch())
          .count();
  // A first read had 10 series: 300 points a part.
  ASSERT_TRUE(f.source->cpuUsage(Scope{{"shop"}}, kRange).has_value());
  f.parts.clear();
  auto read = f.source->cpuUsage(Scope{{"shop"}}, week);
  ASSERT_TRUE(read.has_value()) << read.error().message;
  // Empty answers over the six days without history leave parts at 300 points: 2,017 steps
  // are 7 parts, none longer.
  ASSERT_EQ(f.parts.size(), 7u);
  for (std::size_t i = 0; i + 1 < f.parts.size(); ++i) {
    EXPECT_EQ(f.parts[i].end - f.parts[i].start, minutes(5 * 299)) << "part " << i;
  }
  EXPECT_EQ(f.parts.back().end, week.end);
  ASSERT_EQ(read->size(), 10u);
  for (const ContainerSeries& s : *read) {
    ASSERT_EQ(s.points.size(), 289u);
    EXPECT_EQ(s.points.front().time, kEnd - std::chrono::hours(24));
    EXPECT_EQ(s.points.back().time, kEnd);
    // Sized from the series' first point, not from the start of the part it came in.
    EXPECT_EQ(s.points.capacity(), s.points.size());
  }
}

TEST(PrometheusSource, EmptyResultIsAnEmptyVector) {
  Fixture f(emptyAnswer);
  auto r = f.source->memoryWorkingSet(Scope{{"nothing-here"}}, kRange);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty());
}

TEST(PrometheusSource, ConvertsResourcesRoundingCpuUp) {
  Fixture f([](const std::string&) {
    auto item = [](std::string name, std::string container, std::string resource,
                   std::string value) {
      return R"({"metric":{"__name__":"kube_pod_container_resource_)" + name +
             R"(","namespace":"shop","pod":"web-1","container":")" + container +
             R"(","resource":")" + resource + R"("},"value":[1700000000,")" + value + R"("]})";
    };
    return envelope("vector", item("requests", "app", "cpu", "0.1") + "," +
                                  item("limits", "app", "cpu", "0.0005") + "," +
                                  item("requests", "app", "memory", "268435456") + "," +
                                  item("limits", "app", "memory", "536870912") + "," +
                                  item("requests", "sidecar", "cpu", "0.25"));
  });
  auto r = f.source->resources(Scope{{"shop"}}, kEnd);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  const ContainerResourceValues& app = (*r)[0];
  EXPECT_EQ(app.id, (ContainerId{"shop", "web-1", "app"}));
  EXPECT_EQ(app.cpuRequest, Millicores(100));
  EXPECT_EQ(app.cpuLimit, Millicores(1));
  EXPECT_EQ(app.memoryRequest, Bytes(268435456));
  EXPECT_EQ(app.memoryLimit, Bytes(536870912));
  const ContainerResourceValues& sidecar = (*r)[1];
  EXPECT_EQ(sidecar.cpuRequest, Millicores(250));
  EXPECT_EQ(sidecar.cpuLimit, std::nullopt);
  EXPECT_EQ(sidecar.memoryRequest, std::nullopt);
}

TEST(PrometheusSource, ConvertsOomKillsAndRestarts) {
  Fixture f([](const std::string& q) {
    if (q.find("OOMKilled") != std::string::npos) {
      return envelope("matrix", R"({"metric":{"namespace":"data","pod":"db-0",
          "container":"pg"},"values":[[1700000300,"536870912"]]})");
    }
    return envelope("vector", R"({"metric":{"namespace":"data","pod":"db-0","container":"pg"},
        "value":[1700000000,"3"]})");
  });
  auto kills = f.source->oomKills(Scope{{"data"}}, kRange);
  ASSERT_TRUE(kills.has_value()) << kills.error().message;
  ASSERT_EQ(kills->size(), 1u);
  EXPECT_EQ((*kills)[0].id, (ContainerId{"data", "db-0", "pg"}));
  EXPECT_EQ((*kills)[0].time, kEnd + seconds(300));
  EXPECT_EQ((*kills)[0].memoryAtKill, Bytes(536870912));
  auto restarts = f.source->restartCounts(Scope{{"data"}}, kEnd);
  ASSERT_TRUE(restarts.has_value());
  ASSERT_EQ(restarts->size(), 1u);
  EXPECT_EQ((*restarts)[0].restarts, 3);
}

TEST(PrometheusSource, ResolvesOwnersFromOneQuery) {
  Fixture f([](const std::string&) {
    return envelope("vector", R"(
        {"metric":{"__name__":"kube_pod_owner","namespace":"shop","pod":"web-abc-1",
          "owner_kind":"ReplicaSet","owner_name":"web-abc","owner_is_controller":"true"},
          "value":[1700000000,"1"]},
        {"metric":{"__name__":"kube_replicaset_owner","namespace":"shop","replicaset":"web-abc",
          "owner_kind":"Deployment","owner_name":"web","owner_is_controller":"true"},
          "value":[1700000000,"1"]})");
  });
  auto r = f.source->podOwners(Scope{{"shop"}}, kEnd);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].workload, (api::WorkloadRef{"shop", "Deployment", "web"}));
  EXPECT_EQ(f.transport->requests.size(), 1u);
}

TEST(PrometheusSource, ConvertsNodes) {
  Fixture f([](const std::string& q) {
    if (q.find("node_load1") != std::string::npos) {
      return envelope("matrix", R"(
          {"metric":{"node":"n1","instance":"10.0.0.1:9100"},"values":[[1700000000,"1.5"]]},
          {"metric":{"instance":"n2:9100"},"values":[[1700000000,"0.5"]]},
          {"metric":{"instance":"[::1]:9100"},"values":[[1700000000,"0.25"]]})");
    }
    return envelope("vector", R"(
        {"metric":{"node":"n1","resource":"cpu"},"value":[1700000000,"3.9995"]},
        {"metric":{"node":"n1","resource":"memory"},"value":[1700000000,"17179869184"]},
        {"metric":{"node":"n2","resource":"cpu"},"value":[1700000000,"2"]})");
  });
  auto load = f.source->nodeLoad(kRange);
  ASSERT_TRUE(load.has_value()) << load.error().message;
  ASSERT_EQ(load->size(), 3u);
  EXPECT_EQ((*load)[0].node, "::1");
  EXPECT_EQ((*load)[1].node, "n1");
  EXPECT_EQ((*load)[2].node, "n2");
  EXPECT_DOUBLE_EQ((*load)[2].points[0].value, 0.5);
  auto capacity = f.source->nodeCapacity(kEnd);
  ASSERT_TRUE(capacity.has_value());
  ASSERT_EQ(capacity->size(), 1u);
  EXPECT_EQ((*capacity)[0].node, "n1");
  EXPECT_EQ((*capacity)[0].cpu, Millicores(4000));
  EXPECT_EQ((*capacity)[0].memory, Bytes(17179869184));
}

TEST(PrometheusSource, StopsAtTheFirstFailingNamespace) {
  auto fake = std::make_unique<FakeTransport>([](const HttpRequest&) -> Result<HttpResponse> {
    return jsonResponse(422, R"({"status":"error","errorType":"execution","error":"boom"})");
  });
  FakeTransport* transport = fake.get();
  SimulatedClock clock(kEnd);
  PrometheusOptions options;
  options.client.address = "http://prom:9090";
  PrometheusSource source(options, std::move(fake), clock);
  auto r = source.cpuUsage(Scope{{"a", "b"}}, kRange);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(transport->requests.size(), 1u);
  EXPECT_NE(r.error().message.find("HTTP 422, execution: boom"), std::string::npos);
  EXPECT_NE(r.error().message.find("namespace=\"a\""), std::string::npos);
}

}  // namespace
}  // namespace attune::metrics
