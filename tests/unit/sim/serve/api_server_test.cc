// ApiServer::handle without a socket: list paging (limit/continue), watch streams of every kind
// from the WatchLog (order, 410 Gone, bookmarks), and the fault mode's answers. The host is not
// started: the simulation advances only through the tests' own steps and writes.
#include "sim/serve/api_server.h"

#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/k8s/decode.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

constexpr const char* kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: t}
spec:
  seed: 1
  start: "2026-01-05T00:00:00Z"
  duration: 24h
  tick: 60s
  nodePools: [{name: node, count: 3, cpu: "8", memory: 32Gi}]
  workloads:
  - kind: Deployment
    namespace: shop
    name: web
    replicas: 5
    containers:
    - name: app
      requests: {cpu: 100m, memory: 128Mi}
      model: {kind: steady, cpuCores: 50m, memoryBytes: 64Mi}
)";

constexpr const char* kPolicy =
    R"({"apiVersion":"attune.io/v1alpha1","kind":"AttunePolicy","metadata":{"name":"web"},)"
    R"("spec":{"targetRef":{"kind":"Deployment","name":"web"},"updateStrategy":{"type":"Recommend"}}})";

// A watch stream's sink: records each write; write() returns false (ending the stream) from
// the `maxWrites`-th write on. `onWrite` runs after each write.
class Sink : public ChunkSink {
 public:
  bool write(std::string_view data) override {
    writes.emplace_back(data);
    if (onWrite) onWrite();
    return static_cast<int>(writes.size()) < maxWrites;
  }
  bool closing() const override { return closingNow; }

  // The watch events written, in order.
  std::vector<Json> events() const {
    std::vector<Json> out;
    for (const std::string& w : writes) {
      std::size_t start = 0;
      for (std::size_t nl = w.find('\n'); nl != std::string::npos; nl = w.find('\n', start)) {
        out.push_back(Json::parse(w.substr(start, nl - start)));
        start = nl + 1;
      }
    }
    return out;
  }

  std::vector<std::string> writes;
  int maxWrites = 1;
  bool closingNow = false;
  std::function<void()> onWrite;
};

class ApiServerTest : public ::testing::Test {
 protected:
  void start(ApiServerOptions options = {}) {
    api_.reset();
    host_.reset();
    DecodedScenario decoded = decodeScenario(kScenario, {});
    ASSERT_TRUE(decoded.scenario);
    auto simulation = Simulation::create(*decoded.scenario);
    ASSERT_TRUE(simulation) << simulation.error().toString();
    host_ = std::make_unique<SimHost>(std::move(*simulation), wall_, std::chrono::seconds(1));
    ASSERT_TRUE(host_->withSimulation([](Simulation& s) { return s.step(); }));
    api_ = std::make_unique<ApiServer>(*host_, std::move(options));
  }

  HttpResponse call(std::string method, std::string target, std::string body = {},
                    std::string contentType = "application/json") {
    HttpRequest request;
    request.method = std::move(method);
    request.target = target;
    const std::size_t q = target.find('?');
    request.path = target.substr(0, q);
    if (q != std::string::npos) request.query = http::server::parseQuery(target.substr(q + 1));
    request.body = std::move(body);
    request.headers["content-type"] = std::move(contentType);
    return api_->handle(request);
  }

