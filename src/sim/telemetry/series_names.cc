#include "sim/telemetry/series_names.h"

#include "metrics/exposition/text_format.h"

namespace attune::sim::series {

std::string Family::sampleName() const {
  std::string out(name);
  if (counter()) out += "_total";
  return out;
}

std::string labelSet(Labels labels) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    out += metrics::escapeLabelValue(value);
    out += '"';
  }
  out += '}';
  return out;
}

std::string cadvisorLabels(std::string_view ns, std::string_view pod, std::string_view container,
                           std::string_view node, std::string_view uid) {
  const std::string id = "/kubepods/pod" + std::string(uid) + "/" + std::string(container);
  return labelSet(
      {{"container", container}, {"id", id}, {"namespace", ns}, {"node", node}, {"pod", pod}});
}

std::string ownerLabels(std::string_view objectLabel, std::string_view ns, std::string_view object,
                        std::string_view uid, std::string_view ownerKind,
                        std::string_view ownerName, bool controller) {
  constexpr std::string_view kNone = "<none>";
  const bool none = ownerKind.empty();
  const std::string_view isController = none ? kNone : (controller ? "true" : "false");
  if (uid.empty()) {
    return labelSet({{"namespace", ns},
                     {"owner_is_controller", isController},
                     {"owner_kind", none ? kNone : ownerKind},
                     {"owner_name", none ? kNone : ownerName},
                     {objectLabel, object}});
  }
  return labelSet({{"namespace", ns},
                   {"owner_is_controller", isController},
                   {"owner_kind", none ? kNone : ownerKind},
                   {"owner_name", none ? kNone : ownerName},
                   {objectLabel, object},
                   {"uid", uid}});
}

std::string_view unitOf(std::string_view resource) {
  if (resource == "cpu") return "core";
  if (resource == "memory" || resource == "ephemeral-storage" ||
      resource.starts_with("hugepages-")) {
    return "byte";
  }
  return "integer";
}

double valueOf(const Quantity& q) { return static_cast<double>(q.nanos()) / 1e9; }

std::string timestamp(Time t) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const auto seconds = ms / 1000 - (ms % 1000 < 0 ? 1 : 0);
  const auto millis = ms - seconds * 1000;
  std::string out = std::to_string(seconds);
  if (millis != 0) {
    const std::string frac = std::to_string(1000 + millis);  // "1xyz"
    out += '.';
    out += frac.substr(1);
  }
  return out;
}

std::string requestLabels(std::string_view ns, std::string_view kindLabel, std::string_view name) {
  return labelSet({{kindLabel, name}, {"namespace", ns}});
}

}  // namespace attune::sim::series
