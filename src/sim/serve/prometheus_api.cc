#include "sim/serve/prometheus_api.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "metrics/prometheus/prometheus_source.h"
#include "metrics/prometheus/promql.h"
#include "sim/serve/sim_host.h"
#include "sim/serve/status_response.h"

namespace attune::sim::serve {
namespace {

using Kind = OperatorQuery::Kind;
using metrics::promql::QueryScope;

// The value of the first `<label><op>"..."` matcher in `text` (`opening` is `label<op>"`),
// unescaped as escapeLabelValue escapes; nullopt when there is none.
std::optional<std::string> matcherValue(std::string_view text, std::string_view opening) {
  const std::size_t at = text.find(opening);
  if (at == std::string_view::npos) return std::nullopt;
  std::string out;
  for (std::size_t i = at + opening.size(); i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') return out;
    if (c == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      out += next == 'n' ? '\n' : next;
    } else {
      out += c;
    }
  }
  return std::nullopt;  // unterminated
}

// The container names of an exclusion regex `^(a|b\.c)$`, regex escapes undone.
std::vector<std::string> excludedNames(std::string_view regex) {
  std::vector<std::string> names;
  if (!regex.starts_with("^(") || !regex.ends_with(")$")) return names;
  regex = regex.substr(2, regex.size() - 4);
  std::string name;
  for (std::size_t i = 0; i < regex.size(); ++i) {
    if (regex[i] == '\\' && i + 1 < regex.size()) {
      name += regex[++i];
    } else if (regex[i] == '|') {
      names.push_back(std::exchange(name, {}));
    } else {
      name += regex[i];
    }
  }
  names.push_back(std::move(name));
  return names;
}

// The first range window `[Ns]` of `text`; zero when there is none.
Duration firstWindow(std::string_view text) {
  for (std::size_t open = text.find('['); open != std::string_view::npos;
       open = text.find('[', open + 1)) {
    std::size_t i = open + 1;
    std::int64_t seconds = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && seconds < (1LL << 40)) {
      seconds = seconds * 10 + (text[i++] - '0');
    }
    if (i > open + 1 && text.substr(i).starts_with("s]")) return std::chrono::seconds(seconds);
  }
  return Duration::zero();
}

// The backend's text of `kind` for `q` and `window`.
std::string textOf(Kind kind, const QueryScope& q, Duration window) {
  namespace promql = metrics::promql;
  switch (kind) {
    case Kind::kCpuUsage:
      return promql::cpuUsage(q, window);
    case Kind::kCpuPressureWaiting:
      return promql::cpuPressureWaiting(q, window);
    case Kind::kMemoryWorkingSet:
      return promql::memoryWorkingSet(q);
    case Kind::kCpuThrottleRatio:
      return promql::cpuThrottleRatio(q, window);
    case Kind::kOomKills:
      return promql::oomKills(q, window);
    case Kind::kRestartCounts:
      return promql::restartCounts(q);
    case Kind::kResources:
      return promql::resources(q);
    case Kind::kOwners:
      return promql::owners(q);
    case Kind::kNodeLoad:
      return promql::nodeLoad();
    case Kind::kNodeCapacity:
      return promql::nodeCapacity();
  }
  return {};
}

// Whether the backend sends `kind` to query_range (the others to query).
bool isRangeQuery(Kind kind) {
  return kind == Kind::kCpuUsage || kind == Kind::kCpuPressureWaiting ||
         kind == Kind::kMemoryWorkingSet || kind == Kind::kCpuThrottleRatio ||
         kind == Kind::kOomKills || kind == Kind::kNodeLoad;
}

constexpr Kind kKinds[] = {
    Kind::kCpuUsage, Kind::kCpuPressureWaiting, Kind::kMemoryWorkingSet, Kind::kCpuThrottleRatio,
    Kind::kOomKills, Kind::kRestartCounts,      Kind::kResources,        Kind::kOwners,
    Kind::kNodeLoad, Kind::kNodeCapacity};

// Prometheus' JSON writer for one response body.
class Body {
 public:
  explicit Body(std::string_view resultType) {
    out_ = R"({"status":"success","data":{"resultType":")";
    out_ += resultType;
    out_ += R"(","result":[)";
  }

