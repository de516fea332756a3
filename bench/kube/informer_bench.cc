// Informer caches at scale.
//  1. Memory: a PodInformer filled with 100,000 realistic pods (kubectl-shaped running pods of
//     Deployments: init container, three containers, ten labels, ownerReferences, five
//     conditions, containerStatuses with resources) from a LIST read in pages of 500. Prints the
//     resident memory the cache adds (VmRSS after the fill, freed LIST memory returned with
//     malloc_trim, minus VmRSS before it) and per pod, against the target of 300 MiB, and the
//     peak (VmHWM) during the fill against the baseline of one unpaged LIST of the same pods
//     decoded whole before packing, measured in the same run. Also the cost of reading every
//     cached pod once.
//  2. Memory of a shard's cache: the same 100,000 pods spread over 300 namespaces, filled into
//     a PodInformer whose namespace filter (InformerOptions::namespaceFilter, as a sharded
//     controller sets it) owns every third namespace, against an unfiltered informer over the
//     same pods in the same run; prints both resident sizes and peaks and the ratio.
//  3. Watch-event decode throughput: api::decodeWatchEvent<api::Pod> over watch lines as the API
//     server sends them ({"type":"MODIFIED","object":{...}}), against a plain simdjson DOM parse
//     of the same lines (no typed objects) in the same run; prints events/s, MiB/s and the ratio.
//  4. What a shard's watch stream pays for another shard's event: api::decodeWatchEventHead
//     (type and metadata only) over the same lines, against the full decode of 3; prints the
//     ratio, and what a shard owning a third of the namespaces decodes of the whole stream
//     (a third in full, the rest by their head) against decoding every event.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/decode.h"
#include "api/k8s/watch_head.h"
#include "bench/support/mean_time_reporter.h"
#include "kube/compact_pod.h"
#include "kube/informer.h"
#include "support/pod_json.h"

namespace {

using namespace attune;  // NOLINT(google-build-using-namespace): a benchmark's main file.

constexpr int kCachedPods = 100000;
constexpr int kTemplates = 1000;
constexpr int kWatchEvents = 10000;
constexpr double kTargetMiB = 300;
constexpr int kNamespaces = 300;  // the namespace-filter case: pods spread over this many
constexpr const char* kOurs = "BM_DecodeWatchEvent_Attune";
constexpr const char* kBaseline = "BM_ParseWatchEvent_SimdjsonDom";

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "informer_bench: %s\n", why.c_str());
  std::abort();
}

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
long statusKiB(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(field + ":")) return std::stol(line.substr(field.size() + 1));
  }
  die("no " + field + " in /proc/self/status");
}

// Serves listPods with kCachedPods distinct pods made from kTemplates decoded realistic pods
// (each copy gets its own name, uid and resourceVersion; with `namespaces` above zero, pod i is
// in namespace "ns-<i mod namespaces>"). Everything else is unsupported.
class ListOnlyApi final : public api::ClusterApi {
 public:
  explicit ListOnlyApi(std::vector<api::Pod> templates, int namespaces = 0)
      : templates_(std::move(templates)), namespaces_(namespaces) {}

