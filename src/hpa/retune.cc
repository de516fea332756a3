#include "hpa/retune.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "core/quantity.h"

namespace attune::hpa {
namespace {

using Json = nlohmann::json;

// What one retunable metric divides by: a resource of all containers or of one container.
struct Divisor {
  bool cpu = true;
  std::string container;  // empty: the whole pod (Resource)
};

struct Entry {
  std::int32_t target = 0;      // the original target
  std::int64_t podRequest = 0;  // the original request per pod (millicores or bytes)
  std::int32_t retuned = 0;     // the target Attune last wrote
};

struct Stored {
  std::string policy;
  std::map<std::string, Entry, std::less<>> metrics;
};

std::string amountText(const Divisor& d, std::int64_t v) {
  return d.cpu ? formatCpu(Millicores(v)) : formatMemory(Bytes(v));
}

std::optional<std::int64_t> requestOf(const api::ResourceValues& v, bool cpu) {
  if (cpu) return v.cpuRequest ? std::optional(v.cpuRequest->value()) : std::nullopt;
  return v.memoryRequest ? std::optional(v.memoryRequest->value()) : std::nullopt;
}

// The pod's request for the metric; nullopt when a container has none. `present` is false for
// a pod without the metric's container (not counted).
std::optional<std::int64_t> podRequest(const ContainerRequests& containers, const Divisor& d,
                                       bool& present) {
  present = true;
  if (!d.container.empty()) {
    auto it = containers.find(d.container);
    if (it == containers.end()) {
      present = false;
      return std::nullopt;
    }
    return requestOf(it->second, d.cpu);
  }
  std::int64_t sum = 0;
  for (const auto& [name, values] : containers) {
    auto r = requestOf(values, d.cpu);
    if (!r) return std::nullopt;
    sum += *r;
  }
  return sum;
}

// The metric's description and divisor; nullopt for a metric that does not divide by requests.
std::optional<std::pair<std::string, Divisor>> divisorOf(const api::MetricSpec& m) {
  auto sized = [](const std::string& r) { return r == "cpu" || r == "memory"; };
  if (m.resource && sized(m.resource->name)) {
    return std::pair{m.resource->name, Divisor{m.resource->name == "cpu", ""}};
  }
  if (m.containerResource && sized(m.containerResource->name)) {
    const auto& c = *m.containerResource;
    return std::pair{c.name + " of container " + c.container,
                     Divisor{c.name == "cpu", c.container}};
  }
  return std::nullopt;
}

api::MetricValue* targetOf(api::MetricSpec& m) {
  if (m.resource) return &m.resource->target;
  if (m.containerResource) return &m.containerResource->target;
  return nullptr;
}

std::optional<Stored> parseStored(const std::string& text, const api::HorizontalPodAutoscaler& h) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  Stored out;
  if (auto p = j.find("policy"); p != j.end() && p->is_string()) out.policy = *p;
  auto metrics = j.find("metrics");
  if (metrics == j.end() || !metrics->is_object()) return std::nullopt;
  for (const auto& [key, v] : metrics->items()) {
    if (!v.is_object() || !v.contains("target") || !v["target"].is_number_integer() ||
        !v.contains("podRequest") || !v["podRequest"].is_string() || !v.contains("retuned") ||
        !v["retuned"].is_number_integer()) {
      return std::nullopt;
    }
    // The unit of the request follows the metric's resource.
    bool cpu = key.ends_with("/cpu");
    for (const api::MetricSpec& m : h.spec.metrics) {
      if (metricKey(m) == key) cpu = divisorOf(m)->second.cpu;
    }
    const std::string request = v["podRequest"];
    std::int64_t amount = 0;
    if (cpu) {
      auto c = parseCpu(request);
      if (!c) return std::nullopt;
      amount = c->value();
    } else {
      auto b = parseMemory(request);
      if (!b) return std::nullopt;
      amount = b->value();
    }
    out.metrics[key] = {v["target"].get<std::int32_t>(), amount, v["retuned"].get<std::int32_t>()};
  }
  return out;
}

std::string encodeStored(const Stored& s, const api::HorizontalPodAutoscaler& h) {
  Json metrics = Json::object();
  for (const auto& [key, e] : s.metrics) {
    bool cpu = key.ends_with("/cpu");
    for (const api::MetricSpec& m : h.spec.metrics) {
      if (metricKey(m) == key) cpu = divisorOf(m)->second.cpu;
    }
    metrics[key] = {{"target", e.target},
                    {"podRequest", amountText(Divisor{cpu, ""}, e.podRequest)},
                    {"retuned", e.retuned}};
  }
  return Json{{"policy", s.policy}, {"metrics", metrics}}.dump();
}

// round(a / b) for positive b, half away from zero.
std::int64_t roundedDivision(__int128 a, __int128 b) {
  return static_cast<std::int64_t>((2 * a + b) / (2 * b));
}

std::string percent(std::int32_t p) { return std::to_string(p) + "%"; }

}  // namespace