  // Opens a series with its labels (name, value pairs).
  void open(std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
    if (series_++ > 0) out_ += ',';
    out_ += R"({"metric":{)";
    bool first = true;
    for (const auto& [name, value] : labels) {
      if (!first) out_ += ',';
      first = false;
      string(name);
      out_ += ':';
      string(value);
    }
    out_ += '}';
    points_ = 0;
  }
  void values() { out_ += R"(,"values":[)"; }
  void point(Time t, double v) {
    if (points_++ > 0) out_ += ',';
    sample(t, v);
  }
  void closeValues() { out_ += "]}"; }
  // An instant vector's one sample, closing the series.
  void value(Time t, double v) {
    out_ += R"(,"value":)";
    sample(t, v);
    out_ += '}';
  }
  std::string finish() && {
    out_ += "]}}";
    return std::move(out_);
  }

 private:
  void sample(Time t, double v) {
    const auto ms = std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
    out_ += '[';
    if (ms >= 0) {  // "1700000000.250", as Prometheus writes times
      const auto millis = ms % 1000;
      number(ms / 1000);
      out_ += millis < 10 ? ".00" : millis < 100 ? ".0" : ".";
      number(millis);
    } else {
      number(static_cast<double>(ms) / 1000.0);
    }
    out_ += ",\"";
    if (std::isnan(v)) {
      out_ += "NaN";
    } else if (std::isinf(v)) {
      out_ += v > 0 ? "+Inf" : "-Inf";
    } else {
      number(v);
    }
    out_ += "\"]";
  }
  void string(std::string_view s) {
    out_ += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        constexpr char kHex[] = "0123456789abcdef";
        out_ += "\\u00";
        out_ += kHex[(c >> 4) & 0xf];
        out_ += kHex[c & 0xf];
      } else {
        out_ += c;
      }
    }
    out_ += '"';
  }

  // Shortest text that reads back as the same value.
  template <typename T>
  void number(T v) {
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    out_.append(buffer, ec == std::errc() ? end : buffer);
  }

  std::string out_;
  int series_ = 0;
  int points_ = 0;
};

std::string matrix(const std::vector<metrics::ContainerSeries>& series) {
  Body body("matrix");
  for (const auto& s : series) {
    if (s.points.empty()) continue;
    body.open({{"container", s.id.container}, {"namespace", s.id.ns}, {"pod", s.id.pod}});
    body.values();
    for (const auto& p : s.points) body.point(p.time, p.value);
    body.closeValues();
  }
  return std::move(body).finish();
}

// Each kill at the end of the step it falls in, (t - step, t], with the highest working set of
// that step's kills.
std::string oomMatrix(std::vector<metrics::OomKill> kills, const metrics::Range& range) {
  std::ranges::sort(kills, [](const auto& a, const auto& b) {
    return std::tie(a.id, a.time) < std::tie(b.id, b.time);
  });
  std::vector<metrics::ContainerSeries> series;
  const auto step = std::max(range.step, Duration(std::chrono::milliseconds(1)));
  for (const auto& kill : kills) {
    const auto steps = (kill.time - range.start + step - Duration(1)) / step;
    const Time at = range.start + std::max<std::int64_t>(steps, 0) * step;
    if (at > range.end) continue;
    if (series.empty() || series.back().id != kill.id) series.push_back({kill.id, {}});
    auto& points = series.back().points;
    const double bytes = static_cast<double>(kill.memoryAtKill.value());
    if (!points.empty() && points.back().time == at) {
      points.back().value = std::max(points.back().value, bytes);
    } else {
      points.push_back({at, bytes});
    }
  }
  return matrix(series);
}