  Json get(const std::string& target) {
    HttpResponse r = call("GET", target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    return Json::parse(r.body, nullptr, false);
  }

  // The names of every item of a paged list, following the continue tokens.
  std::vector<std::string> pagedNames(const std::string& collection, int limit) {
    std::vector<std::string> names;
    std::string token;
    do {
      std::string target = collection + "?limit=" + std::to_string(limit);
      if (!token.empty()) target += "&continue=" + token;
      const Json page = get(target);
      for (const Json& item : page["items"]) names.push_back(item["metadata"]["name"]);
      token = page["metadata"].value("continue", "");
    } while (!token.empty());
    return names;
  }

  std::string listVersion(const std::string& collection) {
    return get(collection)["metadata"]["resourceVersion"];
  }

  SimulatedClock wall_{Time{}};
  std::unique_ptr<SimHost> host_;
  std::unique_ptr<ApiServer> api_;
};

std::vector<std::string> namesOf(const Json& list) {
  std::vector<std::string> out;
  for (const Json& item : list["items"]) out.push_back(item["metadata"]["name"]);
  return out;
}

TEST_F(ApiServerTest, PagedListsReturnEveryObjectOnceFromOneSnapshot) {
  start();
  const Json all = get("/api/v1/pods");
  ASSERT_EQ(all["items"].size(), 5u);
  EXPECT_FALSE(all["metadata"].contains("continue"));

  const Json first = get("/api/v1/namespaces/shop/pods?limit=2");
  EXPECT_EQ(first["items"].size(), 2u);
  EXPECT_EQ(first["metadata"]["remainingItemCount"], 3);
  const std::string token = first["metadata"]["continue"];
  // A pod deleted between pages is still in the list: the pages are of the first one's list.
  const std::string deleted = all["items"][4]["metadata"]["name"];
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/shop/pods/" + deleted).status, 200);
  const Json second = get("/api/v1/namespaces/shop/pods?limit=10&continue=" + token);
  EXPECT_FALSE(second["metadata"].contains("continue"));
  EXPECT_EQ(second["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"]);
  std::vector<std::string> names = namesOf(first);
  for (const std::string& n : namesOf(second)) names.push_back(n);
  EXPECT_EQ(names, namesOf(all));

  EXPECT_EQ(pagedNames("/api/v1/nodes", 1).size(), 3u);
  EXPECT_EQ(call("GET", "/api/v1/nodes?limit=x").status, 400);
  EXPECT_EQ(call("GET", "/api/v1/nodes?limit=1&continue=" + token).status, 400)
      << "a pods token on nodes";
}

TEST_F(ApiServerTest, AContinueWithoutItsSnapshotResumesOnlyWhileTheResourceIsUnchanged) {
  ApiServerOptions options;
  options.listSnapshots = 1;
  start(options);
  const std::vector<std::string> nodes = namesOf(get("/api/v1/nodes"));
  const Json nodePage = get("/api/v1/nodes?limit=1");
  const Json podPage = get("/api/v1/pods?limit=2");  // drops the nodes' snapshot
  const Json rest =
      get("/api/v1/nodes?limit=5&continue=" + nodePage["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(namesOf(rest), std::vector<std::string>(nodes.begin() + 1, nodes.end()));

  get("/api/v1/nodes?limit=1");  // drops the pods' snapshot
  const std::string victim = podPage["items"][0]["metadata"]["name"];
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/shop/pods/" + victim).status, 200);
  HttpResponse expired = call(
      "GET", "/api/v1/pods?limit=2&continue=" + podPage["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(expired.status, 410);
  EXPECT_EQ(Json::parse(expired.body)["reason"], "Expired");
}

TEST_F(ApiServerTest, ListsShowEveryWriteThoughTheObjectsTextIsKept) {
  start();
  const std::string policies = "/apis/attune.io/v1alpha1/namespaces/shop/attunepolicies";
  ASSERT_EQ(call("POST", policies, kPolicy).status, 201);
  const std::string deployment = "/apis/apps/v1/namespaces/shop/deployments/web";
  // Listed twice unchanged (the second from the kept text), then after each write.
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(get("/apis/apps/v1/deployments")["items"][0]["metadata"].value("annotations", Json()),
              Json());
    EXPECT_EQ(get(policies)["items"][0]["spec"]["updateStrategy"]["type"], "Recommend");
  }
  ASSERT_EQ(call("PATCH", deployment, R"({"metadata":{"annotations":{"a":"1"}}})",
                 "application/merge-patch+json")
                .status,
            200);
  ASSERT_EQ(call("PATCH", policies + "/web", R"({"spec":{"updateStrategy":{"type":"Auto"}}})",
                 "application/merge-patch+json")
                .status,
            200);
  EXPECT_EQ(get("/apis/apps/v1/deployments")["items"][0]["metadata"]["annotations"]["a"], "1");
  EXPECT_EQ(get(policies)["items"][0]["spec"]["updateStrategy"]["type"], "Auto");
  // A paged list and a watch from the current objects read the same text.
  EXPECT_EQ(get(policies + "?limit=1")["items"][0]["spec"]["updateStrategy"]["type"], "Auto");
  ASSERT_EQ(call("DELETE", policies + "/web").status, 200);
  EXPECT_TRUE(get(policies)["items"].empty());
  // Recreated under the same name: its own text, not the deleted object's.
  ASSERT_EQ(call("POST", policies, kPolicy).status, 201);
  EXPECT_EQ(get(policies)["items"][0]["spec"]["updateStrategy"]["type"], "Recommend");
}

TEST(EncodedObjectsTest, EncodesAgainOnlyAtANewResourceVersion) {
  EncodedObjects encoded;
  int encodes = 0;
  api::ObjectMeta meta;
  meta.namespace_ = "shop";
  meta.name = "web";
  meta.resourceVersion = "5";
  const auto encode = [&](std::string text) {
    return [&encodes, text] {
      ++encodes;
      return text;
    };
  };
  EXPECT_EQ(encoded.text("pods", meta, encode("v5")), "v5");
  EXPECT_EQ(encoded.text("pods", meta, encode("other")), "v5");
  EXPECT_EQ(encodes, 1);
  EXPECT_EQ(encoded.text("nodes", meta, encode("a node")), "a node") << "another resource";
  meta.resourceVersion = "6";
  EXPECT_EQ(encoded.text("pods", meta, encode("v6")), "v6");
  EXPECT_EQ(encodes, 3);
  meta.resourceVersion = "7";
  encoded.put("pods", meta, "v7 as written");
  EXPECT_EQ(encoded.text("pods", meta, encode("v7")), "v7 as written");
  EXPECT_EQ(encoded.size(), 2u);
  encoded.erase("pods", meta);
  EXPECT_EQ(encoded.size(), 1u);
  EXPECT_EQ(encoded.text("pods", meta, encode("v7 again")), "v7 again");
}

TEST_F(ApiServerTest, WatchesDeploymentsInResourceVersionOrder) {
  start();
  const std::string rv = listVersion("/apis/apps/v1/deployments");
  ASSERT_EQ(call("PATCH", "/apis/apps/v1/namespaces/shop/deployments/web",
                 R"({"metadata":{"annotations":{"a":"1"}}})", "application/merge-patch+json")
                .status,
            200);
  ASSERT_EQ(call("POST", "/apis/apps/v1/namespaces/shop/deployments",
                 R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"extra"}})")
                .status,
            201);
  ASSERT_EQ(call("DELETE", "/apis/apps/v1/namespaces/shop/deployments/extra").status, 200);
  // Another kind's change is not in the stream.
  ASSERT_EQ(call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"other"}})").status, 201);