bool autoTuneEnabled(const api::ObjectMeta& hpa) {
  auto it = hpa.annotations.find(kAutoTuneAnnotation);
  return it != hpa.annotations.end() && it->second == "true";
}

bool scales(const api::HorizontalPodAutoscaler& hpa, const api::WorkloadRef& workload) {
  const api::ScaleTargetRef& ref = hpa.spec.scaleTargetRef;
  return hpa.metadata.namespace_ == workload.ns && ref.kind == workload.kind &&
         ref.name == workload.name;
}

std::string metricKey(const api::MetricSpec& m) {
  auto d = divisorOf(m);
  if (!d) return {};
  const std::string resource = d->second.cpu ? "cpu" : "memory";
  if (d->second.container.empty()) return "Resource/" + resource;
  return "ContainerResource/" + d->second.container + "/" + resource;
}

std::optional<std::string> retunedBy(const api::ObjectMeta& hpa) {
  auto it = hpa.annotations.find(kOriginalTargetsAnnotation);
  if (it == hpa.annotations.end()) return std::nullopt;
  const Json j = Json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("policy") || !j["policy"].is_string()) return std::nullopt;
  return j["policy"].get<std::string>();
}

Retune retune(const api::HorizontalPodAutoscaler& hpa, const RetuneInput& input) {
  Retune out{.hpa = hpa,
             .changes = {},
             .notRetuned = {},
             .changed = false,
             .clamped = false,
             .message = {}};
  const std::string name = hpa.metadata.namespace_ + "/" + hpa.metadata.name;
  Stored stored;
  if (auto it = hpa.metadata.annotations.find(kOriginalTargetsAnnotation);
      it != hpa.metadata.annotations.end()) {
    auto parsed = parseStored(it->second, hpa);
    if (!parsed) {
      out.notRetuned.push_back("annotation " + std::string(kOriginalTargetsAnnotation) +
                               " does not parse: the HPA is left unchanged until it is fixed or "
                               "removed");
      out.message = "HorizontalPodAutoscaler " + name + ": " + out.notRetuned.back();
      return out;
    }
    stored = std::move(*parsed);
  }
  Stored kept{.policy = input.policy, .metrics = {}};
  std::vector<std::string> explained;  // per change: original and scaling point

  for (std::size_t i = 0; i < out.hpa.spec.metrics.size(); ++i) {
    api::MetricSpec& m = out.hpa.spec.metrics[i];
    const std::string label = "metric " + std::to_string(i) + " (" + m.type;
    auto divisor = divisorOf(m);
    if (!divisor) {
      out.notRetuned.push_back(label + "): not relative to requests, no retune needed");
      continue;
    }
    const auto& [what, d] = *divisor;
    api::MetricValue& target = *targetOf(m);
    if (target.type != "Utilization" || !target.averageUtilization) {
      out.notRetuned.push_back(
          label + " " + what + "): a " +
          (target.type.empty() ? std::string("target without type") : target.type + " target") +
          " is absolute, no retune needed");
      continue;
    }
    const std::string key = metricKey(m);
    const std::int32_t current = *target.averageUtilization;
    std::optional<Entry> entry;
    if (auto it = stored.metrics.find(key); it != stored.metrics.end()) entry = it->second;
    // A target changed by someone else since Attune wrote it is the new original.
    if (entry && entry->retuned != current) entry.reset();

    if (input.restore) {
      if (entry && entry->target != current) {
        out.changes.push_back({i, what, current, entry->target, entry->target, false});
        target.averageUtilization = entry->target;
      }
      continue;
    }

    __int128 plannedSum = 0;
    __int128 originalSum = 0;
    std::int64_t pods = 0;
    bool missing = false;
    for (const PodRequests& p : input.pods) {
      bool present = true;
      auto planned = podRequest(p.planned, d, present);
      if (!present) continue;
      auto original = podRequest(p.original, d, present);
      if (!planned || !original || *planned <= 0 || *original <= 0) {
        missing = true;
        break;
      }
      plannedSum += *planned;
      originalSum += *original;
      ++pods;
    }
    if (missing || pods == 0) {
      out.notRetuned.push_back(
          label + " " + what + "): " +
          (missing ? "a pod has no " + std::string(d.cpu ? "cpu" : "memory") + " request for it"
                   : std::string("no running pod has the container")) +
          ", target left unchanged");
      if (entry) kept.metrics[key] = *entry;
      continue;
    }
    if (!entry) {
      entry = Entry{current, roundedDivision(originalSum, pods), current};
    }
    const __int128 point = static_cast<__int128>(entry->target) * entry->podRequest * pods;
    const std::int64_t rounded = roundedDivision(point, plannedSum);
    const auto to =
        static_cast<std::int32_t>(std::clamp<std::int64_t>(rounded, kMinTarget, kMaxTarget));
    const double exact = static_cast<double>(point) / static_cast<double>(plannedSum);
    const bool clamped = std::abs(static_cast<double>(to) - exact) > kClampTolerance * exact;
    // Nothing to remember while the target does not move.
    if (!stored.metrics.contains(key) && to == current) continue;
    entry->retuned = to;
    kept.metrics[key] = *entry;
    if (to == current) continue;
    out.changes.push_back({i, what, current, to, entry->target, clamped});
    out.clamped = out.clamped || clamped;
    target.averageUtilization = to;
    const std::int64_t perPod = roundedDivision(plannedSum, pods);
    std::string text =
        what + " utilization target " + percent(current) + " -> " + percent(to) + " (requests " +
        amountText(d, entry->podRequest) + " -> " + amountText(d, perPod) +
        " per pod; scaling point kept at " +
        amountText(d,
                   roundedDivision(static_cast<__int128>(entry->target) * entry->podRequest, 100)) +
        " per pod, original target " + percent(entry->target) + ")";
    if (clamped) {
      text += "; clamped to [" + percent(kMinTarget) + ", " + percent(kMaxTarget) +
              "]: the scaling point moves by " +
              std::to_string(static_cast<int>(
                  std::lround(100.0 * std::abs(static_cast<double>(to) - exact) / exact))) +
              "%";
    }
    explained.push_back(std::move(text));
  }

  if (kept.metrics.empty()) {
    out.hpa.metadata.annotations.erase(std::string(kOriginalTargetsAnnotation));
  } else {
    out.hpa.metadata.annotations[std::string(kOriginalTargetsAnnotation)] =
        encodeStored(kept, out.hpa);
  }
  out.changed =
      out.hpa.spec != hpa.spec || out.hpa.metadata.annotations != hpa.metadata.annotations;

  std::string msg =
      "HorizontalPodAutoscaler " + name + " (" + std::string(kAutoTuneAnnotation) + ": \"true\"): ";
  if (input.restore) {
    msg += "original targets restored";
    for (const MetricRetune& c : out.changes) {
      msg += ", " + c.metric + " " + percent(c.from) + " -> " + percent(c.to);
    }
  } else {
    for (std::size_t i = 0; i < explained.size(); ++i) msg += (i ? "; " : "") + explained[i];
    if (explained.empty()) msg += "no target moves";
  }
  for (const std::string& note : out.notRetuned) msg += "; " + note;
  out.message = std::move(msg);
  return out;
}

}  // namespace attune::hpa
