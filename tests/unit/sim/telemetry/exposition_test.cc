// The OpenMetrics dump and the Prometheus text rendering: names, labels, structure,
// escaping and determinism.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "sim/telemetry/openmetrics.h"
#include "sim/telemetry/prometheus_text.h"
#include "telemetry_fixture.h"

namespace attune::sim {
namespace {

using namespace attune::literals;
using testing::PodBuilder;
using testing::resources;
using testing::TelemetryFixture;

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool contains(const std::string& text, std::string_view needle) {
  return text.find(needle) != std::string::npos;
}

// Two Deployment pods, a StatefulSet pod that is OOM-killed and restarted at minute 3, and a
// node, recorded for 5 minutes.
void simulate(TelemetryFixture& f) {
  ASSERT_TRUE(f.state.nodes.create(testing::readyNode("n1", "4", "16Gi")));
  api::ReplicaSet rs;
  rs.metadata.namespace_ = "shop";
  rs.metadata.name = "web-7d9c5";
  rs.metadata.ownerReferences.push_back({"apps/v1", "Deployment", "web", "d1", true});
  ASSERT_TRUE(f.state.replicaSets.create(rs));
  for (const char* name : {"web-7d9c5-b", "web-7d9c5-a"}) {
    api::Pod pod = PodBuilder("shop", name)
                       .container("app", resources("250m", "128Mi", "500m", "256Mi"))
                       .build();
    pod.metadata.ownerReferences.push_back({"apps/v1", "ReplicaSet", "web-7d9c5", "r1", true});
    f.addPod(pod);
  }
  api::Pod db =
      PodBuilder("data", "db-0").container("pg", resources("1", "1Gi", "", "1Gi")).build();
  db.metadata.ownerReferences.push_back({"apps/v1", "StatefulSet", "db", "s1", true});
  f.addPod(db);
  NodeRuntime& node = f.addNode("n1");
  for (int minute = 1; minute <= 5; ++minute) {
    TelemetryFixture::run(f.container("shop", "web-7d9c5-a", "app"), 0.25, 100_Mi, 30);
    TelemetryFixture::run(f.container("shop", "web-7d9c5-b", "app"), 0.5, 120_Mi);
    TelemetryFixture::run(f.container("data", "db-0", "pg"), 1, 900_Mi, 0, 0.1);
    node.load1 = minute;
    node.cpuSecondsTotal += 105;
    node.memoryWorkingSet = 1_Gi;
    if (minute == 3) {
      ContainerRuntime& pg = f.container("data", "db-0", "pg");
      pg.lastOomKillAt = f.clock.now() + std::chrono::seconds(30);
      pg.memoryAtLastOomKill = 1_Gi;
      ASSERT_TRUE(f.state.pods.modify("data", "db-0", "", [](api::Pod& pod) {
        pod.status.containerStatuses[0].restartCount = 1;
        pod.status.containerStatuses[0].lastState.terminated =
            api::ContainerStateTerminated{137, "OOMKilled", "", {}, {}};
        return Result<Change>(Change::kMetadata);
      }));
    }
    f.tick();
  }
}

std::string dump(const TelemetryFixture& f) {
  std::ostringstream out;
  auto ok = writeOpenMetrics(out, f.recorder, f.state);
  EXPECT_TRUE(ok) << ok.error().toString();
  return out.str();
}

TEST(OpenMetricsTest, SameRunGivesIdenticalBytes) {
  TelemetryFixture a;
  TelemetryFixture b;
  simulate(a);
  simulate(b);
  const std::string text = dump(a);
  EXPECT_GT(text.size(), 1000u);
  EXPECT_EQ(text, dump(b));
  EXPECT_EQ(text, dump(a));
}

TEST(OpenMetricsTest, FamiliesAreContiguousWithHelpTypeAndTotalSuffixes) {
  TelemetryFixture f;
  simulate(f);
  const auto lines = linesOf(dump(f));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "# EOF");
  std::set<std::string> seen;
  std::string family;
  std::string type;
  std::set<std::string> samplesPerSeries;
  std::string previousSeries;
  double previousTime = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.starts_with("# HELP ")) {
      family = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(seen.insert(family).second) << family << " is written twice";
      ASSERT_TRUE(lines[i + 1].starts_with("# TYPE " + family + " ")) << line;
      type = lines[i + 1].substr(8 + family.size());
      ++i;
      continue;
    }
    const std::string sampleName = type == "counter" ? family + "_total" : family;
    ASSERT_TRUE(line.starts_with(sampleName + "{")) << line << " in " << family;
    // Each series is whole and in time order.
    const std::string series = line.substr(0, line.find("} ") + 1);
    const double time = std::stod(line.substr(line.rfind(' ') + 1));
    if (series == previousSeries) {
      EXPECT_GT(time, previousTime) << line;
    } else {
      EXPECT_TRUE(samplesPerSeries.insert(series).second) << series << " is split";
    }
    previousSeries = series;
    previousTime = time;
  }
  for (const char* name :
       {"container_cpu_usage_seconds", "container_memory_working_set_bytes",
        "container_cpu_cfs_periods", "container_cpu_cfs_throttled_periods",
        "container_pressure_cpu_waiting_seconds", "kube_pod_container_status_restarts",
        "kube_pod_container_resource_requests", "kube_pod_container_resource_limits",
        "kube_pod_owner", "kube_replicaset_owner",
        "kube_pod_container_status_last_terminated_reason", "node_load1",
        "kube_node_status_capacity"}) {
    EXPECT_TRUE(seen.contains(name)) << name;
  }
}

