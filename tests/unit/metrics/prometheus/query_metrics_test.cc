// PrometheusOptions::onQuery and PrometheusQueryMetrics: every query a PrometheusSource sends is
// told once (type, namespace, range or instant, duration on the injected clock, response bytes,
// success), and booked as attune_prometheus_* series.
#include "metrics/prometheus/query_metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_transport.h"
#include "metrics/prometheus/prometheus_source.h"

namespace attune::metrics {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::FakeTransport;
using testing::formFields;
using testing::jsonResponse;

const Time kEnd = Time(seconds(1'700'000'000));

const std::string kMatrix = R"({"status":"success","data":{"resultType":"matrix","result":[)"
                            R"({"metric":{"namespace":"shop","pod":"p","container":"app"},)"
                            R"("values":[[1700000000,"0.5"]]}]}})";

struct Recorded {
  std::string type;
  std::string ns;
  bool range = false;
  Duration duration{};
  std::size_t bytes = 0;
  bool ok = false;
};

TEST(PrometheusQueryMetrics, EveryQueryIsToldOnceWithItsTypeNamespaceBytesAndOutcome) {
  SimulatedClock clock{kEnd};
  // Each answer takes 250 ms of the simulated clock; the namespace "broken" answers 500.
  auto fake = std::make_unique<FakeTransport>([&](const HttpRequest& r) -> Result<HttpResponse> {
    clock.advance(std::chrono::milliseconds(250));
    if (formFields(r.body)["query"].find("broken") != std::string::npos) {
      return jsonResponse(500, "overloaded");
    }
    return jsonResponse(200, kMatrix);
  });
  FakeTransport* transport = fake.get();
  std::vector<Recorded> told;
  Registry registry;
  PrometheusQueryMetrics booked(registry);
  PrometheusOptions options;
  options.client.address = "http://prom:9090";
  options.client.retries = 1;
  options.client.backoff = BackoffPolicy{seconds(1), 2.0, seconds(1), Duration::zero()};
  options.onQuery = [&](const QueryRecord& q) {
    told.push_back(
        {std::string(q.queryType), std::string(q.ns), q.range, q.duration, q.bytes, q.ok});
    booked.record(q);
  };
  PrometheusSource source(options, std::move(fake), clock);

  const Range range{kEnd - minutes(30), kEnd, minutes(5)};
  ASSERT_TRUE(source.cpuUsage(Scope{{"shop", "data"}}, range));
  ASSERT_TRUE(source.nodeCapacity(kEnd));
  ASSERT_FALSE(source.memoryWorkingSet(Scope{{"broken"}}, range));

  ASSERT_EQ(told.size(), 4u);  // two namespaces, the backend check, the failure (retried once)
  EXPECT_EQ(told[0].type, "cpu_usage");
  EXPECT_EQ(told[0].ns, "data");  // namespaces in sorted order
  EXPECT_EQ(told[1].ns, "shop");
  EXPECT_TRUE(told[0].range);
  EXPECT_EQ(told[0].duration, std::chrono::milliseconds(250));
  EXPECT_EQ(told[0].bytes, kMatrix.size());
  EXPECT_TRUE(told[0].ok);
  EXPECT_EQ(told[2].type, "node_capacity");
  EXPECT_EQ(told[2].ns, "");
  EXPECT_FALSE(told[2].range);
  EXPECT_EQ(told[3].type, "memory_working_set");
  EXPECT_FALSE(told[3].ok);
  EXPECT_EQ(told[3].bytes, 0u);
  // Two attempts and the wait between them.
  EXPECT_EQ(told[3].duration, std::chrono::milliseconds(1500));
  EXPECT_EQ(transport->requests.size(), 5u);

  const std::string text = registry.render();
  for (const std::string& line :
       {std::string("attune_prometheus_queries_total{query_type=\"cpu_usage\"} 2"),
        std::string("attune_prometheus_queries_total{query_type=\"memory_working_set\"} 1"),
        std::string("attune_prometheus_query_errors_total{namespace=\"broken\","
                    "query_type=\"memory_working_set\"} 1"),
        "attune_prometheus_response_bytes_total{query_type=\"cpu_usage\"} " +
            std::to_string(2 * kMatrix.size()),
        std::string("attune_prometheus_query_duration_seconds_count{query_type=\"cpu_usage\"} 2"),
        std::string(
            "attune_prometheus_query_duration_seconds_sum{query_type=\"cpu_usage\"} 0.5")}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  // Successful queries book no error series.
  EXPECT_EQ(text.find("query_errors_total{namespace=\"shop\""), std::string::npos) << text;
}

}  // namespace
}  // namespace attune::metrics
