// Reading the Kubernetes objects a scenario declares: taints, tolerations, LimitRanges,
// ResourceQuotas, HorizontalPodAutoscalers and PodDisruptionBudgets. Field names are the API's.
#include <string>

#include "sim/scenario/scenario_decoders.h"

namespace attune::sim::internal {
namespace {

using Node = YAML::Node;
using Path = std::string;

// The metadata fields of a namespaced object, written flat beside the object's own fields.
void addMetaFields(YamlReader& r, std::vector<YamlReader::Field>& fields, api::ObjectMeta& meta) {
  fields.push_back(r.field("name", meta.name, /*required=*/true));
  fields.push_back(r.field("namespace", meta.namespace_));
  fields.push_back(r.field("labels", meta.labels));
  fields.push_back(r.field("annotations", meta.annotations));
}

void readMetricValue(YamlReader& r, const Node& node, const Path& path, api::MetricValue& out) {
  r.object(node, path,
           {{"type",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"Utilization", "AverageValue", "Value"}, out.type);
             },
             true},
            r.field("averageUtilization", out.averageUtilization),
            r.field("averageValue", out.averageValue),
            r.field("value", out.value)});
}

void readMetric(YamlReader& r, const Node& node, const Path& path, api::MetricSpec& out) {
  auto name = [&](std::string& target) {
    return YamlReader::Field{"name",
                             [&](const Node& n, const Path& p) {
                               r.oneOf(n, p, {"cpu", "memory"}, target);
                             },
                             true};
  };
  r.object(
      node, path,
      {{"type",
        [&](const Node& n, const Path& p) {
          r.oneOf(n, p, {"Resource", "ContainerResource"}, out.type);
        },
        true},
       {"resource",
        [&](const Node& n, const Path& p) {
          auto& s = out.resource.emplace();
          r.object(n, p,
                   {name(s.name),
                    {"target",
                     [&](const Node& t, const Path& tp) { readMetricValue(r, t, tp, s.target); },
                     true}});
        }},
       {"containerResource", [&](const Node& n, const Path& p) {
          auto& s = out.containerResource.emplace();
          r.object(n, p,
                   {name(s.name),
                    r.field("container", s.container, true),
                    {"target",
                     [&](const Node& t, const Path& tp) { readMetricValue(r, t, tp, s.target); },
                     true}});
        }}});
}

// An integer, or a percentage written "N%".
void readIntOrPercent(YamlReader& r, const Node& node, const Path& path,
                      std::optional<api::IntOrString>& out) {
  if (node.IsScalar() && node.Scalar().ends_with('%')) {
    auto percent = api::IntOrString::ofString(node.Scalar());
    if (!api::scaledValue(percent, 0, true)) {
      r.error(node, path, "must be an integer or \"N%\"");
    } else {
      out = std::move(percent);
    }
    return;
  }
  std::int32_t value = 0;
  const std::size_t before = r.errorCount();
  r.read(node, path, value);
  if (r.errorCount() == before) out = api::IntOrString::ofInt(value);
}

void readSelector(YamlReader& r, const Node& node, const Path& path, api::LabelSelector& out) {
  r.object(node, path,
           {r.field("matchLabels", out.matchLabels),
            {"matchExpressions", [&](const Node& n, const Path& p) {
               r.list(n, p, [&](const Node& item, const Path& ip) {
                 auto& e = out.matchExpressions.emplace_back();
                 r.object(
                     item, ip,
                     {r.field("key", e.key, true),
                      {"operator",
                       [&](const Node& o, const Path& op) {
                         r.oneOf(o, op, {"In", "NotIn", "Exists", "DoesNotExist"}, e.operator_);
                       },
                       true},
                      r.field("values", e.values)});
               });
             }}});
}

// One of behavior.scaleUp / scaleDown (autoscaling/v2 HPAScalingRules).
void readScalingRules(YamlReader& r, const Node& node, const Path& path,
                      api::HpaScalingRules& out) {
  r.object(node, path,
           {r.field("stabilizationWindowSeconds", out.stabilizationWindowSeconds),
            {"selectPolicy",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"Max", "Min", "Disabled"}, out.selectPolicy);
             }},
            {"policies",
             [&](const Node& n, const Path& p) {
               r.list(n, p, [&](const Node& item, const Path& ip) {
                 auto& policy = out.policies.emplace_back();
                 r.object(item, ip,
                          {{"type",
                            [&](const Node& t, const Path& tp) {
                              r.oneOf(t, tp, {"Pods", "Percent"}, policy.type);
                            },
                            true},
                           r.field("value", policy.value, true),
                           r.field("periodSeconds", policy.periodSeconds, true)});
               });
             }},
            r.field("tolerance", out.tolerance)});
}