double cores(Millicores m) { return static_cast<double>(m.value()) / 1000.0; }

}  // namespace

Result<OperatorQuery> recognizeOperatorQuery(std::string_view promql) {
  QueryScope q;
  q.ns = matcherValue(promql, "namespace=\"");
  if (auto regex = matcherValue(promql, "container!~\""))
    q.excludedContainers = excludedNames(*regex);
  const Duration window = firstWindow(promql);
  for (Kind kind : kKinds) {
    if (textOf(kind, q, window) != promql) continue;
    OperatorQuery out;
    out.kind = kind;
    if (q.ns) out.scope.namespaces.push_back(*q.ns);
    out.scope.excludedContainers = std::move(q.excludedContainers);
    out.window = window;
    return out;
  }
  return fail(ErrorCode::kInvalidArgument,
              "the simulator answers only the queries of Attune's Prometheus backend "
              "(metrics/prometheus/promql.h); not one of them: " +
                  std::string(promql));
}

OperatorQueryAnswers::OperatorQueryAnswers(const Recorder& recorder, const ClusterState& state)
    : recorder_(recorder), state_(state) {}

OperatorQueryAnswers::~OperatorQueryAnswers() = default;

SimMetricsSource& OperatorQueryAnswers::sourceFor(Duration window) {
  auto& source = sources_[window];
  if (!source) {
    SimMetricsOptions options;
    if (window > Duration::zero()) options.minRateWindow = options.throttleWindow = window;
    source = std::make_unique<SimMetricsSource>(recorder_, state_, options);
  }
  return *source;
}

Result<std::string> OperatorQueryAnswers::answer(const OperatorQuery& query,
                                                 const std::optional<metrics::Range>& range,
                                                 Time at) {
  auto body = read(query, range, at);
  if (!body) return std::unexpected(body.error());
  return (*body)();
}

