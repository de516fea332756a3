// decodeScenario(): the scenario document → Scenario, then checkScenario().
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <sstream>

#include "api/policy/policy_yaml.h"
#include "api/yaml/yaml_stream.h"
#include "sim/scenario/scenario_codec.h"
#include "sim/scenario/scenario_decoders.h"

namespace attune::sim {
namespace {

using internal::YamlReader;
using Node = YAML::Node;
using Path = std::string;

// The example values scenario messages quote.
constexpr YamlReader::Examples kScenarioExamples{.duration = "60s", .cpu = "500m"};

void readRestartBackoff(YamlReader& r, const Node& node, const Path& path,
                        RestartBackoffConfig& out) {
  r.object(
      node, path,
      {r.field("reduceDefaultDecay", out.reduceDefaultDecay),
       r.field("perNodeMaxEnabled", out.perNodeMaxEnabled), r.field("maxSeconds", out.maxSeconds)});
}

void readKubelet(YamlReader& r, const Node& node, const Path& path, KubeletOptions& out) {
  r.object(
      node, path,
      {{"restartBackoff",
        [&](const Node& n, const Path& p) { readRestartBackoff(r, n, p, out.restartBackoff); }},
       r.field("notReadyAboveThrottleRatio", out.notReadyAboveThrottleRatio),
       r.field("evictionMemoryAvailable", out.evictionMemoryAvailable),
       r.field("cfsPeriod", out.cfsPeriod),
       r.field("startupDuration", out.startupDuration)});
}

void readNodePool(YamlReader& r, const Node& node, const Path& path, NodePool& out) {
  r.object(node, path,
           {r.field("name", out.name, true),
            r.field("count", out.count),
            r.field("cpu", out.cpu, true),
            r.field("memory", out.memory, true),
            r.field("pods", out.pods),
            {"allocatable",
             [&](const Node& n, const Path& p) {
               r.object(
                   n, p,
                   {r.field("cpu", out.allocatableCpu), r.field("memory", out.allocatableMemory),
                    r.field("pods", out.allocatablePods)});
             }},
            r.field("labels", out.labels),
            {"taints",
             [&](const Node& n, const Path& p) {
               r.list(n, p, [&](const Node& item, const Path& ip) {
                 internal::readTaint(r, item, ip, out.taints.emplace_back());
               });
             }},
            {"kubelet",
             [&](const Node& n, const Path& p) {
               r.object(n, p, {{"restartBackoff", [&](const Node& b, const Path& bp) {
                                  readRestartBackoff(r, b, bp, out.restartBackoff.emplace());
                                }}});
             }},
            r.field("minSize", out.minSize),
            r.field("maxSize", out.maxSize),
            r.field("pricePerHour", out.pricePerHour)});
}

void readClusterAutoscaler(YamlReader& r, const Node& node, const Path& path,
                           ClusterAutoscalerOptions& out) {
  r.object(node, path,
           {r.field("scaleDownUtilizationThreshold", out.scaleDownUtilizationThreshold),
            r.field("scaleDownUnneededTime", out.scaleDownUnneededTime),
            r.field("scaleDownDelayAfterAdd", out.scaleDownDelayAfterAdd),
            r.field("maxEmptyBulkDelete", out.maxEmptyBulkDelete),
            r.field("provisioningDelay", out.provisioningDelay)});
}

void readContainer(YamlReader& r, const Node& node, const Path& path, ContainerScenario& out) {
  r.object(
      node, path,
      {r.field("name", out.name, true),
       r.field("image", out.image),
       r.field("requests", out.resources.requests),
       r.field("limits", out.resources.limits),
       {"resizePolicy",
        [&](const Node& n, const Path& p) {
          r.list(n, p, [&](const Node& item, const Path& ip) {
            auto& policy = out.resizePolicy.emplace_back();
            r.object(item, ip,
                     {{"resourceName",
                       [&](const Node& v, const Path& vp) {
                         r.oneOf(v, vp, {"cpu", "memory"}, policy.resourceName);
                       },
                       true},
                      {"restartPolicy", [&](const Node& v, const Path& vp) {
                         r.oneOf(v, vp, {"NotRequired", "RestartContainer"}, policy.restartPolicy);
                       }}});
            if (policy.restartPolicy.empty()) policy.restartPolicy = "NotRequired";
          });
        }},
       {"model", [&](const Node& n, const Path& p) { internal::readModel(r, n, p, out.model); },
        true}});
}

void readWorkload(YamlReader& r, const Node& node, const Path& path, WorkloadScenario& out) {
  out.fieldPath = path;
  r.object(node, path,
           {{"kind",
             [&](const Node& n, const Path& p) {
               std::string kind;
               r.oneOf(n, p, {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}, kind);
               using enum api::WorkloadKind;
               if (kind == "StatefulSet") out.kind = kStatefulSet;
               if (kind == "DaemonSet") out.kind = kDaemonSet;
               if (kind == "Job") out.kind = kJob;
               if (kind == "CronJob") out.kind = kCronJob;
             },
             true},
            r.field("name", out.name, true),
            r.field("namespace", out.namespace_),
            r.field("replicas", out.replicas),
            r.field("labels", out.labels),
            r.field("annotations", out.annotations),
            r.field("podAnnotations", out.podAnnotations),
            r.field("priority", out.priority),
            r.field("priorityClassName", out.priorityClassName),
            r.field("nodeSelector", out.nodeSelector),
            {"tolerations",
             [&](const Node& n, const Path& p) {
               r.list(n, p, [&](const Node& item, const Path& ip) {
                 internal::readToleration(r, item, ip, out.tolerations.emplace_back());
               });
             }},
            {"restartPolicy",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"Always", "OnFailure", "Never"}, out.restartPolicy);
             }},
            {"containers",
             [&](const Node& n, const Path& p) {
               r.list(n, p, [&](const Node& item, const Path& ip) {
                 readContainer(r, item, ip, out.containers.emplace_back());
               });
             },
             true},
            r.field("completions", out.completions),
            r.field("parallelism", out.parallelism),
            r.field("backoffLimit", out.backoffLimit),
            r.field("schedule", out.schedule),
            {"concurrencyPolicy",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"Allow", "Forbid", "Replace"}, out.concurrencyPolicy);
             }},
            r.field("suspend", out.suspend)});
}