TEST(OpenMetricsTest, SamplesCarryTheRecordedValuesAndLabels) {
  TelemetryFixture f;
  simulate(f);
  const std::string text = dump(f);
  const auto seconds = [](int minute) {
    return std::to_string(
        std::chrono::floor<std::chrono::seconds>(TelemetryFixture::at(minute).time_since_epoch())
            .count());
  };
  const std::string& uid = f.state.pods.find("shop", "web-7d9c5-a")->metadata.uid;
  const std::string cadvisor = "{container=\"app\",id=\"/kubepods/pod" + uid +
                               "/app\",namespace=\"shop\",node=\"n1\",pod=\"web-7d9c5-a\"}";
  EXPECT_TRUE(contains(text, "container_cpu_usage_seconds_total" + cadvisor + " 30 " + seconds(2)));
  EXPECT_TRUE(
      contains(text, "container_cpu_cfs_throttled_periods_total" + cadvisor + " 90 " + seconds(3)));
  EXPECT_TRUE(
      contains(text, "container_memory_working_set_bytes" + cadvisor + " 104857600 " + seconds(1)));
  const std::string ksm =
      "{container=\"app\",namespace=\"shop\",node=\"n1\",pod=\"web-7d9c5-a\","
      "resource=\"cpu\",uid=\"" +
      uid + "\",unit=\"core\"}";
  EXPECT_TRUE(contains(text, "kube_pod_container_resource_requests" + ksm + " 0.25 " + seconds(5)));
  EXPECT_TRUE(contains(text, "kube_pod_container_resource_limits" + ksm + " 0.5 " + seconds(5)));
  EXPECT_TRUE(contains(text,
                       "kube_replicaset_owner{namespace=\"shop\",owner_is_controller=\"true\","
                       "owner_kind=\"Deployment\",owner_name=\"web\",replicaset=\"web-7d9c5\"} 1 " +
                           seconds(1)));
  EXPECT_TRUE(contains(text, "node_load1{instance=\"n1:9100\",node=\"n1\"} 4 " + seconds(4)));
  EXPECT_TRUE(contains(text,
                       "kube_node_status_capacity{node=\"n1\",resource=\"memory\","
                       "unit=\"byte\"} 17179869184 " +
                           seconds(1)));
  // The restart and the reason appear from the tick that saw them (minute 3) on.
  const std::string& dbUid = f.state.pods.find("data", "db-0")->metadata.uid;
  const std::string db = "{container=\"pg\",namespace=\"data\",pod=\"db-0\",uid=\"" + dbUid + "\"}";
  EXPECT_TRUE(contains(text, "kube_pod_container_status_restarts_total" + db + " 0 " + seconds(2)));
  EXPECT_TRUE(contains(text, "kube_pod_container_status_restarts_total" + db + " 1 " + seconds(3)));
  const std::string reason =
      "kube_pod_container_status_last_terminated_reason{container=\"pg\","
      "namespace=\"data\",pod=\"db-0\",reason=\"OOMKilled\",uid=\"" +
      dbUid + "\"} 1 ";
  EXPECT_FALSE(contains(text, reason + seconds(2)));
  EXPECT_TRUE(contains(text, reason + seconds(3)));
}

