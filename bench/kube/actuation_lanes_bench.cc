// What carrying out the plans of a resize wave together buys (ClusterApi::runTasks on
// kube::HttpClusterApi's lanes, ControllerOptions::actuationBatch) against an API server that
// serves requests concurrently, each after a fixed service time (its admission, its storage
// write): a local HTTP server that answers every request after `--service-ms` of wall time. Each
// task is what the Actuator sends for one resize: the pod's record (PATCH), the resize (GET,
// then PATCH of pods/resize), the workload's cooldown (PATCH). The baseline, measured in the
// same run: the same tasks one after another on the client's one connection, as each pass carried
// out its own plan. Prints the time per resize of each and the ratio, and checks that every
// request of every task was answered.
//
//   actuation_lanes_bench [--tasks N] [--lanes N] [--service-ms MS]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "http/http_server.h"
#include "kube/http_cluster_api.h"
#include "support/pod_json.h"

namespace {

using namespace attune;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "actuation_lanes_bench: %s\n", what.c_str());
  std::exit(1);
}

int intFlag(int argc, char** argv, std::string_view name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

// One resize's requests, as the Actuator makes them; false when one failed.
bool resize(api::ClusterApi& api, int index) {
  const std::string pod = "app-" + std::to_string(index);
  api::AnnotationChanges record{{"attune.io/resized-at", "2026-01-01T00:00:00Z"}};
  if (!api.patchPodAnnotations("team", pod, record, "7")) return false;
  api::ContainerResize container{.name = "app", .resources = {}};
  container.resources.requests.cpu = *Quantity::parse("250m");
  container.resources.requests.memory = *Quantity::parse("256Mi");
  if (!api.resizePod("team", pod, std::span(&container, 1))) return false;
  api::AnnotationChanges cooldown{{"attune.io/last-resize-time", "2026-01-01T00:00:00Z"}};
  return api.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team", pod, cooldown, "")
      .has_value();
}

// Seconds to carry out `tasks` resizes through an HttpClusterApi with `lanes` lanes.
double run(const std::string& server, int tasks, int lanes) {
  SystemClock clock;
  kube::ClusterConfig config;
  config.server = server;
  kube::HttpClusterApiOptions options{.parallelWrites = lanes};
  options.rest.rateLimit.qps = -1;  // as the scale run's --kube-api-qps -1
  kube::HttpClusterApi api(config, clock, options);
  std::atomic<int> failed = 0;
  std::vector<api::ClusterApi::Task> work;
  for (int i = 0; i < tasks; ++i) {
    work.emplace_back([i, &failed](api::ClusterApi& lane) {
      if (!resize(lane, i)) ++failed;
    });
  }
  const Time start = clock.now();
  api.runTasks(work);
  const double seconds = std::chrono::duration<double>(clock.now() - start).count();
  if (failed > 0)
    die(std::to_string(failed.load()) + " resizes failed with " + std::to_string(lanes) + " lanes");
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const int tasks = intFlag(argc, argv, "--tasks", 400);
  const int lanes = intFlag(argc, argv, "--lanes", 4);
  const int serviceMs = intFlag(argc, argv, "--service-ms", 2);
  if (tasks < 1 || lanes < 2 || serviceMs < 0)
    die("want --tasks >= 1, --lanes >= 2, --service-ms >= 0");
  SystemClock wall;
  const std::string body = attune::testing::realisticPod(0).dump();
  std::atomic<long> requests = 0;
  auto server = http::server::HttpServer::start({}, [&](const http::server::HttpRequest&) {
    wall.sleepFor(std::chrono::milliseconds(serviceMs));  // the server's own time per request
    ++requests;
    http::server::HttpResponse response;
    response.body = body;
    return response;
  });
  if (!server) die(server.error().toString());
  const std::string url = "http://127.0.0.1:" + std::to_string((*server)->port());
  run(url, 20, lanes);  // connections made, code paged in
  requests = 0;
  const double alone = run(url, tasks, 1);
  const double together = run(url, tasks, lanes);
  if (requests != 2L * 4 * tasks) die("requests answered: " + std::to_string(requests.load()));
  std::printf("%d resizes (4 requests each), the server taking %d ms per request\n", tasks,
              serviceMs);
  std::printf("one after another (baseline): %.2f s, %.2f ms per resize\n", alone,
              1000 * alone / tasks);
  std::printf("%d lanes at once:            %.2f s, %.2f ms per resize (%.2fx the baseline)\n",
              lanes, together, 1000 * together / tasks, together / alone);
  return 0;
}