void readTrace(YamlReader& r, const Node& node, const Path& path,
               const std::filesystem::path& baseDir, TraceWorkloads& out) {
  out.fieldPath = path;
  r.object(node, path,
           {{"path",
             [&](const Node& n, const Path& p) {
               std::string text;
               r.read(n, p, text);
               if (text.empty()) return;
               std::filesystem::path file(text);
               out.path = file.is_absolute() || baseDir.empty() ? file : baseDir / file;
             },
             true},
            {"format",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"bitbrains", "attune-csv"}, out.format);
             }},
            r.field("namespace", out.namespace_),
            r.field("limit", out.limit)});
}

// An entry of spec.workloads: a workload, or {trace: {...}}.
void readWorkloadEntry(YamlReader& r, const Node& node, const Path& path,
                       const std::filesystem::path& baseDir, Scenario& out) {
  if (node.IsMap() && node["trace"].IsDefined()) {
    r.object(node, path, {{"trace", [&](const Node& n, const Path& p) {
                             readTrace(r, n, p, baseDir, out.traces.emplace_back());
                           }}});
    return;
  }
  readWorkload(r, node, path, out.workloads.emplace_back());
}

// spec.policies[i]: an inline AttunePolicy, decoded, defaulted and validated as
// `attune policy validate` does; paths are prefixed with the item's path.
void readPolicy(std::vector<ScenarioDiagnostic>& errors, const Node& node, const Path& path,
                Scenario& out) {
  api::DecodedPolicy decoded = api::decodePolicyNode(node);
  std::vector<api::PolicyDiagnostic> problems = decoded.errors;
  if (decoded.policy && problems.empty()) {
    api::AttunePolicy defaulted = *decoded.policy;
    api::applyDefaults(defaulted);
    problems = api::validatePolicy(defaulted);
  }
  for (const api::PolicyDiagnostic& d : problems) {
    errors.push_back({d.error.under(path), d.line, d.column});
  }
  if (problems.empty() && decoded.policy) out.policies.push_back(std::move(*decoded.policy));
}

template <typename T>
YamlReader::Field objectList(YamlReader& r, std::string_view name, std::vector<T>& out,
                             void (*read)(YamlReader&, const Node&, const Path&, T&)) {
  return {name, [&r, &out, read](const Node& n, const Path& p) {
            r.list(n, p, [&](const Node& item, const Path& ip) {
              read(r, item, ip, out.emplace_back());
              if (out.back().metadata.namespace_.empty())
                out.back().metadata.namespace_ = "default";
            });
          }};
}

void readSpec(YamlReader& r, std::vector<ScenarioDiagnostic>& errors, const Node& node,
              const Path& path, const std::filesystem::path& baseDir, Scenario& out) {
  r.object(
      node, path,
      {r.field("seed", out.seed),
       r.field("start", out.start),
       r.field("duration", out.duration),
       r.field("tick", out.tick),
       {"kubernetesVersion",
        [&](const Node& n, const Path& p) {
          std::string text;
          r.read(n, p, text);
          if (text.empty()) return;
          auto version = api::parseServerVersion(text);
          if (!version) {
            r.error(n, p, ErrorCode::kInvalidArgument, version.error().message);
            return;
          }
          out.kubernetesVersion = std::move(*version);
        }},
       {"kubelet", [&](const Node& n, const Path& p) { readKubelet(r, n, p, out.kubelet); }},
       {"nodePools",
        [&](const Node& n, const Path& p) {
          r.list(n, p, [&](const Node& item, const Path& ip) {
            readNodePool(r, item, ip, out.nodePools.emplace_back());
          });
        },
        true},
       {"clusterAutoscaler",
        [&](const Node& n, const Path& p) {
          readClusterAutoscaler(r, n, p, out.clusterAutoscaler.emplace());
        }},
       r.field("namespaces", out.namespaces),
       {"workloads",
        [&](const Node& n, const Path& p) {
          r.list(n, p, [&](const Node& item, const Path& ip) {
            readWorkloadEntry(r, item, ip, baseDir, out);
          });
        }},
       objectList<api::LimitRange>(r, "limitRanges", out.limitRanges, internal::readLimitRange),
       objectList<api::ResourceQuota>(r, "resourceQuotas", out.resourceQuotas,
                                      internal::readResourceQuota),
       objectList<api::HorizontalPodAutoscaler>(r, "hpas", out.hpas, internal::readHpa),
       objectList<api::PodDisruptionBudget>(r, "podDisruptionBudgets", out.podDisruptionBudgets,
                                            internal::readPodDisruptionBudget),
       {"policies", [&](const Node& n, const Path& p) {
          r.list(n, p,
                 [&](const Node& item, const Path& ip) { readPolicy(errors, item, ip, out); });
        }}});
}