void readBehavior(YamlReader& r, const Node& node, const Path& path, api::HpaBehavior& out) {
  r.object(node, path,
           {{"scaleUp", [&](const Node& n,
                            const Path& p) { readScalingRules(r, n, p, out.scaleUp.emplace()); }},
            {"scaleDown", [&](const Node& n, const Path& p) {
               readScalingRules(r, n, p, out.scaleDown.emplace());
             }}});
}

}  // namespace

void readTaint(YamlReader& r, const Node& node, const Path& path, api::Taint& out) {
  r.object(node, path,
           {r.field("key", out.key, true),
            r.field("value", out.value),
            {"effect",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"NoSchedule", "PreferNoSchedule", "NoExecute"}, out.effect);
             },
             true}});
}

void readToleration(YamlReader& r, const Node& node, const Path& path, api::Toleration& out) {
  r.object(node, path,
           {r.field("key", out.key),
            {"operator",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"Equal", "Exists"}, out.operator_);
             }},
            r.field("value", out.value),
            {"effect",
             [&](const Node& n, const Path& p) {
               r.oneOf(n, p, {"NoSchedule", "PreferNoSchedule", "NoExecute"}, out.effect);
             }},
            r.field("tolerationSeconds", out.tolerationSeconds)});
}

void readLimitRange(YamlReader& r, const Node& node, const Path& path, api::LimitRange& out) {
  std::vector<YamlReader::Field> fields;
  addMetaFields(r, fields, out.metadata);
  fields.push_back({"limits",
                    [&](const Node& n, const Path& p) {
                      r.list(n, p, [&](const Node& item, const Path& ip) {
                        auto& l = out.limits.emplace_back();
                        r.object(item, ip,
                                 {{"type",
                                   [&](const Node& t, const Path& tp) {
                                     r.oneOf(t, tp, {"Container", "Pod"}, l.type);
                                   },
                                   true},
                                  r.field("min", l.min),
                                  r.field("max", l.max),
                                  r.field("default", l.default_),
                                  r.field("defaultRequest", l.defaultRequest),
                                  r.field("maxLimitRequestRatio", l.maxLimitRequestRatio)});
                      });
                    },
                    true});
  r.object(node, path, fields);
}

void readResourceQuota(YamlReader& r, const Node& node, const Path& path, api::ResourceQuota& out) {
  std::vector<YamlReader::Field> fields;
  addMetaFields(r, fields, out.metadata);
  fields.push_back(r.field("hard", out.specHard, true));
  fields.push_back(r.field("scopes", out.scopes));
  r.object(node, path, fields);
  out.hard = out.specHard;
}

void readHpa(YamlReader& r, const Node& node, const Path& path, api::HorizontalPodAutoscaler& out) {
  std::vector<YamlReader::Field> fields;
  addMetaFields(r, fields, out.metadata);
  api::HpaSpec& spec = out.spec;
  fields.push_back({"scaleTargetRef",
                    [&](const Node& n, const Path& p) {
                      auto& ref = spec.scaleTargetRef;
                      r.object(n, p,
                               {{"kind",
                                 [&](const Node& k, const Path& kp) {
                                   r.oneOf(k, kp, {"Deployment", "StatefulSet"}, ref.kind);
                                 },
                                 true},
                                r.field("name", ref.name, true),
                                r.field("apiVersion", ref.apiVersion)});
                      if (ref.apiVersion.empty()) ref.apiVersion = "apps/v1";
                    },
                    true});
  fields.push_back(r.field("minReplicas", spec.minReplicas));
  fields.push_back(r.field("maxReplicas", spec.maxReplicas, true));
  fields.push_back({"metrics", [&](const Node& n, const Path& p) {
                      r.list(n, p, [&](const Node& item, const Path& ip) {
                        readMetric(r, item, ip, spec.metrics.emplace_back());
                      });
                    }});
  fields.push_back({"behavior", [&](const Node& n, const Path& p) {
                      readBehavior(r, n, p, spec.behavior.emplace());
                    }});
  r.object(node, path, fields);
}

void readPodDisruptionBudget(YamlReader& r, const Node& node, const Path& path,
                             api::PodDisruptionBudget& out) {
  std::vector<YamlReader::Field> fields;
  addMetaFields(r, fields, out.metadata);
  api::PdbSpec& spec = out.spec;
  fields.push_back({"minAvailable", [&](const Node& n, const Path& p) {
                      readIntOrPercent(r, n, p, spec.minAvailable);
                    }});
  fields.push_back({"maxUnavailable", [&](const Node& n, const Path& p) {
                      readIntOrPercent(r, n, p, spec.maxUnavailable);
                    }});
  fields.push_back(
      {"selector",
       [&](const Node& n, const Path& p) { readSelector(r, n, p, spec.selector.emplace()); },
       true});
  fields.push_back(
      {"unhealthyPodEvictionPolicy", [&](const Node& n, const Path& p) {
         r.oneOf(n, p, {api::kIfHealthyBudget, api::kAlwaysAllow}, spec.unhealthyPodEvictionPolicy);
       }});
  r.object(node, path, fields);
}

}  // namespace attune::sim::internal