TEST(OpenMetricsTest, FractionalTimestampsKeepMilliseconds) {
  TelemetryFixture f;
  f.addPod(PodBuilder("team", "web").container("app", {}).build());
  f.clock.advance(std::chrono::milliseconds(1500));
  f.tick();
  const std::string text = dump(f);
  const auto whole =
      std::chrono::floor<std::chrono::seconds>(f.clock.now().time_since_epoch()).count();
  EXPECT_TRUE(contains(text, " 0 " + std::to_string(whole) + ".500\n")) << text;
}

TEST(PrometheusTextTest, CurrentValuesWithoutTimestamps) {
  TelemetryFixture f;
  simulate(f);
  const std::string text = renderPrometheusText(f.state, f.pods, f.nodes);
  EXPECT_TRUE(contains(text, "# TYPE container_cpu_usage_seconds_total counter\n"));
  EXPECT_TRUE(contains(text, "# TYPE container_memory_working_set_bytes gauge\n"));
  EXPECT_TRUE(contains(text, "# HELP node_load1 1m load average.\n"));
  const std::string& uid = f.state.pods.find("data", "db-0")->metadata.uid;
  EXPECT_TRUE(
      contains(text, "container_cpu_usage_seconds_total{container=\"pg\",id=\"/kubepods/pod" + uid +
                         "/pg\",namespace=\"data\",node=\"n1\",pod=\"db-0\"} 300\n"));
  EXPECT_TRUE(contains(text,
                       "kube_pod_owner{namespace=\"data\",owner_is_controller=\"true\","
                       "owner_kind=\"StatefulSet\",owner_name=\"db\",pod=\"db-0\",uid=\"" +
                           uid + "\"} 1\n"));
  EXPECT_TRUE(contains(text, "node_load1{instance=\"n1:9100\",node=\"n1\"} 5\n"));
  EXPECT_FALSE(contains(text, "# EOF"));
  // Families are contiguous and every sample line has a name, labels and exactly one value.
  std::set<std::string> families;
  std::string current;
  for (const auto& line : linesOf(text)) {
    if (line.starts_with("# TYPE ")) {
      current = line.substr(7, line.rfind(' ') - 7);
      EXPECT_TRUE(families.insert(current).second) << current;
    } else if (!line.starts_with("#")) {
      EXPECT_TRUE(line.starts_with(current + "{")) << line;
      EXPECT_EQ(line.find(' '), line.rfind(' ')) << "no timestamp: " << line;
    }
  }
  EXPECT_EQ(text, renderPrometheusText(f.state, f.pods, f.nodes));
}

TEST(PrometheusTextTest, LabelValuesAreEscaped) {
  TelemetryFixture f;
  f.addPod(PodBuilder("team", "web").container("app", {}).build());
  ASSERT_TRUE(f.state.pods.modify("team", "web", "", [](api::Pod& pod) {
    pod.status.containerStatuses[0].lastState.terminated =
        api::ContainerStateTerminated{1, "say \"hi\"\\now\nbye", "", {}, {}};
    return Result<Change>(Change::kMetadata);
  }));
  const std::string text = renderPrometheusText(f.state, f.pods, f.nodes);
  EXPECT_TRUE(contains(text, R"(reason="say \"hi\"\\now\nbye")")) << text;
  f.tick();
  EXPECT_TRUE(contains(dump(f), R"(reason="say \"hi\"\\now\nbye")"));
}

}  // namespace
}  // namespace attune::sim
