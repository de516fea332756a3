// `attune recommend`: what each strategy would recommend for the workloads of a cluster
// (Prometheus) or a trace, with totals. The pipeline is in recommend_scan.h, the output in
// report/recommend_render.h; this file parses flags, builds the source and maps exit codes.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "api/policy/policy_codec.h"
#include "cli/commands.h"
#include "cli/recommend_scan.h"
#include "core/clock.h"
#include "metrics/prometheus/prometheus_source.h"
#include "metrics/trace/trace_source.h"
#include "recommend/strategy.h"
#include "report/recommend_render.h"

namespace attune::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitBackend = 3;

struct RecommendOptions {
  std::string prometheus;
  std::string bearerToken;
  std::string bearerTokenFile;
  std::string basicAuth;
  std::vector<std::string> headers;
  std::string caFile;
  bool insecureSkipTlsVerify = false;
  std::string timeout = "30s";
  std::vector<std::string> traces;
  std::vector<std::string> namespaces;
  std::string selector;
  std::vector<std::string> strategies;
  std::string history = "7d";
  std::string step = "5m";
  std::string at;
  std::string policyFile;
  std::string output = "table";
};

// A usage error: the message for stderr.
struct Usage {
  std::string message;
};

std::string trim(std::string s) {
  const auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
  s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
  return s;
}

// A Go duration, also accepting "d" (24h) and "w" (7d) units: "7d", "2w", "1d12h".
Result<Duration> parseLongDuration(std::string_view text) {
  Duration total{};
  std::string rest;  // the part parseDuration reads
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != 'd' && c != 'w') continue;
    const std::string number(text.substr(begin, i - begin));
    const auto digits = number.find_first_not_of("0123456789.") == std::string::npos;
    if (number.empty() || !digits) return fail(ErrorCode::kInvalidArgument, "not a duration");
    const double days = std::stod(number) * (c == 'w' ? 7 : 1);
    total += std::chrono::duration_cast<Duration>(std::chrono::duration<double>(days * 86400));
    begin = i + 1;
  }
  rest = std::string(text.substr(begin));
  if (!rest.empty()) {
    auto d = parseDuration(rest);
    if (!d) return d;
    total += *d;
  } else if (begin == 0) {
    return fail(ErrorCode::kInvalidArgument, "empty duration");
  }
  return total;
}

std::expected<Duration, Usage> durationFlag(const std::string& flag, const std::string& text) {
  auto d = parseLongDuration(text);
  if (!d || *d <= Duration::zero()) {
    return std::unexpected(Usage{fmt::format(
        "{} {:?}: expected a positive duration such as 5m, 36h, 7d or 2w", flag, text)});
  }
  return *d;
}

std::expected<api::AttunePolicy, Usage> loadPolicy(const std::string& path) {
  api::AttunePolicy policy;
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::unexpected(Usage{"--policy " + path + ": cannot read file"});
    std::ostringstream text;
    text << in.rdbuf();
    auto docs = api::decodePolicies(text.str());
    if (docs.empty() || !docs.front().policy || !docs.front().errors.empty()) {
      const std::string why = docs.empty() || docs.front().errors.empty()
                                  ? "no AttunePolicy document"
                                  : docs.front().errors.front().error.toString();
      return std::unexpected(Usage{"--policy " + path + ": " + why});
    }
    policy = *docs.front().policy;
  }
  api::applyDefaults(policy);
  return policy;
}

std::expected<metrics::PrometheusOptions, Usage> prometheusOptions(const RecommendOptions& o) {
  metrics::PrometheusOptions p;
  p.client.address = o.prometheus;
  p.client.onWarning = [](std::string_view promql, std::string_view warning) {
    fmt::print(stderr, "attune recommend: prometheus warning: {} (query: {})\n", warning, promql);
  };
  p.http.bearerToken = o.bearerToken;
  p.http.bearerTokenFile = o.bearerTokenFile;
  p.http.caFile = o.caFile;
  p.http.insecureSkipVerify = o.insecureSkipTlsVerify;
  if (!o.basicAuth.empty()) {
    const auto colon = o.basicAuth.find(':');
    if (colon == std::string::npos)
      return std::unexpected(Usage{"--basic-auth: expected USER:PASS"});
    p.http.basicAuth =
        metrics::BasicAuth{o.basicAuth.substr(0, colon), o.basicAuth.substr(colon + 1)};
  }
  for (const std::string& h : o.headers) {
    const auto colon = h.find(':');
    if (colon == std::string::npos || trim(h.substr(0, colon)).empty()) {
      return std::unexpected(Usage{fmt::format("--header {:?}: expected 'Name: value'", h)});
    }
    p.http.headers.emplace_back(trim(h.substr(0, colon)), trim(h.substr(colon + 1)));
  }
  auto timeout = durationFlag("--timeout", o.timeout);
  if (!timeout) return std::unexpected(timeout.error());
  p.http.timeout = *timeout;
  return p;
}

