// Reading and checking the `model:` of a scenario container.
#include <string>
#include <string_view>

#include "core/quantity.h"
#include "sim/random.h"
#include "sim/scenario/scenario_decoders.h"

namespace attune::sim::internal {
namespace {

// How a parameter may be written besides a plain number, by its name.
enum class ParamForm { kNumber, kCpu, kMemory, kSeconds };

ParamForm formOf(std::string_view name) {
  if (name == "cpuCores" || name == "gcCpuCores" || name == "cpuPerRequest") {
    return ParamForm::kCpu;
  }
  if (name.ends_with("Bytes") || name.ends_with("BytesPerHour")) return ParamForm::kMemory;
  if (name.ends_with("Seconds")) return ParamForm::kSeconds;
  return ParamForm::kNumber;
}

Result<double> cpuCores(std::string_view text) {
  auto m = parseCpu(text);
  if (!m) return std::unexpected(m.error());
  return toCores(*m);
}

Result<double> memoryBytes(std::string_view text) {
  auto b = parseMemory(text);
  if (!b) return std::unexpected(b.error());
  return static_cast<double>(b->value());
}

Result<double> seconds(std::string_view text) {
  auto d = parseDuration(text);
  if (!d) return std::unexpected(d.error());
  return std::chrono::duration<double>(*d).count();
}

Result<double> noString(std::string_view) {
  return fail(ErrorCode::kInvalidArgument, "must be a number");
}

}  // namespace

void readModel(YamlReader& r, const YAML::Node& node, const std::string& path,
               UsageModelSpec& out) {
  bool sawKind = false;
  r.entries(node, path, [&](const std::string& key, const YAML::Node& value, const std::string& p) {
    if (key == "kind") {
      sawKind = true;
      r.oneOf(value, p, {"steady", "diurnal", "bursty", "memory-leak", "jvm", "batch", "service"},
              out.kind);
      return;
    }
    if (key == "rateChanges") {
      r.objects<RateChange>(value, p, out.rateChanges,
                            [&](const YAML::Node& item, const std::string& ip, RateChange& c) {
                              r.object(item, ip,
                                       {r.field("from", c.from, true), r.field("to", c.to, true),
                                        r.field("factor", c.factor, true)});
                            });
      return;
    }
    double number = 0;
    const std::size_t before = r.errorCount();
    switch (formOf(key)) {
      case ParamForm::kCpu:
        r.number(value, p, "a number of cores or a CPU quantity such as \"300m\"", cpuCores,
                 number);
        break;
      case ParamForm::kMemory:
        r.number(value, p, "a number of bytes or a memory quantity such as \"400Mi\"", memoryBytes,
                 number);
        break;
      case ParamForm::kSeconds:
        r.number(value, p, "a number of seconds or a duration such as \"5m\"", seconds, number);
        break;
      case ParamForm::kNumber:
        r.number(value, p, "a number", noString, number);
        break;
    }
    if (r.errorCount() == before) out.params.insert_or_assign(key, number);
  });
  if (node.IsMap() && !sawKind) r.error(node, joinPath(path, "kind"), "required");
}

void checkModel(YamlReader& r, const UsageModelSpec& spec, const std::string& path) {
  if (spec.kind.empty()) return;  // already reported
  auto model = makeUsageModel(spec, Random(0));
  if (model) return;
  const std::string& field = model.error().field;
  std::string at = path;
  if (field.starts_with("params.")) {
    at = joinPath(path, std::string_view(field).substr(7));
  } else if (!field.empty()) {
    at = joinPath(path, field);
  }
  r.error(at, model.error().message);
}

}  // namespace attune::sim::internal