  HttpResponse response = call("GET", "/apis/apps/v1/deployments?watch=1&resourceVersion=" + rv);
  ASSERT_TRUE(response.stream);
  Sink sink;
  response.stream(sink);
  const std::vector<Json> events = sink.events();
  ASSERT_EQ(events.size(), 3u) << sink.writes.front();
  EXPECT_EQ(events[0]["type"], "MODIFIED");
  EXPECT_EQ(events[0]["object"]["metadata"]["annotations"]["a"], "1");
  EXPECT_EQ(events[1]["type"], "ADDED");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "extra");
  EXPECT_EQ(events[2]["type"], "DELETED");
  auto version = [](const Json& e) {
    return std::stoull(e["object"]["metadata"]["resourceVersion"].get<std::string>());
  };
  EXPECT_LT(version(events[0]), version(events[1]));
  EXPECT_LT(version(events[1]), version(events[2]));
  EXPECT_GT(version(events[0]), std::stoull(rv));
}

// A write wakes the watch streams of its resource only: each resource's topic advances with its
// own events, and a stream waiting on it returns once it has.
TEST_F(ApiServerTest, AWriteRaisesTheTopicOfItsResourceOnly) {
  start();
  const std::uint64_t deployments = host_->generation("deployments.apps");
  const std::uint64_t namespaces = host_->generation("namespaces");
  ASSERT_EQ(call("PATCH", "/apis/apps/v1/namespaces/shop/deployments/web",
                 R"({"metadata":{"annotations":{"a":"1"}}})", "application/merge-patch+json")
                .status,
            200);
  EXPECT_NE(host_->generation("deployments.apps"), deployments);
  EXPECT_EQ(host_->generation("namespaces"), namespaces);
  // Changed since `deployments`: no wait.
  EXPECT_EQ(host_->waitForChange("deployments.apps", deployments),
            host_->generation("deployments.apps"));
  ASSERT_EQ(call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"other"}})").status, 201);
  EXPECT_NE(host_->generation("namespaces"), namespaces);
}

