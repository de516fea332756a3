// Internal to sim/scenario: the readers of each part of a scenario document, and the checks that
// run once the whole document is read.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "api/k8s/hpa.h"
#include "api/k8s/node.h"
#include "api/k8s/pdb.h"
#include "api/k8s/quota.h"
#include "api/yaml/yaml_reader.h"
#include "sim/scenario/scenario.h"

namespace attune::sim::internal {

// Scenario files are read with the shared typed YAML reader (api/yaml/yaml_reader.h).
using api::internal::YamlReader;

// Namespace API objects (scenario_objects.cc). Each fills `out` from the mapping at `path`.
void readTaint(YamlReader& r, const YAML::Node& node, const std::string& path, api::Taint& out);
void readToleration(YamlReader& r, const YAML::Node& node, const std::string& path,
                    api::Toleration& out);
void readLimitRange(YamlReader& r, const YAML::Node& node, const std::string& path,
                    api::LimitRange& out);
void readResourceQuota(YamlReader& r, const YAML::Node& node, const std::string& path,
                       api::ResourceQuota& out);
void readHpa(YamlReader& r, const YAML::Node& node, const std::string& path,
             api::HorizontalPodAutoscaler& out);
void readPodDisruptionBudget(YamlReader& r, const YAML::Node& node, const std::string& path,
                             api::PodDisruptionBudget& out);

// A container's `model:` mapping: `kind` plus the kind's parameters, where memory parameters
// (…Bytes, …BytesPerHour) also take memory quantities, CPU parameters (cpuCores, gcCpuCores) CPU
// quantities and …Seconds parameters Go durations (scenario_models.cc).
void readModel(YamlReader& r, const YAML::Node& node, const std::string& path, UsageModelSpec& out);
// Reports what makeUsageModel rejects in `spec` (written at `path`), with the parameter's path.
void checkModel(YamlReader& r, const UsageModelSpec& spec, const std::string& path);

// Every rule that involves more than one field or object: names, uniqueness, ranges, references
// between objects, kind-specific workload fields (scenario_check.cc).
void checkScenario(YamlReader& r, const Scenario& scenario);

}  // namespace attune::sim::internal
