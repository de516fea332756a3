// The views of `kubectl attune`: documents built from policies, pods, Events and planned
// passes, and their table, JSON and YAML forms.
#include "cli/plugin_views.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "cli/plugin_watch.h"
#include "controller/event_recorder.h"
#include "core/clock.h"
#include "safety/annotations.h"
#include "safety/resize_record.h"
#include "support/pod_builder.h"

namespace attune::cli::plugin {
namespace {

using namespace std::chrono_literals;

Time at(const char* text) { return *parseRfc3339(text); }

const Time kNow = at("2026-03-01T12:00:00Z");

api::AttunePolicy policy(const std::string& ns, const std::string& name, api::UpdateMode mode) {
  api::AttunePolicy p;
  p.metadata.namespace_ = ns;
  p.metadata.name = name;
  p.spec.targetRef.kind = api::TargetKind::kDeployment;
  p.spec.targetRef.name = name;
  p.spec.updateStrategy.type = mode;
  return p;
}

api::Condition condition(std::string_view type, std::string status, std::string_view reason,
                         std::string message = {}) {
  return {.type = std::string(type),
          .status = std::move(status),
          .reason = std::string(reason),
          .message = std::move(message),
          .lastTransitionTime = kNow,
          .observedGeneration = 1};
}

api::Event controllerEvent(const std::string& ns, const std::string& pod, const std::string& reason,
                           const std::string& message, Time time) {
  api::Event e;
  e.metadata.namespace_ = ns;
  e.metadata.name = pod + "." + reason;
  e.involvedObject = {.apiVersion = "v1",
                      .kind = "Pod",
                      .namespace_ = ns,
                      .name = pod,
                      .uid = {},
                      .resourceVersion = {},
                      .fieldPath = {}};
  e.reason = reason;
  e.message = message;
  e.type = "Normal";
  e.lastTimestamp = time;
  e.count = 1;
  e.sourceComponent = std::string(controller::kEventComponent);
  e.reportingComponent = std::string(controller::kEventComponent);
  return e;
}

api::ResizeHistoryEntry entry(Time t, const std::string& pod, api::ResizedResource resource,
                              std::string from, std::string to, api::ResizeResult result,
                              std::string reason = {}) {
  return {.timestamp = t,
          .workload = "web",
          .pod = pod,
          .container = "app",
          .resource = resource,
          .from = std::move(from),
          .to = std::move(to),
          .method = api::ResizeMethod::kInPlace,
          .result = result,
          .reason = std::move(reason)};
}

TEST(PluginOutputFormat, ParsesTheThreeFormatsAndNamesTheFlagOtherwise) {
  EXPECT_EQ(*parseOutputFormat("table"), OutputFormat::kTable);
  EXPECT_EQ(*parseOutputFormat("json"), OutputFormat::kJson);
  EXPECT_EQ(*parseOutputFormat("yaml"), OutputFormat::kYaml);
  const auto bad = parseOutputFormat("xml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().field, "--output");
  EXPECT_NE(bad.error().message.find("xml"), std::string::npos);
}

TEST(PluginStatus, ShowsModeTargetReadinessCountsAndSavings) {
  api::AttunePolicy web = policy("apps", "web", api::UpdateMode::kCanary);
  web.status.conditions = {condition(api::kConditionReady, "True", "Monitoring"),
                           condition(api::kConditionDegraded, "True", api::kReasonHighRevertRate)};
  web.status.workloads = api::PolicyWorkloadCounts{.discovered = 3,
                                                   .withRecommendations = 2,
                                                   .resized = 1,
                                                   .pending = 1,
                                                   .dataPointsCollected = 40,
                                                   .dataPointsRequired = 6};
  web.status.savings = api::SavingsStatus{.cpuRequestTotal = "1",
                                          .cpuRequestReduction = "250m",
                                          .cpuRequestIncrease = {},
                                          .memoryRequestTotal = "1Gi",
                                          .memoryRequestReduction = "256Mi",
                                          .memoryRequestIncrease = {}};
  web.status.lastReconcileTime = kNow - 90s;
  api::AttunePolicy db = policy("data", "db", api::UpdateMode::kObserve);
  db.spec.targetRef.name.clear();
  db.spec.targetRef.kind = api::TargetKind::kStatefulSet;
  db.spec.targetRef.selector =
      api::LabelSelector{.matchLabels = {{"app", "db"}}, .matchExpressions = {}};
  db.status.conditions = {
      condition(api::kConditionReady, "False", "PrometheusUnavailable", "connection refused")};

  const Document rows = statusRows({web, db}, kNow);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["mode"], "Canary");
  EXPECT_EQ(rows[0]["target"], "Deployment/web");
  EXPECT_EQ(rows[0]["ready"], "True");
  EXPECT_EQ(rows[0]["reason"], "Monitoring");
  EXPECT_EQ(rows[0]["degraded"], "HighRevertRate");
  EXPECT_EQ(rows[0]["discovered"], 3);
  EXPECT_EQ(rows[0]["resized"], 1);
  EXPECT_EQ(rows[0]["pending"], 1);
  EXPECT_EQ(rows[0]["cpuReduction"], "250m");
  EXPECT_EQ(rows[0]["memoryReduction"], "256Mi");
  EXPECT_EQ(rows[0]["lastReconcile"], "2026-03-01T11:58:30Z");
  EXPECT_EQ(rows[0]["age"], "90s");
  EXPECT_EQ(rows[1]["mode"], "Observe");
  EXPECT_EQ(rows[1]["target"], "StatefulSet app=db");
  EXPECT_EQ(rows[1]["ready"], "False");
  EXPECT_EQ(rows[1]["reason"], "PrometheusUnavailable: connection refused");
  EXPECT_TRUE(rows[1]["degraded"].is_null());
  EXPECT_TRUE(rows[1]["resized"].is_null());

  const std::string table =
      render(rows, "AttunePolicyStatusList", statusColumns(), OutputFormat::kTable);
  EXPECT_EQ(
      table.substr(0, table.find('\n')),
      "NAMESPACE  NAME  MODE     TARGET              READY  REASON                         "
      "            DEGRADED        WORKLOADS  RESIZED  PENDING  CPU REDUCTION  MEMORY REDUCTION  "
      "LAST RECONCILE");
  EXPECT_NE(table.find("apps       web   Canary   Deployment/web      True   Monitoring"),
            std::string::npos)
      << table;
  // Unset values show as "-".
  EXPECT_NE(table.find("data       db    Observe  StatefulSet app=db  False  "
                       "PrometheusUnavailable: connection refused  -               -"),
            std::string::npos)
      << table;
}

TEST(PluginRender, JsonAndYamlCarryEveryFieldAndTheKind) {
  api::AttunePolicy web = policy("apps", "web", api::UpdateMode::kAuto);
  web.status.lastReconcileTime = kNow - 3h;
  const Document rows = statusRows({web}, kNow);
  const auto json = nlohmann::json::parse(
      render(rows, "AttunePolicyStatusList", statusColumns(), OutputFormat::kJson));
  EXPECT_EQ(json["kind"], "AttunePolicyStatusList");
  ASSERT_EQ(json["items"].size(), 1u);
  EXPECT_EQ(json["items"][0]["mode"], "Auto");
  EXPECT_EQ(json["items"][0]["age"], "3h");
  EXPECT_TRUE(json["items"][0]["ready"].is_null());

  const YAML::Node yaml =
      YAML::Load(render(rows, "AttunePolicyStatusList", statusColumns(), OutputFormat::kYaml));
  EXPECT_EQ(yaml["kind"].as<std::string>(), "AttunePolicyStatusList");
  EXPECT_EQ(yaml["items"][0]["name"].as<std::string>(), "web");
  EXPECT_EQ(yaml["items"][0]["paused"].as<std::string>(), "false");
  EXPECT_TRUE(yaml["items"][0]["ready"].IsNull());
}

TEST(PluginRender, AnEmptyTableSaysSo) {
  EXPECT_EQ(render(Document::array(), "X", statusColumns(), OutputFormat::kTable),
            "No AttunePolicies found.\n");
  EXPECT_EQ(render(Document::array(), "X", historyColumns(), OutputFormat::kTable, "None."),
            "None.\n");
  const auto json =
      nlohmann::json::parse(render(Document::array(), "X", statusColumns(), OutputFormat::kJson));
  EXPECT_TRUE(json["items"].is_array());
  EXPECT_TRUE(json["items"].empty());
}

TEST(PluginAge, PrintsAgesAsKubectlDoes) {
  EXPECT_EQ(age(std::nullopt, kNow), "-");
  EXPECT_EQ(age(kNow - 5s, kNow), "5s");
  EXPECT_EQ(age(kNow - 10min, kNow), "10m");
  EXPECT_EQ(age(kNow - 5h, kNow), "5h");
  EXPECT_EQ(age(kNow - 72h, kNow), "3d");
  EXPECT_EQ(age(kNow + 5s, kNow), "0s");
}

TEST(PluginRecommendations, OneRowPerContainerWithTheReason) {
  api::AttunePolicy web = policy("apps", "web", api::UpdateMode::kAuto);
  api::ContainerRecommendation app{.name = "app",
                                   .current = {.cpuRequest = Millicores(1000),
                                               .cpuLimit = Millicores(2000),
                                               .memoryRequest = Bytes(std::int64_t{1} << 30),
                                               .memoryLimit = std::nullopt},
                                   .recommended = {.cpuRequest = Millicores(150),
                                                   .cpuLimit = std::nullopt,
                                                   .memoryRequest = Bytes(std::int64_t{200} << 20),
                                                   .memoryLimit = std::nullopt},
                                   .confidence = 0.5,
                                   .dataPoints = 30,
                                   .lastUpdated = kNow,
                                   .rationale = "P95 of 30 points plus 20% overhead"};
  web.status.recommendations = {{.workload = "web",
                                 .kind = "Deployment",
                                 .containers = {app},
                                 .lastDataTime = kNow,
                                 .stale = false}};
  api::AttunePolicy idle = policy("apps", "idle", api::UpdateMode::kRecommend);
  idle.status.conditions = {
      condition(api::kConditionReady, "False", "InsufficientData", "3 of 48 data points")};
  api::AttunePolicy fresh = policy("apps", "fresh", api::UpdateMode::kRecommend);

  const Document rows = recommendationRows({web, idle, fresh});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["workload"], "Deployment/web");
  EXPECT_EQ(rows[0]["container"], "app");
  EXPECT_EQ(rows[0]["cpuRequest"], "1");
  EXPECT_EQ(rows[0]["cpuRecommended"], "150m");
  EXPECT_EQ(rows[0]["memoryRequest"], "1Gi");
  EXPECT_EQ(rows[0]["memoryRecommended"], "200Mi");
  EXPECT_EQ(rows[0]["cpuLimit"], "2");
  EXPECT_TRUE(rows[0]["memoryLimit"].is_null());
  EXPECT_EQ(rows[0]["confidence"], 50);
  EXPECT_EQ(rows[0]["dataPoints"], 30);
  EXPECT_EQ(rows[0]["reason"], "P95 of 30 points plus 20% overhead");
  EXPECT_EQ(rows[1]["policy"], "idle");
  EXPECT_TRUE(rows[1]["container"].is_null());
  EXPECT_EQ(rows[1]["reason"], "3 of 48 data points");
  EXPECT_NE(rows[2]["reason"].get<std::string>().find("not reconciled"), std::string::npos);