// The request without its time and source, which depend on the source.
std::expected<ScanRequest, Usage> scanRequest(const RecommendOptions& o) {
  if (o.prometheus.empty() == o.traces.empty()) {
    return std::unexpected(Usage{"exactly one of --prometheus URL or --trace PATH is required"});
  }
  ScanRequest r;
  r.scope.namespaces = o.namespaces;
  r.selector = o.selector;
  r.strategies = o.strategies.empty() ? std::vector<std::string>{"attune"} : o.strategies;
  for (const std::string& s : r.strategies) {
    if (!recommend::makeStrategy(s)) {
      return std::unexpected(Usage{
          fmt::format("--strategy {:?}: expected adaptive, attune, cruisekube, vpa or krr", s)});
    }
  }
  auto history = durationFlag("--history", o.history);
  if (!history) return std::unexpected(history.error());
  r.history = *history;
  auto step = durationFlag("--step", o.step);
  if (!step) return std::unexpected(step.error());
  r.step = *step;
  auto policy = loadPolicy(o.policyFile);
  if (!policy) return std::unexpected(policy.error());
  r.policy = std::move(*policy);
  if (auto config = statsConfig(r); !config) {
    return std::unexpected(Usage{"--history " + o.history +
                                 ": must be a whole number of days up to 62 (" +
                                 config.error().toString() + ")"});
  }
  if (!o.at.empty()) {
    auto at = parseRfc3339(o.at);
    if (!at) return std::unexpected(Usage{"--at " + o.at + ": " + at.error().toString()});
    r.at = *at;
  }
  return r;
}

std::string render(const report::RecommendReport& r, const std::string& output) {
  if (output == "json") return report::renderJson(r);
  if (output == "yaml") return report::renderYaml(r);
  if (output == "csv") return report::renderCsv(r);
  return report::renderTable(r);
}

int fail(const std::string& message, int code) {
  fmt::print(stderr, "attune recommend: {}\n", message);
  return code;
}

int runRecommend(const RecommendOptions& o) {
  auto request = scanRequest(o);
  if (!request) return fail(request.error().message, kExitUsage);
  SystemClock clock;
  metrics::MetricsSourcePtr source;
  std::string where;
  if (!o.prometheus.empty()) {
    auto options = prometheusOptions(o);
    if (!options) return fail(options.error().message, kExitUsage);
    source = std::make_unique<metrics::PrometheusSource>(std::move(*options), clock);
    where = "prometheus at " + o.prometheus;
    if (o.at.empty()) request->at = clock.now();
  } else {
    std::vector<std::filesystem::path> paths(o.traces.begin(), o.traces.end());
    auto trace = metrics::TraceSource::load(paths);
    where = fmt::format("trace {}", fmt::join(o.traces, ", "));
    if (!trace) return fail(where + ": " + trace.error().toString(), kExitBackend);
    if (o.at.empty()) request->at = (*trace)->span().last;
    source = std::move(*trace);
  }
  request->source = where;
  auto report = scanRecommendations(
      *source, *request, [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
  if (!report) return fail(where + ": " + report.error().toString(), kExitBackend);
  fmt::print("{}", render(*report, o.output));
  return kExitOk;
}

}  // namespace

void addRecommendCommand(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<RecommendOptions>();
  auto* cmd = app.add_subcommand(
      "recommend",
      "Recommend CPU and memory requests and limits per workload and container from Prometheus "
      "or trace files, with one column group per strategy and totals. Exit status: 0 ok, 2 usage "
      "error, 3 metrics backend unreachable or failing. See docs/recommend.md.");
  auto* prom = cmd->add_option("--prometheus", o->prometheus,
                               "Prometheus-compatible query API URL (e.g. http://prometheus:9090)");
  cmd->add_option("--bearer-token", o->bearerToken, "Bearer token sent to Prometheus");
  cmd->add_option("--bearer-token-file", o->bearerTokenFile,
                  "File holding the bearer token (re-read when it changes)");
  cmd->add_option("--basic-auth", o->basicAuth, "Basic authentication as USER:PASS");
  cmd->add_option("--header", o->headers, "Extra request header 'Name: value' (repeatable)");
  cmd->add_option("--ca-file", o->caFile, "PEM bundle to verify Prometheus' certificate");
  cmd->add_flag("--insecure-skip-tls-verify", o->insecureSkipTlsVerify,
                "Do not verify Prometheus' certificate");
  cmd->add_option("--timeout", o->timeout, "Timeout per request")->capture_default_str();
  auto* trace = cmd->add_option("--trace", o->traces,
                                "Trace file or directory, Bitbrains or Attune CSV (repeatable)");
  prom->excludes(trace);
  cmd->add_option("-n,--namespace", o->namespaces,
                  "Namespace to analyse (repeatable; default all)");
  cmd->add_option("--selector", o->selector,
                  "Workload filter: Kind/name or name, with * ? [] globs (e.g. Deployment/web-*)");
  cmd->add_option("--strategy", o->strategies,
                  "Strategies, comma-separated or repeated: adaptive, attune, cruisekube, vpa, krr "
                  "(default attune)")
      ->delimiter(',');
  cmd->add_option("--history", o->history, "History analysed, whole days (e.g. 7d, 2w, 24h)")
      ->capture_default_str();
  cmd->add_option("--step", o->step, "Query resolution")->capture_default_str();
  cmd->add_option("--at", o->at,
                  "End of the analysed range, RFC 3339 (default: now; for a trace, its last "
                  "sample)");
  cmd->add_option("--policy", o->policyFile,
                  "AttunePolicy file whose cpu, memory and metricsSource settings drive the "
                  "strategies");
  cmd->add_option("-o,--output", o->output, "Output format")
      ->check(CLI::IsMember({"table", "json", "yaml", "csv"}))
      ->capture_default_str();
  cmd->callback([o, &exitCode] { exitCode = runRecommend(*o); });
}

}  // namespace attune::cli