Result<AnswerBody> OperatorQueryAnswers::read(const OperatorQuery& query,
                                              const std::optional<metrics::Range>& range, Time at) {
  const bool rangeKind = isRangeQuery(query.kind);
  if (rangeKind != range.has_value()) {
    return fail(ErrorCode::kInvalidArgument,
                rangeKind ? "the simulator answers this query as a range query (query_range) only"
                          : "the simulator answers this query as an instant query (query) only");
  }
  SimMetricsSource& source =
      sourceFor(query.kind == Kind::kOomKills ? Duration::zero() : query.window);
  const metrics::Scope& scope = query.scope;
  // What was read, moved into the writer of the body: the values own their strings, so the body
  // is written after the simulation's lock is released.
  // `read` is taken by reference and its value moved out once: moving the whole `expected` into
  // a by-value parameter makes g++ 12 at -O3 warn (maybe-uninitialized) on the vector's move.
  const auto later = [](auto&& read, auto write) -> Result<AnswerBody> {
    if (!read) return std::unexpected(read.error());
    return AnswerBody(
        [values = std::move(*read), write]() mutable { return write(std::move(values)); });
  };
  const auto series = [&](auto&& read) { return later(read, matrix); };
  switch (query.kind) {
    case Kind::kCpuUsage:
      return series(source.cpuUsage(scope, *range));
    case Kind::kCpuPressureWaiting:
      return series(source.cpuPressureWaiting(scope, *range));
    case Kind::kMemoryWorkingSet:
      return series(source.memoryWorkingSet(scope, *range));
    case Kind::kCpuThrottleRatio:
      return series(source.cpuThrottleRatio(scope, *range));
    case Kind::kOomKills:
      return later(source.oomKills(scope, *range),
                   [range = *range](std::vector<metrics::OomKill> kills) {
                     return oomMatrix(std::move(kills), range);
                   });
    case Kind::kNodeLoad:
      return later(source.nodeLoad(*range), [](const std::vector<metrics::NodeSeries>& nodes) {
        Body body("matrix");
        for (const auto& n : nodes) {
          if (n.points.empty()) continue;
          body.open({{"node", n.node}});
          body.values();
          for (const auto& p : n.points) body.point(p.time, p.value);
          body.closeValues();
        }
        return std::move(body).finish();
      });
    case Kind::kRestartCounts:
      return later(
          source.restartCounts(scope, at), [at](const std::vector<metrics::RestartCount>& counts) {
            Body body("vector");
            for (const auto& c : counts) {
              body.open({{"container", c.id.container}, {"namespace", c.id.ns}, {"pod", c.id.pod}});
              body.value(at, static_cast<double>(c.restarts));
            }
            return std::move(body).finish();
          });
    case Kind::kResources:
      return later(
          source.resources(scope, at),
          [at](const std::vector<metrics::ContainerResourceValues>& resources) {
            Body body("vector");
            const auto add = [&](const metrics::ContainerResourceValues& r, std::string_view name,
                                 std::string_view resource, double v) {
              body.open({{"__name__", name},
                         {"container", r.id.container},
                         {"namespace", r.id.ns},
                         {"pod", r.id.pod},
                         {"resource", resource}});
              body.value(at, v);
            };
            for (const auto& r : resources) {
              constexpr std::string_view kRequests = "kube_pod_container_resource_requests";
              constexpr std::string_view kLimits = "kube_pod_container_resource_limits";
              if (r.cpuRequest) add(r, kRequests, "cpu", cores(*r.cpuRequest));
              if (r.cpuLimit) add(r, kLimits, "cpu", cores(*r.cpuLimit));
              if (r.memoryRequest) {
                add(r, kRequests, "memory", static_cast<double>(r.memoryRequest->value()));
              }
              if (r.memoryLimit) {
                add(r, kLimits, "memory", static_cast<double>(r.memoryLimit->value()));
              }
            }
            return std::move(body).finish();
          });
    case Kind::kOwners:
      return later(source.podOwners(scope, at), [at](const std::vector<metrics::PodOwner>& owners) {
        Body body("vector");
        for (const auto& o : owners) {
          const bool bare = o.workload.kind == "Pod";
          body.open({{"__name__", "kube_pod_owner"},
                     {"namespace", o.ns},
                     {"owner_is_controller", bare ? "<none>" : "true"},
                     {"owner_kind", bare ? "<none>" : std::string_view(o.workload.kind)},
                     {"owner_name", bare ? "<none>" : std::string_view(o.workload.name)},
                     {"pod", o.pod}});
          body.value(at, 1);
        }
        return std::move(body).finish();
      });
    case Kind::kNodeCapacity:
      return later(source.nodeCapacity(at), [at](const std::vector<metrics::NodeCapacity>& nodes) {
        Body body("vector");
        for (const auto& n : nodes) {
          body.open({{"node", n.node}, {"resource", "cpu"}});
          body.value(at, cores(n.cpu));
          body.open({{"node", n.node}, {"resource", "memory"}});
          body.value(at, static_cast<double>(n.memory.value()));
        }
        return std::move(body).finish();
      });
  }
  return fail(ErrorCode::kInternal, "unknown query kind");
}

namespace {

HttpResponse prometheusError(int status, std::string_view type, std::string_view message) {
  nlohmann::json body{{"status", "error"}, {"errorType", type}, {"error", message}};
  return json(status, body.dump());
}

// A time parameter: Unix seconds (with a fraction) or RFC 3339.
Result<Time> parseTime(std::string_view text, std::string_view name) {
  if (text.empty()) return fail(ErrorCode::kInvalidArgument, "missing " + std::string(name));
  char* end = nullptr;
  const std::string copy(text);
  const double seconds = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str() + copy.size() && std::isfinite(seconds)) {
    return Time(std::chrono::duration_cast<Duration>(
        std::chrono::duration<double>(std::round(seconds * 1000.0) / 1000.0)));
  }
  if (auto t = parseRfc3339(text)) return *t;
  return fail(ErrorCode::kInvalidArgument, "invalid parameter \"" + std::string(name) +
                                               "\": cannot parse \"" + std::string(text) +
                                               "\" to a valid timestamp");
}