  Result<api::List<api::Pod>> listPods(const api::ListOptions&) override {
    api::List<api::Pod> list;
    list.resourceVersion = "987654321";
    list.items.reserve(kCachedPods);
    for (int i = 0; i < kCachedPods; ++i) list.items.push_back(podAt(i));
    return list;
  }
  // Pages of the same pods, made as they are asked for (the continue token is the offset).
  Result<api::List<api::Pod>> listPodsPage(const api::ListOptions&, std::size_t limit,
                                           std::string_view continueToken) override {
    const int offset = continueToken.empty() ? 0 : std::stoi(std::string(continueToken));
    const int end =
        limit == 0 ? kCachedPods : std::min(kCachedPods, offset + static_cast<int>(limit));
    api::List<api::Pod> page;
    page.resourceVersion = "987654321";
    page.items.reserve(static_cast<std::size_t>(end - offset));
    for (int i = offset; i < end; ++i) page.items.push_back(podAt(i));
    if (end < kCachedPods) page.continueToken = std::to_string(end);
    return page;
  }
  Result<api::WatchBatch<api::Pod>> watchPods(const api::ListOptions&,
                                              std::string_view resourceVersion) override {
    return api::WatchBatch<api::Pod>{{}, std::string(resourceVersion)};
  }

#define ATTUNE_UNSUPPORTED(Ret, Name, ...) \
  Ret Name(__VA_ARGS__) override { return fail(ErrorCode::kUnsupported, #Name); }
  ATTUNE_UNSUPPORTED(Result<api::Pod>, getPod, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::Node>, getNode, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::Node>>, listNodes, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::Namespace>, getNamespace, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::Namespace>>, listNamespaces, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::Deployment>, getDeployment, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::Deployment>>, listDeployments, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::StatefulSet>, getStatefulSet, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::StatefulSet>>, listStatefulSets, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::DaemonSet>, getDaemonSet, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::DaemonSet>>, listDaemonSets, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::ReplicaSet>, getReplicaSet, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::ReplicaSet>>, listReplicaSets, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::Job>, getJob, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::Job>>, listJobs, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::CronJob>, getCronJob, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::CronJob>>, listCronJobs, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::List<api::LimitRange>>, listLimitRanges, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::List<api::ResourceQuota>>, listResourceQuotas,
                     const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::List<api::HorizontalPodAutoscaler>>, listHpas,
                     const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::List<api::PodDisruptionBudget>>, listPodDisruptionBudgets,
                     const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::List<api::Event>>, listEvents, const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::AttunePolicy>, getAttunePolicy, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::AttunePolicy>>, listAttunePolicies,
                     const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::AttuneDefaults>, getAttuneDefaults, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::AttuneDefaults>>, listAttuneDefaults,
                     const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::AttuneNamespaceDefaults>, getAttuneNamespaceDefaults,
                     std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::List<api::AttuneNamespaceDefaults>>, listAttuneNamespaceDefaults,
                     const api::ListOptions&)
  ATTUNE_UNSUPPORTED(Result<api::ObjectMeta>, patchPodAnnotations, std::string_view,
                     std::string_view, const api::AnnotationChanges&, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::ObjectMeta>, patchWorkloadAnnotations, api::WorkloadKind,
                     std::string_view, std::string_view, const api::AnnotationChanges&,
                     std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::Pod>, resizePod, std::string_view, std::string_view,
                     std::span<const api::ContainerResize>)
  ATTUNE_UNSUPPORTED(Result<void>, evictPod, const api::Eviction&)
  ATTUNE_UNSUPPORTED(Result<api::Event>, createEvent, const api::Event&)
  ATTUNE_UNSUPPORTED(Result<api::Event>, updateEvent, const api::Event&)
  ATTUNE_UNSUPPORTED(Result<api::AttunePolicy>, createAttunePolicy, const api::AttunePolicy&)
  ATTUNE_UNSUPPORTED(Result<api::AttunePolicy>, updateAttunePolicy, const api::AttunePolicy&)
  ATTUNE_UNSUPPORTED(Result<api::AttunePolicy>, updateAttunePolicyStatus, const api::AttunePolicy&)
  ATTUNE_UNSUPPORTED(Result<api::WebhookConfiguration>, getWebhookConfiguration,
                     api::WebhookConfigurationKind, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::ServerVersion>, getServerVersion)
  ATTUNE_UNSUPPORTED(Result<api::WebhookConfiguration>, patchWebhookCaBundles,
                     const api::WebhookConfiguration&)
  ATTUNE_UNSUPPORTED(Result<api::HorizontalPodAutoscaler>, getHpa, std::string_view,
                     std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::HorizontalPodAutoscaler>, updateHpa,
                     const api::HorizontalPodAutoscaler&)
  ATTUNE_UNSUPPORTED(Result<api::Lease>, getLease, std::string_view, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::Node>, updateNodeTaints, std::string_view,
                     std::span<const api::Taint>, std::string_view)
  ATTUNE_UNSUPPORTED(Result<api::Lease>, createLease, const api::Lease&)
  ATTUNE_UNSUPPORTED(Result<api::Lease>, updateLease, const api::Lease&)
  ATTUNE_UNSUPPORTED(Result<api::Secret>, getSecret, std::string_view, std::string_view)
#undef ATTUNE_UNSUPPORTED

 private:
  api::Pod podAt(int i) const {
    api::Pod pod = templates_[i % kTemplates];
    const std::string n = std::to_string(i);
    pod.metadata.name += "-" + n;
    pod.metadata.uid.replace(pod.metadata.uid.size() - n.size(), n.size(), n);
    pod.metadata.resourceVersion = std::to_string(100000000 + i);
    if (namespaces_ > 0) pod.metadata.namespace_ = "ns-" + std::to_string(i % namespaces_);
    return pod;
  }

  std::vector<api::Pod> templates_;
  int namespaces_ = 0;
};

std::vector<api::Pod> templatePods() {
  std::vector<api::Pod> out;
  for (int i = 0; i < kTemplates; ++i) {
    auto pod = api::decodePod(attune::testing::realisticPod(i).dump());
    if (!pod) die("decodePod: " + pod.error().toString());
    out.push_back(std::move(*pod));
  }
  return out;
}

// The cache the memory figure is taken of; read by BM_ForEachCachedPod.
kube::PodInformer* cache = nullptr;

// Resets VmHWM to the current resident size (Linux: "5" to clear_refs); false when refused.
bool resetPeak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

// What filling one informer cost: resident MiB before it, after it (freed memory returned with
// malloc_trim), before the trim, and the peak (VmHWM) during the fill.
struct Fill {
  double before = 0;
  double after = 0;
  double untrimmed = 0;
  double peak = 0;
};

Fill fill(kube::PodInformer& informer, std::size_t expected = kCachedPods) {
  malloc_trim(0);
  Fill f;
  f.before = static_cast<double>(statusKiB("VmRSS")) / 1024.0;
  if (!resetPeak()) std::printf("(VmHWM not reset: the peak is the process's so far)\n");
  if (auto ok = informer.sync(); !ok) die("sync: " + ok.error().toString());
  if (informer.size() != expected) die("wrong cache size");
  f.untrimmed = static_cast<double>(statusKiB("VmRSS")) / 1024.0;
  malloc_trim(0);  // return the freed LIST pages to the system: what stays is the cache
  f.after = static_cast<double>(statusKiB("VmRSS")) / 1024.0;
  f.peak = static_cast<double>(statusKiB("VmHWM")) / 1024.0;
  return f;
}

// The paged fill (the informer's default, 500 pods a page) is measured first and kept as the
// cache the other figures read; then an unpaged LIST of the same pods, the baseline, into a
// second informer that is dropped afterwards.
void fillAndMeasure(kube::PodInformer& informer, kube::PodInformer& unpaged,
                    std::size_t packedTemplateBytes) {
  const Fill paged = fill(informer);
  const double deltaMiB = paged.after - paged.before;
  std::printf(
      "pod cache: %d pods, LIST in pages of %zu; resident before %.1f MiB, after %.1f MiB (%.1f "
      "MiB before malloc_trim), peak %.1f MiB\n"
      "pod cache: +%.1f MiB resident = %.0f bytes/pod (packed pod %.0f bytes); target <= %.0f "
      "MiB: %s\n",
      kCachedPods, informer.options().pageSize, paged.before, paged.after, paged.untrimmed,
      paged.peak, deltaMiB, deltaMiB * 1024.0 * 1024.0 / kCachedPods,
      static_cast<double>(packedTemplateBytes), kTargetMiB,
      deltaMiB <= kTargetMiB ? "met" : "MISSED");
  const Fill whole = fill(unpaged);
  const double pagedRise = paged.peak - paged.before;
  const double wholeRise = whole.peak - whole.before;
  std::printf(
      "baseline, one unpaged LIST: resident before %.1f MiB, after %.1f MiB, peak %.1f MiB\n"
      "peak during the fill: paged %.1f MiB, unpaged %.1f MiB; ratio unpaged / paged %.2fx\n"
      "peak above the resident size before the fill: paged +%.1f MiB, unpaged +%.1f MiB; ratio "
      "%.2fx\n",
      whole.before, whole.after, whole.peak, paged.peak, whole.peak, whole.peak / paged.peak,
      pagedRise, wholeRise, wholeRise / pagedRise);
}

// Every third namespace of kNamespaces owned ("ns-0", "ns-3", ...): a third of the pods.
bool ownedNamespace(std::string_view ns) {
  return ns.starts_with("ns-") && std::stoi(std::string(ns.substr(3))) % 3 == 0;
}

// A shard's pod cache against the whole cluster's, over the same pods in the same run (after the
// figures above; their cache stays resident meanwhile). The filtered informer is filled first,
// each dropped after its measurement.
void measureNamespaceFilter(const std::vector<api::Pod>& templates) {
  ListOnlyApi spread(templates, kNamespaces);
  SimulatedClock clock(Time{});
  std::size_t owned = 0;
  for (int i = 0; i < kCachedPods; ++i) {
    owned += ownedNamespace("ns-" + std::to_string(i % kNamespaces)) ? 1 : 0;
  }
  Fill filtered;
  {
    kube::InformerOptions options = kube::PodInformer::defaultOptions();
    options.namespaceFilter = ownedNamespace;
    kube::PodInformer informer(spread, clock, options);
    filtered = fill(informer, owned);
  }
  Fill whole;
  {
    kube::PodInformer informer(spread, clock);
    whole = fill(informer);
  }
  const double filteredMiB = filtered.after - filtered.before;
  const double wholeMiB = whole.after - whole.before;
  std::printf(
      "namespace filter: %d pods in %d namespaces, 1 in 3 namespaces owned (%zu pods)\n"
      "  filtered cache: +%.1f MiB resident (peak +%.1f MiB); unfiltered cache: +%.1f MiB "
      "resident (peak +%.1f MiB)\n"
      "  ratio filtered / unfiltered resident: %.3f (owned pods %.3f)\n",
      kCachedPods, kNamespaces, owned, filteredMiB, filtered.peak - filtered.before, wholeMiB,
      whole.peak - whole.before, filteredMiB / wholeMiB, static_cast<double>(owned) / kCachedPods);
}

const std::vector<std::string>& watchLines() {
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> out;
    out.reserve(kWatchEvents);
    for (int i = 0; i < kWatchEvents; ++i) {
      out.push_back(R"({"type":"MODIFIED","object":)" + attune::testing::realisticPod(i).dump() +
                    "}");
    }
    return out;
  }();
  return lines;
}

std::size_t watchBytes() {
  std::size_t n = 0;
  for (const std::string& line : watchLines()) n += line.size();
  return n;
}

void BM_DecodeWatchEvent_Attune(benchmark::State& state) {
  const auto& lines = watchLines();
  for (auto _ : state) {
    for (const std::string& line : lines) {
      auto event = api::decodeWatchEvent<api::Pod>(line);
      if (!event || event->type != api::WatchEventType::kModified) die("decodeWatchEvent failed");
      benchmark::DoNotOptimize(event);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * watchBytes()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lines.size()));
}

void BM_DecodeWatchEventHead(benchmark::State& state) {
  const auto& lines = watchLines();
  for (auto _ : state) {
    for (const std::string& line : lines) {
      auto head = api::decodeWatchEventHead(line);
      if (!head || head->namespace_.empty()) die("decodeWatchEventHead failed");
      benchmark::DoNotOptimize(head);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * watchBytes()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lines.size()));
}

void BM_ParseWatchEvent_SimdjsonDom(benchmark::State& state) {
  std::vector<simdjson::padded_string> padded;
  for (const std::string& line : watchLines()) padded.emplace_back(line);
  simdjson::dom::parser parser;
  for (auto _ : state) {
    for (const simdjson::padded_string& line : padded) {
      simdjson::dom::element doc;
      if (parser.parse(line).get(doc) != simdjson::SUCCESS) die("simdjson parse failed");
      std::string_view type;
      if (doc["type"].get(type) != simdjson::SUCCESS || type != "MODIFIED") die("no type");
      benchmark::DoNotOptimize(doc);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * watchBytes()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * padded.size()));
}

// Every cached pod unpacked once, as a reconcile pass reading the whole cache would.
void BM_ForEachCachedPod(benchmark::State& state) {
  for (auto _ : state) {
    std::size_t containers = 0;
    cache->forEach("", [&](const api::Pod& pod) { containers += pod.spec.containers.size(); });
    benchmark::DoNotOptimize(containers);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * cache->size()));
}

