#include "sim/engine/scenario_builder.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "metrics/trace/attune_csv_reader.h"
#include "metrics/trace/bitbrains_reader.h"
#include "metrics/trace/line_reader.h"

namespace attune::sim {
namespace {

Error at(std::string field, const Error& error) {
  return Error{error.code, error.message, std::move(field)};
}

api::Node nodeOf(const NodePool& pool, int index) {
  api::Node node;
  node.metadata.name = pool.name + "-" + std::to_string(index);
  node.metadata.labels = pool.labels;
  node.metadata.labels.insert_or_assign("kubernetes.io/hostname", node.metadata.name);
  node.metadata.labels.insert_or_assign("kubernetes.io/os", "linux");
  node.metadata.labels.insert_or_assign(std::string(kNodePoolLabel), pool.name);
  node.spec.taints = pool.taints;
  api::NodeStatus& s = node.status;
  s.capacity.cpu = Quantity::fromMillicores(pool.cpu);
  s.capacity.memory = Quantity::fromBytes(pool.memory);
  s.capacity.set(
      "pods", Quantity::fromNanos(__int128{pool.pods} * 1'000'000'000, QuantityFormat::kDecimalSI));
  s.allocatable.cpu = Quantity::fromMillicores(pool.allocatableCpu.value_or(pool.cpu));
  s.allocatable.memory = Quantity::fromBytes(pool.allocatableMemory.value_or(pool.memory));
  s.allocatable.set("pods", Quantity::fromNanos(
                                __int128{pool.allocatablePods.value_or(pool.pods)} * 1'000'000'000,
                                QuantityFormat::kDecimalSI));
  s.conditions.push_back(
      {"Ready", "True", "KubeletReady", "kubelet is posting ready status", {}, 0});
  s.conditions.push_back({"MemoryPressure", "False", "KubeletHasSufficientMemory", "", {}, 0});
  s.kubeletVersion = "v1.33.0";
  return node;
}

api::PodTemplateSpec podTemplateOf(const WorkloadScenario& w) {
  using enum api::WorkloadKind;
  api::PodTemplateSpec t;
  t.metadata.labels.insert_or_assign(std::string(kWorkloadNameLabel), w.name);
  for (const auto& [k, v] : w.labels) t.metadata.labels.insert_or_assign(k, v);
  t.metadata.annotations = w.podAnnotations;
  const bool batch = w.kind == kJob || w.kind == kCronJob;
  t.spec.restartPolicy = !w.restartPolicy.empty() ? w.restartPolicy
                         : batch                  ? "OnFailure"
                                                  : "Always";
  t.spec.priority = w.priority;
  t.spec.priorityClassName = w.priorityClassName;
  t.spec.nodeSelector = w.nodeSelector;
  t.spec.tolerations = w.tolerations;
  for (const ContainerScenario& c : w.containers) {
    api::Container& container = t.spec.containers.emplace_back();
    container.name = c.name;
    container.image = c.image;
    container.resources = c.resources;
    container.resizePolicy = c.resizePolicy;
  }
  return t;
}

api::LabelSelector selectorOf(const api::PodTemplateSpec& t) {
  api::LabelSelector selector;
  selector.matchLabels.emplace(std::string(kWorkloadNameLabel),
                               t.metadata.labels.at(std::string(kWorkloadNameLabel)));
  return selector;
}

api::JobSpec jobSpecOf(const WorkloadScenario& w, api::PodTemplateSpec t) {
  api::JobSpec spec;
  spec.completions = w.completions;
  spec.parallelism = w.parallelism;
  spec.backoffLimit = w.backoffLimit;
  spec.selector = selectorOf(t);
  spec.template_ = std::move(t);
  return spec;
}

template <typename T>
Result<void> created(const Result<T>& result, const std::string& field) {
  if (!result) return std::unexpected(at(field, result.error()));
  return {};
}

// Creates the workload object `w` describes.
Result<void> createWorkload(ClusterState& state, const WorkloadScenario& w) {
  using enum api::WorkloadKind;
  api::ObjectMeta meta;
  meta.name = w.name;
  meta.namespace_ = w.namespace_;
  meta.labels = w.labels;
  meta.annotations = w.annotations;
  api::PodTemplateSpec t = podTemplateOf(w);
  const std::string field = w.fieldPath + ".name";
  if (w.kind == kJob) {
    api::Job job;
    job.metadata = meta;
    job.spec = jobSpecOf(w, std::move(t));
    return created(state.jobs.create(job), field);
  }
  if (w.kind == kCronJob) {
    api::CronJob cron;
    cron.metadata = meta;
    cron.spec.schedule = w.schedule;
    cron.spec.concurrencyPolicy = w.concurrencyPolicy;
    cron.spec.suspend = w.suspend;
    cron.spec.jobTemplate.metadata.labels = t.metadata.labels;
    cron.spec.jobTemplate.spec = jobSpecOf(w, std::move(t));
    return created(state.cronJobs.create(cron), field);
  }
  api::Workload workload;
  workload.metadata = meta;
  if (w.kind != kDaemonSet) workload.spec.replicas = w.replicas.value_or(1);
  workload.spec.selector = selectorOf(t);
  workload.spec.template_ = std::move(t);
  workload.spec.strategyType = "RollingUpdate";
  switch (w.kind) {
    case kStatefulSet:
      return created(state.statefulSets.create(api::StatefulSet{workload}), field);
    case kDaemonSet:
      return created(state.daemonSets.create(api::DaemonSet{workload}), field);
    default:
      return created(state.deployments.create(api::Deployment{workload}), field);
  }
}

void registerModels(ModelRegistry& models, const WorkloadScenario& w, int trace) {
  std::map<std::string, ContainerModel, std::less<>> containers;
  for (const ContainerScenario& c : w.containers) containers[c.name] = {c.model, trace};
  models.add(w.kind, w.namespace_, w.name, std::move(containers));
}

// A DNS-1123 label made from `text`: lower-cased, other characters replaced by '-', trimmed.
std::string dnsLabel(std::string_view text) {
  std::string out;
  for (char c : text) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool ok = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    out += ok ? lower : '-';
  }
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && out.back() == '-') out.pop_back();
  while (!out.empty() && out.front() == '-') out.erase(out.begin());
  return out.empty() ? "x" : out;
}

// The trace files `path` stands for, as readTraceFiles expands it.
std::vector<std::filesystem::path> traceFiles(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return {path};
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".csv") || name.ends_with(".csv.gz")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// kInvalidArgument when a file of the trace is not in `format` (the loader reports unreadable
// files itself).
Result<void> checkFormat(const TraceWorkloads& t) {
  if (t.format.empty()) return {};
  for (const auto& file : traceFiles(t.path)) {
    auto lines = metrics::LineReader::open(file);
    if (!lines) continue;
    std::string header;
    if (auto read = lines->next(header); !read || !*read) continue;
    const bool ok = t.format == "bitbrains" ? metrics::isBitbrainsHeader(header)
                                            : metrics::isAttuneCsvHeader(header);
    if (!ok) {
      return fail(ErrorCode::kInvalidArgument,
                  file.string() + ": not a " + t.format + " trace file", t.fieldPath + ".format");
    }
  }
  return {};
}

api::ResourceValues firstResources(const metrics::ContainerTrace& trace) {
  return trace.resources.empty() ? api::ResourceValues{} : trace.resources.front().value;
}

// The trace of `t`: the one in memory, or read from its files.
Result<std::shared_ptr<const metrics::TraceSource>> loadTrace(const TraceWorkloads& t) {
  if (t.loaded) return t.loaded;
  if (auto ok = checkFormat(t); !ok) return std::unexpected(ok.error());
  metrics::TraceOptions options;
  if (!t.namespace_.empty()) options.bitbrainsNamespace = t.namespace_;
  auto source = metrics::TraceSource::load({t.path}, options);
  if (!source) return std::unexpected(at(t.fieldPath + ".path", source.error()));
  return std::shared_ptr<const metrics::TraceSource>(std::move(*source));
}

// One Deployment per pod of the trace `t`.
Result<void> addTraceWorkloads(const TraceWorkloads& t, ClusterState& state,
                               ModelRegistry& models) {
  auto source = loadTrace(t);
  if (!source) return std::unexpected(source.error());
  const metrics::TraceSource& trace = **source;
  const int index = models.addTrace(std::move(*source));

  std::vector<WorkloadScenario> workloads;
  std::set<std::pair<std::string, std::string>> names;
  std::pair<std::string, std::string> lastPod;
  for (const auto& [id, container] : trace.data().containers()) {
    if (workloads.empty() || lastPod != std::pair{id.ns, id.pod}) {
      if (t.limit && std::ssize(workloads) >= *t.limit) break;
      WorkloadScenario& w = workloads.emplace_back();
      w.namespace_ = t.namespace_.empty() ? dnsLabel(id.ns) : t.namespace_;
      w.name = dnsLabel(id.pod);
      for (int n = 2; !names.emplace(w.namespace_, w.name).second; ++n) {
        w.name = dnsLabel(id.pod).substr(0, 55) + "-" + std::to_string(n);
      }
      w.fieldPath = t.fieldPath;
      w.labels.emplace("sim.attune.io/trace-pod", dnsLabel(id.pod));
      lastPod = {id.ns, id.pod};
    }
    ContainerScenario& c = workloads.back().containers.emplace_back();
    c.name = dnsLabel(id.container);
    const api::ResourceValues r = firstResources(container);
    if (r.cpuRequest) c.resources.requests.cpu = Quantity::fromMillicores(*r.cpuRequest);
    if (r.cpuLimit) c.resources.limits.cpu = Quantity::fromMillicores(*r.cpuLimit);
    if (r.memoryRequest) c.resources.requests.memory = Quantity::fromBytes(*r.memoryRequest);
    if (r.memoryLimit) c.resources.limits.memory = Quantity::fromBytes(*r.memoryLimit);
    c.model.kind = "trace";
    c.model.container = id.ns + "/" + id.pod + "/" + id.container;
  }
  for (const WorkloadScenario& w : workloads) {
    (void)state.ensureNamespace(w.namespace_);
    if (auto ok = createWorkload(state, w); !ok) return ok;
    registerModels(models, w, index);
  }
  return {};
}

template <typename T>
Result<void> createAll(ObjectStore<T>& store, const std::vector<T>& objects,
                       const std::string& path) {
  for (std::size_t i = 0; i < objects.size(); ++i) {
    auto ok = store.create(objects[i]);
    if (!ok) return std::unexpected(at(path + "[" + std::to_string(i) + "]", ok.error()));
  }
  return {};
}

}  // namespace

KubeletOptions kubeletOptionsFor(const Scenario& scenario) {
  KubeletOptions options = scenario.kubelet;
  options.perNode.clear();
  for (const NodePool& pool : scenario.nodePools) {
    if (!pool.restartBackoff) continue;
    for (int i = 0; i < std::max(pool.count, pool.maxSize.value_or(0)); ++i) {
      options.perNode.insert_or_assign(pool.name + "-" + std::to_string(i), *pool.restartBackoff);
    }
  }
  return options;
}

std::optional<ClusterAutoscaler> clusterAutoscalerFor(const Scenario& scenario) {
  if (!scenario.clusterAutoscaler) return std::nullopt;
  std::vector<NodeGroup> groups;
  for (const NodePool& pool : scenario.nodePools) {
    groups.push_back({.name = pool.name,
                      .minSize = pool.minSize.value_or(pool.count),
                      .maxSize = pool.maxSize.value_or(pool.count),
                      .pricePerHour = pool.pricePerHour,
                      .templateNode = nodeOf(pool, 0)});
  }
  return ClusterAutoscaler(*scenario.clusterAutoscaler, std::move(groups));
}

Result<void> buildCluster(const Scenario& scenario, ClusterState& state, ModelRegistry& models) {
  for (std::size_t p = 0; p < scenario.nodePools.size(); ++p) {
    const NodePool& pool = scenario.nodePools[p];
    for (int i = 0; i < pool.count; ++i) {
      auto node = state.nodes.create(nodeOf(pool, i));
      if (!node)
        return std::unexpected(at("spec.nodePools[" + std::to_string(p) + "]", node.error()));
    }
  }
  std::set<std::string, std::less<>> namespaces(scenario.namespaces.begin(),
                                                scenario.namespaces.end());
  for (const WorkloadScenario& w : scenario.workloads) namespaces.insert(w.namespace_);
  for (const auto& o : scenario.limitRanges) namespaces.insert(o.metadata.namespace_);
  for (const auto& o : scenario.resourceQuotas) namespaces.insert(o.metadata.namespace_);
  for (const auto& o : scenario.hpas) namespaces.insert(o.metadata.namespace_);
  for (const auto& o : scenario.podDisruptionBudgets) namespaces.insert(o.metadata.namespace_);
  for (const auto& t : scenario.traces) {
    if (!t.namespace_.empty()) namespaces.insert(t.namespace_);
  }
  for (const std::string& ns : namespaces) {
    if (auto ok = state.ensureNamespace(ns); !ok) return std::unexpected(ok.error());
  }
  if (auto ok = createAll(state.limitRanges, scenario.limitRanges, "spec.limitRanges"); !ok) {
    return ok;
  }
  if (auto ok = createAll(state.resourceQuotas, scenario.resourceQuotas, "spec.resourceQuotas");
      !ok) {
    return ok;
  }
  for (const WorkloadScenario& w : scenario.workloads) {
    if (auto ok = createWorkload(state, w); !ok) return ok;
    registerModels(models, w, -1);
  }
  for (const TraceWorkloads& t : scenario.traces) {
    if (auto ok = addTraceWorkloads(t, state, models); !ok) return ok;
  }
  if (auto ok = createAll(state.hpas, scenario.hpas, "spec.hpas"); !ok) return ok;
  if (auto ok = createAll(state.pdbs, scenario.podDisruptionBudgets, "spec.podDisruptionBudgets");
      !ok) {
    return ok;
  }
  std::vector<api::AttunePolicy> policies = scenario.policies;
  for (api::AttunePolicy& p : policies) {
    if (p.metadata.namespace_.empty()) p.metadata.namespace_ = "default";
    (void)state.ensureNamespace(p.metadata.namespace_);
  }
  return createAll(state.attunePolicies, policies, "spec.policies");
}

Result<void> loadTraces(Scenario& scenario) {
  for (TraceWorkloads& t : scenario.traces) {
    auto loaded = loadTrace(t);
    if (!loaded) return std::unexpected(loaded.error());
    t.loaded = std::move(*loaded);
  }
  return {};
}

}  // namespace attune::sim