  const std::string table =
      render(rows, "AttuneRecommendationList", recommendationColumns(), OutputFormat::kTable);
  EXPECT_NE(table.find("CPU REQ  CPU REC  MEM REQ  MEM REC"), std::string::npos) << table;
  EXPECT_NE(table.find("1        150m     1Gi      200Mi"), std::string::npos) << table;
}

TEST(PluginSavings, ReductionsAsShareOfTheTotals) {
  api::AttunePolicy web = policy("apps", "web", api::UpdateMode::kAuto);
  web.status.savings = api::SavingsStatus{.cpuRequestTotal = "1",
                                          .cpuRequestReduction = "250m",
                                          .cpuRequestIncrease = "10m",
                                          .memoryRequestTotal = "1Gi",
                                          .memoryRequestReduction = "256Mi",
                                          .memoryRequestIncrease = {}};
  api::AttunePolicy none = policy("apps", "none", api::UpdateMode::kAuto);
  const Document rows = savingsRows({web, none});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["cpuRequestReduction"], "250m");
  EXPECT_DOUBLE_EQ(rows[0]["cpuReductionPercent"].get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(rows[0]["memoryReductionPercent"].get<double>(), 25.0);
  EXPECT_EQ(rows[0]["cpuRequestIncrease"], "10m");
  EXPECT_TRUE(rows[0]["memoryRequestIncrease"].is_null());
  EXPECT_TRUE(rows[1]["cpuReductionPercent"].is_null());
}

TEST(PluginHistory, StatusEntriesAndTheControllersEventsOldestFirst) {
  api::AttunePolicy web = policy("apps", "web", api::UpdateMode::kAuto);
  web.status.resizeHistory = {
      entry(kNow - 10min, "web-1", api::ResizedResource::kCpu, "1", "150m",
            api::ResizeResult::kApplied),
      entry(kNow - 2min, "web-1", api::ResizedResource::kCpuAndMemory, "", "",
            api::ResizeResult::kReverted, "oomkill"),
  };
  api::Event other = controllerEvent("apps", "web-1", "Killing", "stopping", kNow - 5min);
  other.sourceComponent = "kubelet";
  other.reportingComponent = "kubelet";
  const std::vector<api::Event> events = {
      controllerEvent("apps", "web-1", "Reverted", "OOM kill of app", kNow - 2min + 1s),
      controllerEvent("apps", "web-1", "Resized", "app: cpu 1 -> 150m", kNow - 10min),
      other,                                                                     // not ours
      controllerEvent("apps", "db-0", "Resized", "unrelated pod", kNow - 4min),  // not its pod
      controllerEvent("prod", "web-1", "Resized", "other namespace", kNow - 4min),
  };
  const Document rows = historyRows({web}, events);
  ASSERT_EQ(rows.size(), 4u) << rows.dump(2);
  EXPECT_EQ(rows[0]["source"], "status");
  EXPECT_EQ(rows[0]["from"], "1");
  EXPECT_EQ(rows[0]["to"], "150m");
  EXPECT_EQ(rows[0]["result"], "Applied");
  EXPECT_EQ(rows[1]["source"], "event");
  EXPECT_EQ(rows[1]["result"], "Resized");
  EXPECT_EQ(rows[2]["result"], "Reverted");
  EXPECT_EQ(rows[2]["reason"], "oomkill");
  EXPECT_EQ(rows[2]["resource"], "cpu+memory");
  EXPECT_EQ(rows[3]["source"], "event");
  EXPECT_EQ(rows[3]["reason"], "OOM kill of app");
}

TEST(PluginExplain, SaysWhyEachPodWasOrWasNotResized) {
  api::AttunePolicy web = policy("apps", "web", api::UpdateMode::kAuto);
  web.status.resizeHistory = {
      entry(kNow - 30min, "web-reverted", api::ResizedResource::kMemory, "512Mi", "300Mi",
            api::ResizeResult::kApplied),
      entry(kNow - 20min, "web-reverted", api::ResizedResource::kCpuAndMemory, "", "",
            api::ResizeResult::kReverted, "oomkill"),
      entry(kNow - 15min, "web-safe", api::ResizedResource::kCpu, "1", "150m",
            api::ResizeResult::kApplied),
      entry(kNow - 5min, "web-skipped", api::ResizedResource::kCpuAndMemory, "", "",
            api::ResizeResult::kSkipped, "LimitRange"),
  };
  const api::Pod base = testing::PodBuilder("apps", "web-observed")
                            .container("app")
                            .cpuRequest(Millicores(150))
                            .build();
  api::Pod observed = base;
  const safety::ResizeRecord record{.resizedAt = kNow - 1min,
                                    .workload = "web",
                                    .policy = "web",
                                    .containers = {{.name = "app",
                                                    .original = {.cpuRequest = Millicores(1000),
                                                                 .cpuLimit = std::nullopt,
                                                                 .memoryRequest = std::nullopt,
                                                                 .memoryLimit = std::nullopt},
                                                    .target = {.cpuRequest = Millicores(150),
                                                               .cpuLimit = std::nullopt,
                                                               .memoryRequest = std::nullopt,
                                                               .memoryLimit = std::nullopt},
                                                    .restartCount = 0}}};
  const auto annotations = safety::encodeResizeAnnotations(record);
  ASSERT_TRUE(annotations.has_value());
  for (const auto& [key, value] : *annotations) {
    observed.metadata.annotations[key] = *value;
  }
  auto named = [&](const std::string& name) {
    api::Pod p = base;
    p.metadata.name = name;
    return p;
  };
  const std::vector<ExplainedPod> pods = {{"web", observed},
                                          {"web", named("web-reverted")},
                                          {"web", named("web-safe")},
                                          {"web", named("web-skipped")},
                                          {"web", named("web-new")}};
  const std::vector<api::Event> events = {
      controllerEvent("apps", "web-reverted", "Reverted", "OOM kill of app", kNow - 20min)};
  const Document rows = explainRows(web, pods, events, {}, kNow);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0]["state"], "UnderObservation");
  EXPECT_EQ(rows[0]["since"], "2026-03-01T11:59:00Z");
  EXPECT_NE(rows[0]["why"].get<std::string>().find("resized by policy web (app)"),
            std::string::npos)
      << rows[0]["why"];
  EXPECT_EQ(rows[1]["state"], "Reverted");
  EXPECT_NE(rows[1]["why"].get<std::string>().find("oomkill"), std::string::npos);
  ASSERT_EQ(rows[1]["events"].size(), 1u);
  EXPECT_EQ(rows[1]["events"][0], "Reverted: OOM kill of app");
  EXPECT_EQ(rows[2]["state"], "Resized");
  EXPECT_NE(rows[2]["why"].get<std::string>().find("app: cpu 1 -> 150m"), std::string::npos)
      << rows[2]["why"];
  EXPECT_EQ(rows[3]["state"], "Skipped");
  EXPECT_NE(rows[3]["why"].get<std::string>().find("LimitRange"), std::string::npos);
  EXPECT_EQ(rows[4]["state"], "NotResized");
  EXPECT_EQ(rows[4]["why"], "no recommendation for its workload yet");

  // A Recommend policy never resizes: its pods say so.
  const api::AttunePolicy recommend = policy("apps", "web", api::UpdateMode::kRecommend);
  const Document only = explainRows(recommend, {{"web", named("web-new")}}, {}, {}, kNow);
  EXPECT_NE(only[0]["why"].get<std::string>().find("mode Recommend only recommends"),
            std::string::npos);

  // With a recommendation, a pod waits for its workload's cooldown (annotations on the
  // workload: one revert doubles the 1h default).
  api::AttunePolicy cooling = web;
  api::ContainerRecommendation app;
  app.name = "app";
  app.recommended.cpuRequest = Millicores(150);
  cooling.status.recommendations = {{.workload = "web",
                                     .kind = "Deployment",
                                     .containers = {app},
                                     .lastDataTime = kNow,
                                     .stale = false}};
  WorkloadMetadata workloads;
  workloads["web"].name = "web";
  workloads["web"].annotations = {
      {std::string(safety::kLastResizeTimeAnnotation), "2026-03-01T11:50:00Z"},
      {std::string(safety::kConsecutiveRevertsAnnotation), "1"}};
  const Document waiting = explainRows(cooling, {{"web", named("web-new")}}, {}, workloads, kNow);
  EXPECT_EQ(waiting[0]["state"], "NotResized");
  EXPECT_NE(waiting[0]["why"].get<std::string>().find("cooldown has 1h50m"), std::string::npos)
      << waiting[0]["why"];
  EXPECT_NE(waiting[0]["why"].get<std::string>().find("after 1 consecutive revert"),
            std::string::npos)
      << waiting[0]["why"];
  // Once the cooldown is over, it waits for its turn.
  const Document later =
      explainRows(cooling, {{"web", named("web-new")}}, {}, workloads, kNow + 3h);
  EXPECT_NE(later[0]["why"].get<std::string>().find("waiting for its turn"), std::string::npos)
      << later[0]["why"];

  const std::string header = explainHeader(web, workloads, kNow);
  EXPECT_NE(header.find("Mode:      Auto"), std::string::npos) << header;
  EXPECT_NE(header.find("Target:    Deployment/web"), std::string::npos) << header;
  EXPECT_NE(header.find("Workload:  web: last resize 2026-03-01T11:50:00Z, 1 consecutive revert"),
            std::string::npos)
      << header;
}