TEST_F(ApiServerTest, WatchWithoutAResourceVersionStartsWithTheCurrentObjects) {
  start();
  ASSERT_EQ(call("POST", "/apis/attune.io/v1alpha1/namespaces/shop/attunepolicies", kPolicy).status,
            201);
  HttpResponse response = call("GET", "/apis/attune.io/v1alpha1/attunepolicies?watch=true");
  Sink sink;
  response.stream(sink);
  const std::vector<Json> events = sink.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "web");
}

TEST_F(ApiServerTest, AWatchFromBeforeTheLogsFloorGetsGone) {
  ApiServerOptions options;
  options.watchLogCapacity = 2;
  start(options);
  const std::string rv = listVersion("/api/v1/namespaces");
  for (const char* name : {"a", "b", "c"}) {
    const std::string body = std::string(R"({"metadata":{"name":")") + name + R"("}})";
    ASSERT_EQ(call("POST", "/api/v1/namespaces", body).status, 201);
  }
  HttpResponse response = call("GET", "/api/v1/namespaces?watch=1&resourceVersion=" + rv);
  Sink sink;
  sink.maxWrites = 5;
  response.stream(sink);
  const std::vector<Json> events = sink.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
  EXPECT_EQ(events[0]["object"]["reason"], "Expired");
}

TEST_F(ApiServerTest, AnEndingWatchSendsABookmarkWhenAllowed) {
  start();
  const std::string rv = listVersion("/api/v1/nodes");
  for (bool allow : {true, false}) {
    HttpResponse response = call("GET", "/api/v1/nodes?watch=1&resourceVersion=" + rv +
                                            (allow ? "&allowWatchBookmarks=true" : ""));
    Sink sink;
    sink.closingNow = true;
    response.stream(sink);
    if (!allow) {
      EXPECT_TRUE(sink.writes.empty());
      continue;
    }
    const std::vector<Json> events = sink.events();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0]["type"], "BOOKMARK");
    EXPECT_EQ(events[0]["object"]["kind"], "Node");
    EXPECT_EQ(events[0]["object"]["metadata"]["resourceVersion"], rv);
    // As the kube client reads it.
    auto decoded = api::decodeWatchEvent<api::Node>(events[0].dump());
    ASSERT_TRUE(decoded) << decoded.error().toString();
    EXPECT_EQ(decoded->type, api::WatchEventType::kBookmark);
    EXPECT_EQ(decoded->object.metadata.resourceVersion, rv);
  }
}

ApiServerOptions faulty(const std::string& kinds, double rate = 1, std::uint64_t seed = 1) {
  ApiServerOptions options;
  options.faults.rate = rate;
  options.faults.seed = seed;
  options.faults.kinds = parseServedFaults(kinds).value();
  return options;
}

TEST_F(ApiServerTest, VersionAnswersTheSimulatedClustersKubernetesVersion) {
  start();
  EXPECT_EQ(get("/version")["gitVersion"], "v1.34.0");
  ASSERT_TRUE(host_->withSimulation([](Simulation& s) -> Result<void> {
    s.state().setKubernetesVersion(*api::parseServerVersion("v1.33.2"));
    return {};
  }));
  const Json v = get("/version");
  EXPECT_EQ(v["major"], "1");
  EXPECT_EQ(v["minor"], "33");
  EXPECT_EQ(v["gitVersion"], "v1.33.2");
}

TEST_F(ApiServerTest, ThrottleAnswers429WithRetryAfterButNotOnHealthOrDiscovery) {
  start(faulty("throttled"));
  for (const char* path : {"/healthz", "/readyz", "/version", "/api", "/apis", "/api/v1"}) {
    EXPECT_NE(call("GET", path).status, 429) << path;
  }
  HttpResponse throttled = call("GET", "/api/v1/pods");
  EXPECT_EQ(throttled.status, 429);
  ASSERT_EQ(throttled.headers.size(), 1u);
  EXPECT_EQ(throttled.headers[0].first, "Retry-After");
  EXPECT_EQ(Json::parse(throttled.body)["reason"], "TooManyRequests");
  EXPECT_EQ(api_->faults().injected(FaultKind::kThrottled), 1u);
  const std::string metrics = call("GET", "/metrics").body;
  EXPECT_NE(metrics.find("attune_sim_faults_injected_total{kind=\"throttled\"} 1"),
            std::string::npos);
}