void readDocument(YamlReader& r, std::vector<ScenarioDiagnostic>& errors, const Node& doc,
                  const std::filesystem::path& baseDir, Scenario& out) {
  auto header = [&](std::string_view expected) {
    return [&r, expected](const Node& n, const Path& p) {
      std::string text;
      r.read(n, p, text);
      if (!text.empty() && text != expected) {
        r.error(n, p, "must be " + std::string(expected) + ", got \"" + text + "\"");
      }
    };
  };
  r.object(doc, "",
           {{"apiVersion", header(kScenarioApiVersion), true},
            {"kind", header(kScenarioKind), true},
            {"metadata",
             [&](const Node& n, const Path& p) {
               r.object(n, p,
                        {r.field("name", out.name, true), r.field("labels", out.labels),
                         r.field("annotations", out.annotations)});
             },
             true},
            {"spec", [&](const Node& n, const Path& p) { readSpec(r, errors, n, p, baseDir, out); },
             true}});
}

// True if `path` is `prefix` or lies under it ("a.b[1]" is under "a.b").
bool isUnder(std::string_view path, std::string_view prefix) {
  if (prefix.empty() || !path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

bool byLine(const ScenarioDiagnostic& a, const ScenarioDiagnostic& b) {
  const int la = a.line == 0 ? INT32_MAX : a.line;
  const int lb = b.line == 0 ? INT32_MAX : b.line;
  return la < lb;
}

}  // namespace

DecodedScenario decodeScenario(std::string_view yaml, const std::filesystem::path& baseDir) {
  DecodedScenario out;
  Scenario scenario;
  try {
    const std::vector<Node> docs = api::internal::loadDocuments(std::string(yaml));
    std::vector<Node> present;
    for (const Node& doc : docs) {
      if (!doc.IsNull()) present.push_back(doc);
    }
    YamlReader r(out.errors, scenario.sources, kScenarioExamples);
    if (present.empty()) {
      out.errors.push_back({Error{ErrorCode::kInvalidArgument, "empty scenario file", ""}, 0, 0});
      return out;
    }
    if (present.size() > 1) {
      r.error(present[1], "", "a scenario file holds exactly one document");
    }
    readDocument(r, out.errors, present.front(), baseDir, scenario);
    // The cross-field checks run on what was read; a complaint about a field that already
    // failed to decode (or lies under one) would only repeat that error.
    std::vector<ScenarioDiagnostic> decodeErrors = out.errors;
    out.errors.clear();
    internal::checkScenario(r, scenario);
    for (ScenarioDiagnostic& d : out.errors) {
      const bool repeated = std::any_of(
          decodeErrors.begin(), decodeErrors.end(),
          [&](const ScenarioDiagnostic& e) { return isUnder(d.error.field, e.error.field); });
      if (!repeated) decodeErrors.push_back(std::move(d));
    }
    out.errors = std::move(decodeErrors);
  } catch (const YAML::Exception& e) {
    const bool known = !e.mark.is_null();
    out.errors = {{Error{ErrorCode::kInvalidArgument, "invalid YAML: " + e.msg, ""},
                   known ? e.mark.line + 1 : 0, known ? e.mark.column + 1 : 0}};
    return out;
  } catch (const std::exception& e) {
    out.errors = {
        {Error{ErrorCode::kInvalidArgument, std::string("cannot decode scenario: ") + e.what(), ""},
         0, 0}};
    return out;
  }
  std::stable_sort(out.errors.begin(), out.errors.end(), byLine);
  if (out.errors.empty()) out.scenario = std::move(scenario);
  return out;
}

Result<DecodedScenario> readScenarioFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(ErrorCode::kNotFound, file.string() + ": cannot read file");
  std::ostringstream text;
  text << in.rdbuf();
  return decodeScenario(text.str(), file.parent_path());
}

std::string formatDiagnostic(std::string_view file, const ScenarioDiagnostic& diagnostic) {
  std::string out(file);
  if (diagnostic.line > 0) out += ":" + std::to_string(diagnostic.line);
  return out + ": " + diagnostic.error.toString();
}

ScenarioDiagnostic diagnosticFor(const Scenario& scenario, const Error& error) {
  const api::SourcePosition pos = scenario.sources.find(error.field);
  return {error, pos.line, pos.column};
}

}  // namespace attune::sim