TEST(PluginPreview, OneRowPerPlannedActionAndWhyNothingIsPlanned) {
  controller::PolicyPreview resizing;
  resizing.policy = policy("apps", "web", api::UpdateMode::kAuto);
  rollout::ResizeAction resize;
  resize.workload = {.ns = "apps", .kind = "Deployment", .name = "web"};
  resize.pod = "web-1";
  resize.message = "app: cpu 1 -> 150m";
  rollout::SkipAction skip;
  skip.workload = resize.workload;
  skip.pod = "web-2";
  skip.reason = rollout::SkipReason::kLimitRange;
  skip.message = "below the LimitRange minimum";
  resizing.plan.actions = {resize, skip};

  controller::PolicyPreview noMetrics;
  noMetrics.policy = policy("apps", "db", api::UpdateMode::kAuto);
  noMetrics.metricsError = "prometheus query failed";
  controller::PolicyPreview invalid;
  invalid.policy = policy("apps", "bad", api::UpdateMode::kAuto);
  invalid.invalid = "unknown strategy";
  controller::PolicyPreview idle;
  idle.policy = policy("apps", "idle", api::UpdateMode::kRecommend);
  idle.plan.atTarget = 2;

  const Document rows = previewRows({resizing, noMetrics, invalid, idle});
  ASSERT_EQ(rows.size(), 5u) << rows.dump(2);
  EXPECT_EQ(rows[0]["action"], "Resize");
  EXPECT_EQ(rows[0]["pod"], "web-1");
  EXPECT_EQ(rows[0]["detail"], "app: cpu 1 -> 150m");
  EXPECT_EQ(rows[1]["action"], "Skip");
  EXPECT_EQ(rows[1]["detail"], "LimitRange: below the LimitRange minimum");
  EXPECT_EQ(rows[2]["action"], "NoResize");
  EXPECT_NE(rows[2]["detail"].get<std::string>().find("prometheus query failed"),
            std::string::npos);
  EXPECT_EQ(rows[3]["action"], "Invalid");
  EXPECT_EQ(rows[4]["action"], "None");
  EXPECT_NE(rows[4]["detail"].get<std::string>().find("2 pod(s) at target"), std::string::npos);
  EXPECT_NE(rows[4]["detail"].get<std::string>().find("never resizes"), std::string::npos);
}

TEST(PluginWatch, RepeatsOnTheClockUntilTheCountOrAFailure) {
  SimulatedClock clock(kNow);
  std::vector<Time> runs;
  EXPECT_EQ(repeatEvery(clock, 5s, 3,
                        [&] {
                          runs.push_back(clock.now());
                          return true;
                        }),
            3);
  EXPECT_EQ(runs, (std::vector<Time>{kNow, kNow + 5s, kNow + 10s}));
  EXPECT_EQ(clock.now(), kNow + 10s);  // no wait after the last run

  int calls = 0;
  EXPECT_EQ(repeatEvery(clock, 5s, 0, [&] { return ++calls < 4; }), 4);
  EXPECT_EQ(calls, 4);
}

}  // namespace
}  // namespace attune::cli::plugin