TEST_F(ApiServerTest, ResetClosesTheConnectionWithoutHandlingTheRequest) {
  start(faulty("reset,error"));
  int resets = 0;
  int errors = 0;
  for (int i = 0; i < 20; ++i) {
    HttpResponse r = call("POST", "/api/v1/namespaces",
                          R"({"metadata":{"name":"n)" + std::to_string(i) + R"("}})");
    resets += r.abort ? 1 : 0;
    errors += r.status == 500 ? 1 : 0;
    if (r.status == 500) {
      EXPECT_EQ(Json::parse(r.body)["reason"], "InternalError");
    }
  }
  EXPECT_EQ(resets + errors, 20);
  EXPECT_GT(resets, 0);
  EXPECT_GT(errors, 0);
  // Nothing was written.
  host_->inspect([](Simulation& s) { EXPECT_EQ(s.state().namespaces.find("", "n0"), nullptr); });
}

TEST_F(ApiServerTest, ConflictOnlyHitsWritesWithAResourceVersion) {
  start(faulty("conflict"));
  const std::string path = "/apis/apps/v1/namespaces/shop/deployments/web";
  EXPECT_EQ(call("PATCH", path, R"({"metadata":{"annotations":{"a":"1"}}})",
                 "application/merge-patch+json")
                .status,
            200);
  HttpResponse conflict =
      call("PATCH", path, R"({"metadata":{"annotations":{"a":"2"},"resourceVersion":"1"}})",
           "application/merge-patch+json");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(Json::parse(conflict.body)["reason"], "Conflict");
  EXPECT_EQ(get(path)["metadata"]["annotations"]["a"], "1");
}

// A merge patch of annotations only is written without building the patched object; a
// strategic merge patch of the same annotations takes the general path (patched object, then
// the annotations it differs in). Both give every answer alike, on a pod and on a workload.
TEST_F(ApiServerTest, AnAnnotationsOnlyMergePatchAnswersAsTheGeneralPathDoes) {
  struct Step {
    std::string patch;
    int status;
  };
  const std::vector<Step> steps = {
      {R"({"metadata":{"annotations":{"a":"1","b":"2"}}})", 200},
      {R"({"metadata":{"annotations":{"a":"1"}}})", 200},  // unchanged: not a write
      {R"({"metadata":{"annotations":{"a":null,"absent":null}}})", 200},
      {R"({"metadata":{"annotations":{"b":"3"},"resourceVersion":"1"}})", 409},
      {R"({"metadata":{"annotations":{"b":"3"},"resourceVersion":"CURRENT"}})", 200},
      {R"({"metadata":{"annotations":{"b":5}}})", 422},
      {R"({"metadata":{"labels":{"x":"y"}}})", 405},
      {R"({"metadata":{}})", 200},
      {R"({"metadata":{"annotations":null}})", 200},
  };
  // Each step's status and body, and the watch events the writes made.
  auto run = [&](const std::string& contentType, const std::string& target) {
    start();
    const std::string rv = listVersion(target.substr(0, target.rfind('/')));
    std::vector<std::string> answers;
    for (const Step& step : steps) {
      std::string patch = step.patch;
      if (auto at = patch.find("CURRENT"); at != std::string::npos) {
        patch.replace(at, 7, get(target)["metadata"]["resourceVersion"].get<std::string>());
      }
      HttpResponse r = call("PATCH", target, patch, contentType);
      EXPECT_EQ(r.status, step.status) << contentType << " " << patch << ": " << r.body;
      answers.push_back(std::to_string(r.status) + " " + Json::parse(r.body).dump());
    }
    answers.push_back(get(target).dump());
    HttpResponse watch =
        call("GET", target.substr(0, target.rfind('/')) + "?watch=1&resourceVersion=" + rv);
    Sink sink;
    watch.stream(sink);
    for (const Json& e : sink.events()) answers.push_back(e.dump());
    return answers;
  };
  start();
  const std::string pod =
      get("/api/v1/namespaces/shop/pods")["items"][0]["metadata"]["name"].get<std::string>();
  for (const std::string& target : {std::string("/apis/apps/v1/namespaces/shop/deployments/web"),
                                    "/api/v1/namespaces/shop/pods/" + pod}) {
    const auto merge = run("application/merge-patch+json", target);
    const auto general = run("application/strategic-merge-patch+json", target);
    ASSERT_EQ(merge.size(), general.size()) << target;
    for (std::size_t i = 0; i < merge.size(); ++i) EXPECT_EQ(merge[i], general[i]) << target;
    EXPECT_GT(merge.size(), steps.size() + 1) << "the writes are in the watch";
  }
  // A pod that does not exist: the same 404 either way.
  for (const char* type :
       {"application/merge-patch+json", "application/strategic-merge-patch+json"}) {
    EXPECT_EQ(call("PATCH", "/api/v1/namespaces/shop/pods/none",
                   R"({"metadata":{"annotations":{"a":"1"}}})", type)
                  .status,
              404);
  }
}

