// `kubectl attune` (the attune binary run as kubectl-attune) and `attune plugin`: status,
// recommendations, explain, history, preview and savings read from the cluster the kubeconfig
// names (docs/kubectl-plugin.md). What is read here is turned into output by plugin_views.h.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/policy/policy_defaults.h"
#include "cli/commands.h"
#include "cli/operator_process.h"
#include "cli/plugin_views.h"
#include "cli/plugin_watch.h"
#include "controller/cluster_snapshot.h"
#include "controller/plan_preview.h"
#include "controller/target_resolution.h"
#include "kube/http_cluster_api.h"
#include "metrics/prometheus/prometheus_source.h"

namespace attune::cli {
namespace {

struct PluginFlags {
  std::string kubeconfig;
  std::string context;
  std::string namespace_;
  bool allNamespaces = false;
  std::string output = "table";
  bool watch = false;
  std::string watchInterval = "5s";
  int watchCount = 0;
  std::string policy;  // explain
  // preview
  std::string prometheusUrl;
  std::string prometheusTokenFile;
  std::string scrapeInterval = "1m";
  std::string throttleWindow = "5m";
};

void addCommonFlags(CLI::App& cmd, PluginFlags& f) {
  cmd.add_option("--kubeconfig", f.kubeconfig,
                 "Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)");
  cmd.add_option("--context", f.context, "The kubeconfig context to use");
  cmd.add_option("-n,--namespace", f.namespace_,
                 "Namespace of the policies (default: the context's namespace)");
  cmd.add_option("-o,--output", f.output, "Output format: table, json or yaml")
      ->capture_default_str();
}

void addAllNamespaces(CLI::App& cmd, PluginFlags& f) {
  cmd.add_flag("-A,--all-namespaces", f.allNamespaces, "The policies of every namespace");
}

void addWatchFlags(CLI::App& cmd, PluginFlags& f) {
  cmd.add_flag("-w,--watch", f.watch, "Print the output again every --watch-interval");
  cmd.add_option("--watch-interval", f.watchInterval, "How often --watch reads the cluster")
      ->capture_default_str();
  cmd.add_option("--watch-count", f.watchCount,
                 "With --watch: stop after this many outputs (0: until interrupted)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

int usageError(const Error& e) {
  fmt::print(stderr, "error: {}\n", e.toString());
  return kExitUsage;
}

int failure(std::string_view what, const Error& e) {
  fmt::print(stderr, "error: {}: {}\n", what, e.toString());
  return kExitFailed;
}

// The connection and scope every command shares.
class Session {
 public:
  // `format` is the parsed --output; the error is the cluster configuration's.
  static Result<std::unique_ptr<Session>> open(const PluginFlags& f, plugin::OutputFormat format,
                                               Clock& clock) {
    OperatorProcessFlags connection;
    connection.kubeconfig = f.kubeconfig;
    connection.context = f.context;
    auto config = clusterConfig(connection);
    if (!config) return std::unexpected(config.error());
    auto s = std::unique_ptr<Session>(new Session(*config, clock));
    s->format = format;
    s->namespace_ = f.allNamespaces        ? std::string()
                    : f.namespace_.empty() ? config->namespace_
                                           : f.namespace_;
    return s;
  }

  Result<std::vector<api::AttunePolicy>> policies() {
    auto listed = api.listAttunePolicies({namespace_, {}});
    if (!listed) return std::unexpected(listed.error());
    std::vector<api::AttunePolicy> items = std::move(listed->items);
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
      return std::tie(a.metadata.namespace_, a.metadata.name) <
             std::tie(b.metadata.namespace_, b.metadata.name);
    });
    return items;
  }

  // The Events of the scope; an API server that refuses them leaves the list empty (the
  // status alone still explains), with a warning.
  std::vector<api::Event> events() {
    auto listed = api.listEvents({namespace_, {}});
    if (!listed) {
      fmt::print(stderr, "warning: cannot list Events: {}\n", listed.error().toString());
      return {};
    }
    return std::move(listed->items);
  }

  kube::HttpClusterApi api;
  plugin::OutputFormat format = plugin::OutputFormat::kTable;
  std::string namespace_;  // "" = all

 private:
  Session(const kube::ClusterConfig& config, Clock& clock) : api(config, clock) {}
};

// Opens a session and runs `body`, repeated with --watch.
int withSession(const PluginFlags& f, const std::function<Result<std::string>(Session&)>& body) {
  auto format = plugin::parseOutputFormat(f.output);
  if (!format) return usageError(format.error());
  if (f.allNamespaces && !f.namespace_.empty()) {
    return usageError(Error{ErrorCode::kInvalidArgument, "cannot be combined with --namespace",
                            "--all-namespaces"});
  }
  SystemClock clock;
  auto session = Session::open(f, *format, clock);
  if (!session) return failure("cluster configuration", session.error());
  Duration interval{};
  if (f.watch) {
    auto parsed = positiveDuration(f.watchInterval, "--watch-interval");
    if (!parsed) return usageError(parsed.error());
    interval = *parsed;
  }
  int code = kExitOk;
  const auto once = [&]() {
    auto out = body(**session);
    if (!out) {
      fmt::print(stderr, "error: {}\n", out.error().toString());
      code = kExitFailed;
      return false;
    }
    fmt::print("{}", *out);
    std::fflush(stdout);
    return true;
  };
  if (!f.watch) {
    once();
    return code;
  }
  bool first = true;
  plugin::repeatEvery(clock, interval, f.watchCount, [&] {
    if (!first) fmt::print("\n");
    first = false;
    return once();
  });
  return code;
}

// ---- The commands

int runStatus(const PluginFlags& f) {
  return withSession(f, [](Session& s) -> Result<std::string> {
    auto policies = s.policies();
    if (!policies) return std::unexpected(policies.error());
    SystemClock clock;
    return plugin::render(plugin::statusRows(*policies, clock.now()), "AttunePolicyStatusList",
                          plugin::statusColumns(), s.format);
  });
}

int runRecommendations(const PluginFlags& f) {
  return withSession(f, [](Session& s) -> Result<std::string> {
    auto policies = s.policies();
    if (!policies) return std::unexpected(policies.error());
    return plugin::render(plugin::recommendationRows(*policies), "AttuneRecommendationList",
                          plugin::recommendationColumns(), s.format);
  });
}

int runSavings(const PluginFlags& f) {
  return withSession(f, [](Session& s) -> Result<std::string> {
    auto policies = s.policies();
    if (!policies) return std::unexpected(policies.error());
    return plugin::render(plugin::savingsRows(*policies), "AttuneSavingsList",
                          plugin::savingsColumns(), s.format);
  });
}

int runHistory(const PluginFlags& f) {
  return withSession(f, [](Session& s) -> Result<std::string> {
    auto policies = s.policies();
    if (!policies) return std::unexpected(policies.error());
    return plugin::render(plugin::historyRows(*policies, s.events()), "AttuneHistoryList",
                          plugin::historyColumns(), s.format, "No resize recorded.");
  });
}

// One policy of one namespace (explain takes no --all-namespaces).
int runExplain(const PluginFlags& f) {
  return withSession(f, [&f](Session& s) -> Result<std::string> {
    auto policy = s.api.getAttunePolicy(s.namespace_, f.policy);
    if (!policy) return std::unexpected(policy.error());
    api::AttunePolicy defaulted = *policy;
    api::applyDefaults(defaulted);
    std::set<api::TargetKind> kinds;
    if (defaulted.spec.targetRef.kind) kinds.insert(*defaulted.spec.targetRef.kind);
    auto snapshot = controller::ClusterSnapshot::take(s.api, {s.namespace_}, kinds);
    if (!snapshot) return std::unexpected(snapshot.error());
    std::vector<plugin::ExplainedPod> pods;
    plugin::WorkloadMetadata workloads;
    for (const controller::TargetWorkload& t : controller::resolveTargets(*snapshot, defaulted)) {
      if (t.metadata != nullptr) workloads[t.ref.name] = *t.metadata;
      for (const api::Pod* pod : t.pods) pods.push_back({.workload = t.ref.name, .pod = *pod});
    }
    SystemClock clock;
    const plugin::Document rows =
        plugin::explainRows(*policy, pods, s.events(), workloads, clock.now());
    if (s.format != plugin::OutputFormat::kTable) {
      return plugin::render(rows, "AttunePodExplanationList", plugin::explainColumns(), s.format);
    }
    std::string out = plugin::explainHeader(*policy, workloads, clock.now()) +
                      plugin::render(rows, {}, plugin::explainColumns(), s.format,
                                     "No running pod is targeted by this policy.");
    std::string events;
    for (const plugin::Document& row : rows) {
      for (const plugin::Document& e : row["events"]) {
        events += fmt::format("  {}: {}\n", row["pod"].get<std::string>(), e.get<std::string>());
      }
    }
    if (!events.empty()) out += "\nEvents:\n" + events;
    return out;
  });
}

int runPreview(const PluginFlags& f) {
  if (f.prometheusUrl.empty()) {
    return usageError(Error{ErrorCode::kInvalidArgument,
                            "is required: preview plans from the same metrics as the controller",
                            "--prometheus-url"});
  }
  auto scrape = positiveDuration(f.scrapeInterval, "--scrape-interval");
  if (!scrape) return usageError(scrape.error());
  auto throttle = positiveDuration(f.throttleWindow, "--throttle-window");
  if (!throttle) return usageError(throttle.error());
  return withSession(f, [&](Session& s) -> Result<std::string> {
    SystemClock clock;
    metrics::PrometheusOptions options;
    options.client.address = f.prometheusUrl;
    options.client.retries = 1;
    options.http.bearerTokenFile = f.prometheusTokenFile;
    options.minRateWindow = 2 * *scrape;
    options.throttleWindow = *throttle;
    metrics::PrometheusSource source(options, clock);
    // Fail closed: without metrics there is no plan to show.
    if (auto probe = source.nodeCapacity(clock.now()); !probe) {
      return fail(ErrorCode::kUnavailable,
                  fmt::format("Prometheus at {} does not answer ({}); preview plans nothing "
                              "without metrics, as the controller resizes nothing without them",
                              f.prometheusUrl, probe.error().toString()),
                  "--prometheus-url");
    }
    auto policies = s.policies();
    if (!policies) return std::unexpected(policies.error());
    controller::ControllerOptions controllerOptions;
    controllerOptions.observation.sampleInterval = *scrape;
    controllerOptions.observation.throttleWindow = *throttle;
    std::vector<std::string> namespaces;
    if (!s.namespace_.empty()) namespaces.push_back(s.namespace_);
    auto previews =
        controller::previewPasses(s.api, source, clock, controllerOptions, *policies, namespaces);
    if (!previews) return std::unexpected(previews.error());
    return plugin::render(plugin::previewRows(*previews), "AttunePreviewList",
                          plugin::previewColumns(), s.format);
  });
}

}  // namespace

void addPluginCommands(CLI::App& app, int& exitCode) {
  auto flags = std::make_shared<PluginFlags>();
  PluginFlags& f = *flags;

  CLI::App* status = app.add_subcommand(
      "status", "Policies with their mode, targets, readiness, workload counts and savings");
  addCommonFlags(*status, f);
  addAllNamespaces(*status, f);
  addWatchFlags(*status, f);
  status->callback([&exitCode, flags] { exitCode = runStatus(*flags); });

  CLI::App* recommendations = app.add_subcommand(
      "recommendations", "Per workload and container: current and recommended, with the reason");
  addCommonFlags(*recommendations, f);
  addAllNamespaces(*recommendations, f);
  addWatchFlags(*recommendations, f);
  recommendations->callback([&exitCode, flags] { exitCode = runRecommendations(*flags); });

  CLI::App* explain =
      app.add_subcommand("explain", "Why each pod of a policy's targets was or was not resized");
  explain->add_option("POLICY", f.policy, "The AttunePolicy's name")->required();
  addCommonFlags(*explain, f);
  explain->callback([&exitCode, flags] { exitCode = runExplain(*flags); });

  CLI::App* history =
      app.add_subcommand("history", "Resizes, reverts, skips and failures over time");
  addCommonFlags(*history, f);
  addAllNamespaces(*history, f);
  addWatchFlags(*history, f);
  history->callback([&exitCode, flags] { exitCode = runHistory(*flags); });

  CLI::App* preview =
      app.add_subcommand("preview", "What the controller's next pass would do, without doing it");
  addCommonFlags(*preview, f);
  addAllNamespaces(*preview, f);
  preview->add_option("--prometheus-url", f.prometheusUrl,
                      "Prometheus HTTP API base URL the controller reads (required)");
  preview->add_option("--prometheus-bearer-token-file", f.prometheusTokenFile,
                      "File holding a bearer token for Prometheus");
  preview
      ->add_option("--scrape-interval", f.scrapeInterval, "As the controller's --scrape-interval")
      ->capture_default_str();
  preview
      ->add_option("--throttle-window", f.throttleWindow, "As the controller's --throttle-window")
      ->capture_default_str();
  preview->callback([&exitCode, flags] { exitCode = runPreview(*flags); });

  CLI::App* savings =
      app.add_subcommand("savings", "CPU and memory request totals and reductions per policy");
  addCommonFlags(*savings, f);
  addAllNamespaces(*savings, f);
  addWatchFlags(*savings, f);
  savings->callback([&exitCode, flags] { exitCode = runSavings(*flags); });
}

void addPluginCommand(CLI::App& app, int& exitCode) {
  CLI::App* plugin = app.add_subcommand(
      "plugin", "The kubectl plugin's commands (kubectl attune ..., docs/kubectl-plugin.md)");
  plugin->require_subcommand(1);
  addPluginCommands(*plugin, exitCode);
}

}  // namespace attune::cli
