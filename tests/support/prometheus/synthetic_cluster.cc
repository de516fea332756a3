#include "support/prometheus/synthetic_cluster.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace attune::testing {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;
constexpr double kMi = 1024.0 * 1024.0;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, end);
}

// Collects samples per metric family, so each family is written contiguously as OpenMetrics
// requires; series within a family must be written in time order.
class OpenMetricsWriter {
 public:
  void sample(const std::string& metric, const Labels& labels, double value, Time t) {
    std::string& out = families_[metric];
    out += metric + "{";
    for (size_t i = 0; i < labels.size(); ++i) {
      out += (i ? "," : "") + labels[i].first + "=\"" + labels[i].second + "\"";
    }
    const auto seconds = std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
    out += "} " + number(value) + " " + std::to_string(seconds) + "\n";
  }

  std::string text() const {
    std::string out;
    for (const auto& [metric, lines] : families_) out += lines;
    return out + "# EOF\n";
  }

 private:
  std::map<std::string, std::string> families_;
};

Labels with(Labels labels, std::initializer_list<std::pair<std::string, std::string>> more) {
  labels.insert(labels.end(), more.begin(), more.end());
  return labels;
}

Labels cadvisorLabels(const SyntheticContainer& c) {
  return {{"namespace", c.ns},        {"pod", c.pod},
          {"container", c.container}, {"instance", "node-a"},
          {"job", "kubelet"},         {"id", "/kubepods/" + c.pod + "/" + c.container}};
}

Labels ksmLabels(const std::string& ns, const std::string& pod) {
  return {{"namespace", ns}, {"pod", pod}, {"job", "kube-state-metrics"}};
}

struct Resource {
  std::string pod, container, metric, resource;
  double value;
};

const std::vector<Resource> kResources = {
    {"web-7d9c5-abcde", "app", "requests", "cpu", 0.1},
    {"web-7d9c5-abcde", "app", "requests", "memory", 128 * kMi},
    {"web-7d9c5-abcde", "app", "limits", "cpu", 0.5},
    {"web-7d9c5-abcde", "app", "limits", "memory", 256 * kMi},
    {"web-7d9c5-fghij", "app", "requests", "cpu", 0.1},
    {"web-7d9c5-fghij", "app", "requests", "memory", 128 * kMi},
    {"web-7d9c5-fghij", "app", "limits", "cpu", 0.5},
    {"web-7d9c5-fghij", "app", "limits", "memory", 256 * kMi},
    {"web-7d9c5-fghij", "istio-proxy", "requests", "cpu", 0.0005},
    {"web-7d9c5-fghij", "istio-proxy", "requests", "memory", 64 * kMi},
    {"db-0", "postgres", "requests", "cpu", 1},
    {"db-0", "postgres", "requests", "memory", 512 * kMi},
    {"db-0", "postgres", "limits", "cpu", 2},
    {"db-0", "postgres", "limits", "memory", 512 * kMi},
};

struct Owner {
  std::string metric, ns, objectLabel, object, kind, name;
};

const std::vector<Owner> kOwners = {
    {"kube_pod_owner", "shop", "pod", "web-7d9c5-abcde", "ReplicaSet", "web-7d9c5"},
    {"kube_pod_owner", "shop", "pod", "web-7d9c5-fghij", "ReplicaSet", "web-7d9c5"},
    {"kube_pod_owner", "shop", "pod", "legacy-5f6g7-zz9yx", "ReplicaSet", "legacy-5f6g7"},
    {"kube_pod_owner", "data", "pod", "db-0", "StatefulSet", "db"},
    {"kube_pod_owner", "data", "pod", "lonely", "<none>", "<none>"},
    {"kube_pod_owner", "ops", "pod", "agent-x2z4q", "DaemonSet", "agent"},
    {"kube_pod_owner", "batch", "pod", "nightly-28900000-q8x7z", "Job", "nightly-28900000"},
    {"kube_pod_owner", "batch", "pod", "migrate-k2j4h", "Job", "migrate"},
    {"kube_replicaset_owner", "shop", "replicaset", "web-7d9c5", "Deployment", "web"},
    {"kube_replicaset_owner", "shop", "replicaset", "web-6b8f4", "Deployment", "web"},
    {"kube_replicaset_owner", "shop", "replicaset", "legacy-5f6g7", "<none>", "<none>"},
    {"kube_job_owner", "batch", "job_name", "nightly-28900000", "CronJob", "nightly"},
    {"kube_job_owner", "batch", "job_name", "migrate", "<none>", "<none>"},
};

}  // namespace

SyntheticCluster::SyntheticCluster(Time start, Time end)
    : start_(start), end_(end), oomAt_(start + std::chrono::minutes(90)) {
  containers_ = {
      {"shop", "web-7d9c5-abcde", "app", 0.25, 0.2, 100 * kMi},
      {"shop", "web-7d9c5-fghij", "app", 0.5, 0.1, 150 * kMi},
      {"shop", "web-7d9c5-fghij", "istio-proxy", 0.05, 0, 30 * kMi},
      {"data", "db-0", "postgres", 1.0, 0.5, 200 * kMi},
      {"data", "lonely", "main", 0.1, 0, 20 * kMi},
      {"ops", "agent-x2z4q", "agent", 0.02, 0, 10 * kMi},
      {"batch", "nightly-28900000-q8x7z", "job", 0.75, 0, 300 * kMi},
      {"batch", "migrate-k2j4h", "migrate", 0.3, 0, 40 * kMi},
      {"odd", "nan-pod", "app", 0, 0, 50 * kMi, false},
      {"odd", "allnan", "app", 0, 0, 50 * kMi, false},
  };
}