TEST_F(ApiServerTest, GoneHitsWatchesAndContinues) {
  ApiServerOptions options = faulty("watch-gone");
  start(options);
  // A plain list is not subject to gone; its continue is.
  const Json first = get("/api/v1/pods?limit=2");
  HttpResponse expired = call(
      "GET", "/api/v1/pods?limit=2&continue=" + first["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(expired.status, 410);
  HttpResponse watch = call("GET", "/api/v1/pods?watch=1");
  Sink sink;
  watch.stream(sink);
  const std::vector<Json> events = sink.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
  EXPECT_EQ(api_->faults().injected(FaultKind::kWatchGone), 2u);
}

TEST_F(ApiServerTest, DropWatchEndsTheStreamAfterTheEventsAtHand) {
  for (bool drop : {false, true}) {
    start(drop ? faulty("watch-dropped") : ApiServerOptions{});
    HttpResponse watch = call("GET", "/api/v1/namespaces?watch=1");
    Sink sink;
    sink.maxWrites = 2;
    // A namespace created after the first write: a stream that is not dropped sends it.
    sink.onWrite = [&, n = 0]() mutable {
      if (n++ == 0) call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"late"}})");
    };
    watch.stream(sink);
    EXPECT_EQ(sink.writes.size(), drop ? 1u : 2u) << (drop ? "dropped" : "kept");
  }
}

TEST_F(ApiServerTest, DecisionsAreDeterministicPerSeed) {
  auto statuses = [&](std::uint64_t seed) {
    start(faulty("all", 0.5, seed));
    std::string out;
    for (int i = 0; i < 40; ++i) {
      HttpResponse r = call("GET", "/api/v1/nodes");
      out += r.abort ? "x" : std::to_string(r.status);
      out += ' ';
    }
    return out;
  };
  const std::string a = statuses(7);
  EXPECT_EQ(a, statuses(7));
  EXPECT_NE(a, statuses(8));
  EXPECT_NE(a.find("200"), std::string::npos);
  EXPECT_NE(a.find("429"), std::string::npos);
}

TEST(FaultMode, ParsesNamesAndValidatesTheRate) {
  auto kinds = parseServedFaults("throttle, gone");
  ASSERT_TRUE(kinds);
  EXPECT_EQ(*kinds, (std::set<FaultKind>{FaultKind::kThrottled, FaultKind::kWatchGone}));
  EXPECT_EQ(parseServedFaults("all")->size(), 6u);
  auto unknown = parseServedFaults("throttle,boom");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().field, "faults");
  FaultModeOptions options;
  options.rate = 1.5;
  EXPECT_FALSE(FaultMode::validate(options));
  options.rate = 0;
  FaultMode off(*FaultMode::validate(options));
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(off.decide(RequestKind::kRead), FaultKind::kNone);
  EXPECT_EQ(off.metricsText(), "");
}

TEST(FaultMode, IsSafeAcrossThreads) {
  FaultModeOptions options;
  options.rate = 1;
  FaultMode mode(options);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) mode.decide(RequestKind::kRead);
    });
  }
  for (auto& thread : threads) thread.join();
  std::uint64_t total = 0;
  for (FaultKind kind : kServedFaults) total += mode.injected(kind);
  EXPECT_EQ(total, 4000u);
}

// --- request counting (attune_sim_api_requests_total)