BENCHMARK(BM_DecodeWatchEvent_Attune)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_DecodeWatchEventHead)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_ParseWatchEvent_SimdjsonDom)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0)
    ->UseRealTime();
BENCHMARK(BM_ForEachCachedPod)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

// The watch-decode figure against its baseline, and the time to read the whole cache.
void printSummary(const bench::MeanTimeReporter& reporter) {
  const auto ours = reporter.meanSeconds(kOurs);
  const auto baseline = reporter.meanSeconds(kBaseline);
  if (ours && baseline) {
    const double mib = static_cast<double>(watchBytes()) / (1024.0 * 1024.0);
    std::printf(
        "watch events: %d lines, %.1f MiB (%.1f KiB/event)\n"
        "decodeWatchEvent<Pod>: %.0f events/s, %.1f MiB/s   simdjson DOM parse: %.0f events/s, "
        "%.1f MiB/s\n"
        "ratio decodeWatchEvent / simdjson DOM throughput: %.2fx\n",
        kWatchEvents, mib, mib * 1024.0 / kWatchEvents, kWatchEvents / *ours, mib / *ours,
        kWatchEvents / *baseline, mib / *baseline, *baseline / *ours);
  }
  const auto head = reporter.meanSeconds("BM_DecodeWatchEventHead");
  if (ours && head) {
    const double share = (*ours + 2 * *head) / (3 * *ours);
    std::printf(
        "decodeWatchEventHead: %.0f events/s; ratio head / full decode time: %.3fx\n"
        "a shard owning a third of the namespaces decodes its events in full and the others' "
        "heads: "
        "%.3fx of decoding every event\n",
        kWatchEvents / *head, *head / *ours, share);
  }
  if (const auto each = reporter.meanSeconds("BM_ForEachCachedPod")) {
    std::printf("reading all %d cached pods: %.1f ms (%.2f us/pod)\n", kCachedPods, *each * 1e3,
                *each * 1e6 / kCachedPods);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  SimulatedClock clock(Time{});
  const std::vector<api::Pod> templates = templatePods();
  ListOnlyApi api(templates);
  const std::size_t packed =
      kube::packPod(*api::decodePod(attune::testing::realisticPod(0).dump())).size();
  kube::PodInformer informer(api, clock);
  cache = &informer;
  {
    kube::InformerOptions whole = kube::PodInformer::defaultOptions();
    whole.pageSize = 0;
    kube::PodInformer unpaged(api, clock, whole);
    fillAndMeasure(informer, unpaged, packed);
  }
  malloc_trim(0);
  measureNamespaceFilter(templates);
  malloc_trim(0);

  watchLines();  // built before any timing
  bench::MeanTimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printSummary(reporter);
  benchmark::Shutdown();
  return 0;
}