const SyntheticContainer& SyntheticCluster::container(const std::string& pod,
                                                      const std::string& name) const {
  for (const auto& c : containers_) {
    if (c.pod == pod && c.container == name) return c;
  }
  throw std::out_of_range("no synthetic container " + pod + "/" + name);
}

int SyntheticCluster::minuteIndex(Time t) const {
  return static_cast<int>(std::chrono::floor<std::chrono::minutes>(t - start_).count());
}

double SyntheticCluster::rawMemory(const SyntheticContainer& c, int i) const {
  const double ramp = c.memoryBase + 4096.0 * i;
  if (c.pod == "allnan") return kNaN;
  if (c.pod == "nan-pod") {
    if (i % 2 == 0) return kNaN;
    if (i % 3 == 0) return kInf;
    if (i % 5 == 0) return -kInf;
    return ramp;
  }
  if (c.pod == "db-0") {
    const int kill = minuteIndex(oomAt_);
    if (i >= kill - 3 && i < kill) return (400 + 50 * (i - kill + 3)) * kMi;  // 400, 450, 500Mi
    if (i >= kill) return 60 * kMi + 4096.0 * (i - kill);
  }
  return ramp;
}

std::optional<double> SyntheticCluster::memoryAt(const SyntheticContainer& c, Time t) const {
  const double v = rawMemory(c, minuteIndex(t));
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string SyntheticCluster::openMetrics() const {
  OpenMetricsWriter w;
  const int minutes = minuteIndex(end_);
  // One series: valueAt(i) at every minute i (series are written whole, in time order).
  const auto series = [&](const std::string& metric, const Labels& labels, auto valueAt) {
    for (int i = 0; i <= minutes; ++i) {
      w.sample(metric, labels, valueAt(i), start_ + std::chrono::minutes(i));
    }
  };
  const auto constant = [](double v) { return [v](int) { return v; }; };
  const int kill = minuteIndex(oomAt_);
  for (const auto& c : containers_) {
    const Labels labels = cadvisorLabels(c);
    series("container_memory_working_set_bytes", labels, [&](int i) { return rawMemory(c, i); });
    if (!c.cadvisorCpu) continue;
    const auto counter = [](double perSecond, double base = 0) {
      return [=](int i) { return base + perSecond * 60.0 * i; };
    };
    series("container_cpu_usage_seconds_total", labels, counter(c.cpuCores, 1000));
    series("container_pressure_cpu_waiting_seconds_total", labels, counter(0.1 * c.cpuCores));
    series("container_cpu_cfs_periods_total", labels, counter(10));
    series("container_cpu_cfs_throttled_periods_total", labels, counter(10 * c.throttleRatio));
    const Labels ksm = with(ksmLabels(c.ns, c.pod), {{"container", c.container}});
    series("kube_pod_container_status_restarts_total", ksm, [&](int i) {
      if (c.pod == "migrate-k2j4h") return 2.0;
      return c.pod == "db-0" && i >= kill ? 1.0 : 0.0;
    });
  }
  // kube-state-metrics exposes the last termination reason only once there is one.
  const SyntheticContainer& db = container("db-0", "postgres");
  for (int i = kill; i <= minutes; ++i) {
    w.sample("kube_pod_container_status_last_terminated_reason",
             with(ksmLabels(db.ns, db.pod), {{"container", db.container}, {"reason", "OOMKilled"}}),
             1, start_ + std::chrono::minutes(i));
  }
  // Series the queries must ignore: the pod sandbox ("POD") and the pod cgroup (no container).
  const SyntheticContainer& web = container("web-7d9c5-abcde", "app");
  for (const std::string sandbox : {"POD", ""}) {
    Labels labels = {{"namespace", web.ns}, {"pod", web.pod}, {"instance", "node-a"}};
    if (!sandbox.empty()) labels.emplace_back("container", sandbox);
    series("container_cpu_usage_seconds_total", labels, [](int i) { return 60.0 * i; });
    series("container_memory_working_set_bytes", labels, constant(999 * kMi));
  }
  for (const auto& r : kResources) {
    const SyntheticContainer& c = container(r.pod, r.container);
    series("kube_pod_container_resource_" + r.metric,
           with(ksmLabels(c.ns, c.pod), {{"container", c.container},
                                         {"resource", r.resource},
                                         {"unit", r.resource == "cpu" ? "core" : "byte"},
                                         {"node", "node-a"}}),
           constant(r.value));
  }
  for (const auto& o : kOwners) {
    series(o.metric,
           {{"namespace", o.ns},
            {o.objectLabel, o.object},
            {"owner_kind", o.kind},
            {"owner_name", o.name},
            {"owner_is_controller", o.kind == "<none>" ? "<none>" : "true"},
            {"job", "kube-state-metrics"}},
           constant(1));
  }
  series("node_load1", {{"instance", "node-a:9100"}, {"node", "node-a"}},
         [](int i) { return 1 + 0.1 * (i % 10); });
  series("node_load1", {{"instance", "node-b:9100"}}, constant(2.5));
  for (const auto& [node, cpu, memoryGi] :
       {std::tuple{"node-a", 4.0, 16.0}, std::tuple{"node-b", 8.0, 32.0}}) {
    const Labels base = {{"node", node}, {"job", "kube-state-metrics"}};
    series("kube_node_status_capacity", with(base, {{"resource", "cpu"}, {"unit", "core"}}),
           constant(cpu));
    series("kube_node_status_capacity", with(base, {{"resource", "memory"}, {"unit", "byte"}}),
           constant(memoryGi * 1024 * kMi));
    series("kube_node_status_capacity", with(base, {{"resource", "pods"}, {"unit", "integer"}}),
           constant(110));
  }
  return w.text();
}

}  // namespace attune::testing