// The step: seconds (with a fraction) or a duration such as 5m; positive.
Result<Duration> parseStep(std::string_view text) {
  char* end = nullptr;
  const std::string copy(text);
  const double seconds = std::strtod(copy.c_str(), &end);
  Duration step{};
  if (!copy.empty() && end == copy.c_str() + copy.size() && std::isfinite(seconds)) {
    step = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
  } else if (auto d = parseDuration(text)) {
    step = *d;
  }
  if (step <= Duration::zero()) {
    return fail(
        ErrorCode::kInvalidArgument,
        "invalid parameter \"step\": want a positive duration, got \"" + std::string(text) + "\"");
  }
  return step;
}

}  // namespace

PrometheusApi::PrometheusApi(SimHost& host) : host_(host) {}

PrometheusApi::~PrometheusApi() = default;

HttpResponse PrometheusApi::handle(const HttpRequest& request, std::string_view endpoint) {
  const bool rangeQuery = endpoint == "/api/v1/query_range";
  if (!rangeQuery && endpoint != "/api/v1/query") {
    return prometheusError(404, "not_found",
                           "the simulator serves only /api/v1/query and /api/v1/query_range");
  }
  if (request.method != "GET" && request.method != "POST") {
    return prometheusError(405, "bad_data", "use GET or POST");
  }
  http::server::HeaderMap params = request.query;
  if (request.method == "POST") {
    for (auto& [name, value] : http::server::parseQuery(request.body)) params[name] = value;
  }
  const auto param = [&](std::string_view name) -> std::string_view {
    auto it = params.find(name);
    return it == params.end() ? std::string_view() : std::string_view(it->second);
  };
  if (param("query").empty()) return prometheusError(400, "bad_data", "missing query");
  auto query = recognizeOperatorQuery(param("query"));
  if (!query) return prometheusError(400, "bad_data", query.error().message);
  std::optional<metrics::Range> range;
  Time at = host_.wall().now();
  if (rangeQuery) {
    auto start = parseTime(param("start"), "start");
    if (!start) return prometheusError(400, "bad_data", start.error().message);
    auto end = parseTime(param("end"), "end");
    if (!end) return prometheusError(400, "bad_data", end.error().message);
    auto step = parseStep(param("step"));
    if (!step) return prometheusError(400, "bad_data", step.error().message);
    if (*end < *start) {
      return prometheusError(400, "bad_data",
                             "invalid parameter \"end\": end timestamp must not be before start "
                             "time");
    }
    // Prometheus' own bound on the points of one series.
    if ((*end - *start) / *step > metrics::kMaxStepsPerRangeQuery) {
      return prometheusError(400, "bad_data",
                             "exceeded maximum resolution of 11,000 points per timeseries. Try "
                             "decreasing the query resolution (?step=XX)");
    }
    range = metrics::Range{*start, *end, *step};
  } else if (!param("time").empty()) {
    auto t = parseTime(param("time"), "time");
    if (!t) return prometheusError(400, "bad_data", t.error().message);
    at = *t;
  }
  // Read under the simulation's lock; the body is written after it is released, so that the
  // ticks and the API's requests do not wait on the encoding.
  auto body = host_.inspect([&](Simulation& sim) {
    if (!answers_) answers_ = std::make_unique<OperatorQueryAnswers>(sim.recorder(), sim.state());
    return answers_->read(*query, range, at);
  });
  if (!body) {
    const bool bad = body.error().code == ErrorCode::kInvalidArgument;
    return prometheusError(bad ? 400 : 422, bad ? "bad_data" : "execution",
                           body.error().toString());
  }
  return json(200, (*body)());
}

}  // namespace attune::sim::serve