TEST_F(ApiServerTest, CountsResourceRequestsByVerbAndResource) {
  start();
  EXPECT_EQ(api_->requests().total(), 0u);
  get("/api/v1/pods");
  get("/api/v1/namespaces/shop/pods?limit=2");
  const std::string pod = get("/api/v1/pods")["items"][0]["metadata"]["name"];
  get("/api/v1/namespaces/shop/pods/" + pod);
  ASSERT_EQ(call("POST", "/apis/attune.io/v1alpha1/namespaces/shop/attunepolicies", kPolicy).status,
            201);
  EXPECT_EQ(call("PATCH", "/api/v1/namespaces/shop/pods/" + pod,
                 R"({"metadata":{"annotations":{"a":"b"}}})", "application/merge-patch+json")
                .status,
            200);
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/shop/pods/" + pod).status, 200);
  // Neither discovery, health, /version nor the metrics count; an unknown resource does not.
  get("/api");
  get("/apis");
  get("/version");
  call("GET", "/healthz");
  call("GET", "/metrics");
  EXPECT_EQ(call("GET", "/api/v1/nosuchthings").status, 404);
  EXPECT_EQ(api_->requests().total(), 7u);

  const std::string text = call("GET", "/metrics/requests").body;
  for (const char* line : {
           "attune_sim_api_requests_total{verb=\"list\",resource=\"pods\"} 3\n",
           "attune_sim_api_requests_total{verb=\"get\",resource=\"pods\"} 1\n",
           "attune_sim_api_requests_total{verb=\"create\",resource=\"attunepolicies\"} 1\n",
           "attune_sim_api_requests_total{verb=\"patch\",resource=\"pods\"} 1\n",
           "attune_sim_api_requests_total{verb=\"delete\",resource=\"pods\"} 1\n",
           "attune_sim_api_requests_all_total 7\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " in\n" << text;
  }
  // The full /metrics carries the same counters.
  EXPECT_NE(call("GET", "/metrics").body.find("attune_sim_api_requests_all_total 7\n"),
            std::string::npos);
}

TEST_F(ApiServerTest, TheMetricsGiveTheTicksAndTheLastOnesStart) {
  start();  // steps the simulation once, not as a tick
  const auto has = [](const std::string& text, const std::string& line) {
    return text.find(line) != std::string::npos;
  };
  EXPECT_TRUE(has(call("GET", "/metrics/requests").body, "\nattune_sim_ticks_total 0\n"));

  wall_.advance(std::chrono::seconds(90));
  host_->tick();
  wall_.advance(std::chrono::seconds(60));
  host_->tick();
  const std::string text = call("GET", "/metrics/requests").body;
  for (const char* line : {
           "\nattune_sim_ticks_total 2\n",
           // The simulated wall clock does not move during a tick.
           "\nattune_sim_tick_seconds_total 0\n",
           "\nattune_sim_last_tick_start_timestamp_seconds 150\n",
           "\nattune_sim_last_tick_seconds 0\n",
           "# TYPE attune_sim_ticks_total counter\n",
           "# TYPE attune_sim_last_tick_start_timestamp_seconds gauge\n",
       }) {
    EXPECT_TRUE(has(text, line)) << line << " in\n" << text;
  }
  EXPECT_TRUE(has(call("GET", "/metrics").body, "\nattune_sim_ticks_total 2\n"));
  // Each tick stepped the simulation once more.
  EXPECT_EQ(host_->inspect([](Simulation& s) { return s.ticks(); }), 3);
  EXPECT_TRUE(host_->ready());
}

TEST(RequestVerbTest, FollowsTheApiServersVerbs) {
  EXPECT_EQ(requestVerb("GET", true, false), "list");
  EXPECT_EQ(requestVerb("GET", true, true), "watch");
  EXPECT_EQ(requestVerb("GET", false, false), "get");
  EXPECT_EQ(requestVerb("POST", true, false), "create");
  EXPECT_EQ(requestVerb("PUT", false, false), "update");
  EXPECT_EQ(requestVerb("PATCH", false, false), "patch");
  EXPECT_EQ(requestVerb("DELETE", false, false), "delete");
  EXPECT_EQ(requestVerb("DELETE", true, false), "deletecollection");
}

}  // namespace
}  // namespace attune::sim::serve
