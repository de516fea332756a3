#include "api/policy/policy_validation.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <limits>
#include <span>

#include "api/policy/policy_defaults.h"
#include "api/policy/runtime_profile.h"
#include "api/policy/slo_query.h"
#include "core/quantity.h"
#include "core/time_zone.h"

namespace attune::api {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();
constexpr std::array<int, 5> kPercentiles = {0, 50, 90, 95, 99};
constexpr double kMaxOverheadPercent = 900;
constexpr std::size_t kMaxExcludedContainers = 100;
constexpr std::array<std::string_view, 4> kSelectorOperators = {"In", "NotIn", "Exists",
                                                                "DoesNotExist"};
constexpr std::array<std::string_view, 3> kConditionStatuses = {"True", "False", "Unknown"};

template <typename T>
std::optional<std::int64_t> widen(const std::optional<T>& v) {
  return v ? std::optional<std::int64_t>(*v) : std::nullopt;
}

// One count of status.workloads, when the status has them.
std::optional<std::int64_t> workloadCount(const AttunePolicy& p,
                                          std::optional<int> PolicyWorkloadCounts::*count) {
  return p.status.workloads ? widen((*p.status.workloads).*count) : std::nullopt;
}

// One field of status.cooldown, when the status has it.
std::optional<std::int64_t> cooldownField(const AttunePolicy& p,
                                          std::optional<int> CooldownStatus::*field) {
  return p.status.cooldown ? widen((*p.status.cooldown).*field) : std::nullopt;
}

// Integer fields with inclusive bounds (kNoLimit: unbounded above).
struct IntegerBound {
  const char* path;
  std::optional<std::int64_t> (*get)(const AttunePolicy&);
  std::int64_t min;
  std::int64_t max;
};

constexpr IntegerBound kIntegerBounds[] = {
    {"spec.metricsSource.minimumDataPoints",
     [](const AttunePolicy& p) { return widen(p.spec.metricsSource.minimumDataPoints); }, 1,
     kNoLimit},
    {"spec.cpu.maxChangePercent",
     [](const AttunePolicy& p) { return widen(p.spec.cpu.maxChangePercent); }, 1, 100},
    {"spec.memory.maxChangePercent",
     [](const AttunePolicy& p) { return widen(p.spec.memory.maxChangePercent); }, 1, 100},
    {"spec.cpu.decreaseUsageMarginPercent",
     [](const AttunePolicy& p) { return widen(p.spec.cpu.decreaseUsageMarginPercent); }, 0, 100},
    {"spec.memory.decreaseUsageMarginPercent",
     [](const AttunePolicy& p) { return widen(p.spec.memory.decreaseUsageMarginPercent); }, 0, 100},
    {"spec.updateStrategy.canary.percentage",
     [](const AttunePolicy& p) {
       const auto& canary = p.spec.updateStrategy.canary;
       return canary ? widen(canary->percentage) : std::nullopt;
     },
     1, 100},
    {"spec.updateStrategy.maxConcurrentResizes",
     [](const AttunePolicy& p) { return widen(p.spec.updateStrategy.maxConcurrentResizes); }, 1,
     50},
    {"spec.weight", [](const AttunePolicy& p) { return widen(p.spec.weight); }, 1, 1000},
    {"status.consecutiveReverts",
     [](const AttunePolicy& p) { return widen(p.status.consecutiveReverts); }, 0, kNoLimit},
    {"status.observedGeneration",
     [](const AttunePolicy& p) { return widen(p.status.observedGeneration); }, 0, kNoLimit},
    {"status.cooldown.backoffMultiplier",
     [](const AttunePolicy& p) { return cooldownField(p, &CooldownStatus::backoffMultiplier); }, 1,
     kNoLimit},
    {"status.cooldown.consecutiveReverts",
     [](const AttunePolicy& p) { return cooldownField(p, &CooldownStatus::consecutiveReverts); }, 0,
     kNoLimit},
    {"status.canary.observedGeneration",
     [](const AttunePolicy& p) {
       return p.status.canary ? widen(p.status.canary->observedGeneration) : std::nullopt;
     },
     0, kNoLimit},
    {"status.workloads.discovered",
     [](const AttunePolicy& p) { return workloadCount(p, &PolicyWorkloadCounts::discovered); }, 0,
     kNoLimit},
    {"status.workloads.withRecommendations",
     [](const AttunePolicy& p) {
       return workloadCount(p, &PolicyWorkloadCounts::withRecommendations);
     },
     0, kNoLimit},
    {"status.workloads.resized",
     [](const AttunePolicy& p) { return workloadCount(p, &PolicyWorkloadCounts::resized); }, 0,
     kNoLimit},
    {"status.workloads.pending",
     [](const AttunePolicy& p) { return workloadCount(p, &PolicyWorkloadCounts::pending); }, 0,
     kNoLimit},
    {"status.workloads.dataPointsCollected",
     [](const AttunePolicy& p) {
       return workloadCount(p, &PolicyWorkloadCounts::dataPointsCollected);
     },
     0, kNoLimit},
    {"status.workloads.dataPointsRequired",
     [](const AttunePolicy& p) {
       return workloadCount(p, &PolicyWorkloadCounts::dataPointsRequired);
     },
     0, kNoLimit},
};

// Duration fields with inclusive bounds (no upper bound when max is nullopt).
struct DurationBound {
  const char* path;
  std::optional<Duration> (*get)(const AttunePolicy&);
  Duration min;
  std::optional<Duration> max;
};

const DurationBound kDurationBounds[] = {
    {"spec.metricsSource.historyWindow",
     [](const AttunePolicy& p) { return p.spec.metricsSource.historyWindow; }, seconds(10),
     std::nullopt},
    {"spec.metricsSource.queryStep",
     [](const AttunePolicy& p) { return p.spec.metricsSource.queryStep; }, seconds(10), hours(1)},
    {"spec.metricsSource.rateWindow",
     [](const AttunePolicy& p) { return p.spec.metricsSource.rateWindow; }, kMinimumRateWindow,
     std::nullopt},
    {"spec.updateStrategy.canary.observationPeriod",
     [](const AttunePolicy& p) {
       const auto& canary = p.spec.updateStrategy.canary;
       return canary ? canary->observationPeriod : std::nullopt;
     },
     minutes(1), std::nullopt},
    {"spec.updateStrategy.cooldown",
     [](const AttunePolicy& p) { return p.spec.updateStrategy.cooldown; }, Duration::zero(),
     std::nullopt},
    {"spec.updateStrategy.safetyObservationPeriod",
     [](const AttunePolicy& p) { return p.spec.updateStrategy.safetyObservationPeriod; },
     minutes(1), std::nullopt},
};

std::string formatNumber(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc() ? end : buf);
}

bool isDnsLabelChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

// DNS-1123 label (maxLength 63) or, with dots allowed, subdomain (maxLength 253).
bool isDnsName(std::string_view s, bool allowDots, std::size_t maxLength) {
  if (s.empty() || s.size() > maxLength) return false;
  std::size_t labelStart = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (allowDots && s[i] == '.')) {
      const std::string_view label = s.substr(labelStart, i - labelStart);
      if (label.empty() || label.front() == '-' || label.back() == '-') return false;
      labelStart = i + 1;
    } else if (!isDnsLabelChar(s[i])) {
      return false;
    }
  }
  return true;
}

bool isHttpUrl(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.starts_with(scheme)) {
      const std::string_view rest = url.substr(scheme.size());
      return !rest.empty() && rest.front() != '/' && rest.find_first_of(" \t\r\n") == rest.npos;
    }
  }
  return false;
}

bool isHeaderName(std::string_view name) {
  static constexpr std::string_view kSeparators = "()<>@,;:\\\"/[]?={} \t";
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return c > 0x20 && c < 0x7f && kSeparators.find(c) == std::string_view::npos;
  });
}

class Validator {
 public:
  explicit Validator(const AttunePolicy& policy) : p_(policy) {}

  std::vector<PolicyDiagnostic> run() {
    metadata();
    bounds();
    targetRef();
    metricsSource();
    resource("spec.cpu", p_.spec.cpu, formatCpu);
    resource("spec.memory", p_.spec.memory, formatMemory);
    updateStrategy();
    schedule();
    increaseBudget();
    startupBoost();
    sloGuardrails();
    excludedContainers();
    status();
    return std::move(out_);
  }

 private:
  void fail(std::string path, ErrorCode code, std::string message) {
    const SourcePosition pos = p_.sources.find(path);
    out_.push_back({Error{code, std::move(message), std::move(path)}, pos.line, pos.column});
  }
  void required(std::string path) {
    fail(std::move(path), ErrorCode::kInvalidArgument, "required");
  }

  void metadata() {
    const ObjectMeta& m = p_.metadata;
    if (m.name.empty()) {
      required("metadata.name");
    } else if (!isDnsName(m.name, true, 253)) {
      fail("metadata.name", ErrorCode::kInvalidArgument,
           "must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'; at most 253 "
           "characters), got \"" +
               m.name + "\"");
    }
    if (!m.namespace_.empty() && !isDnsName(m.namespace_, false, 63)) {
      fail("metadata.namespace", ErrorCode::kInvalidArgument,
           "must be a DNS-1123 label (lowercase letters, digits and '-'; at most 63 characters), "
           "got \"" +
               m.namespace_ + "\"");
    }
  }

  void bounds() {
    for (const IntegerBound& b : kIntegerBounds) {
      const auto v = b.get(p_);
      if (v) checkInteger(b.path, *v, b.min, b.max);
    }
    for (const DurationBound& b : kDurationBounds) {
      const auto v = b.get(p_);
      if (v && *v < b.min) {
        fail(b.path, ErrorCode::kOutOfRange,
             b.min == Duration::zero()
                 ? "must not be negative, got " + formatDuration(*v)
                 : "must be at least " + formatDuration(b.min) + ", got " + formatDuration(*v));
      } else if (v && b.max && *v > *b.max) {
        fail(b.path, ErrorCode::kOutOfRange,
             "must be at most " + formatDuration(*b.max) + ", got " + formatDuration(*v));
      }
    }
  }

  void checkInteger(std::string path, std::int64_t v, std::int64_t min, std::int64_t max) {
    if (v < min) {
      fail(std::move(path), ErrorCode::kOutOfRange,
           "must be at least " + std::to_string(min) + ", got " + std::to_string(v));
    } else if (v > max) {
      fail(std::move(path), ErrorCode::kOutOfRange,
           "must be at most " + std::to_string(max) + ", got " + std::to_string(v));
    }
  }

  void targetRef() {
    const TargetRef& t = p_.spec.targetRef;
    if (!t.kind) required("spec.targetRef.kind");
    if (t.name.empty() && !t.selector) {
      fail("spec.targetRef", ErrorCode::kInvalidArgument, "must set name or selector (or both)");
    }
    if (!t.name.empty() && !isDnsName(t.name, true, 253)) {
      fail("spec.targetRef.name", ErrorCode::kInvalidArgument,
           "must be a DNS-1123 subdomain, got \"" + t.name + "\"");
    }
    if (!t.selector) return;
    for (std::size_t i = 0; i < t.selector->matchExpressions.size(); ++i) {
      const LabelSelectorRequirement& r = t.selector->matchExpressions[i];
      const std::string path =
          "spec.targetRef.selector.matchExpressions[" + std::to_string(i) + "]";
      if (r.key.empty()) required(path + ".key");
      if (r.operator_.empty()) {
        required(path + ".operator");
      } else if (!oneOf(path + ".operator", r.operator_, kSelectorOperators)) {
        continue;
      }
      const bool needsValues = r.operator_ == "In" || r.operator_ == "NotIn";
      if (needsValues && r.values.empty()) {
        fail(path + ".values", ErrorCode::kInvalidArgument,
             "must not be empty when operator is " + r.operator_);
      } else if (!needsValues && !r.values.empty()) {
        fail(path + ".values", ErrorCode::kInvalidArgument,
             "must be empty when operator is " + r.operator_);
      }
    }
  }

  // Checks that `value` is one of `allowed`; reports and returns false otherwise.
  bool oneOf(std::string path, std::string_view value, std::span<const std::string_view> allowed) {
    if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return true;
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(std::move(path), ErrorCode::kInvalidArgument,
         "must be one of " + list + "; got \"" + std::string(value) + "\"");
    return false;
  }

  void metricsSource() {
    const MetricsSource& m = p_.spec.metricsSource;
    if (m.prometheus) {
      const PrometheusSource& prom = *m.prometheus;
      const std::string path = "spec.metricsSource.prometheus";
      if (prom.address.empty()) {
        required(path + ".address");
      } else if (!isHttpUrl(prom.address)) {
        fail(path + ".address", ErrorCode::kInvalidArgument,
             "must be an http:// or https:// URL, got \"" + prom.address + "\"");
      }
      for (const auto& [name, value] : prom.headers) {
        if (!isHeaderName(name)) {
          fail(path + ".headers[" + name + "]", ErrorCode::kInvalidArgument,
               "must be a valid HTTP header name");
        }
      }
      for (const auto& [name, value] : prom.queryParameters) {
        if (name.empty()) {
          fail(path + ".queryParameters", ErrorCode::kInvalidArgument,
               "a parameter name must not be empty");
        } else if (std::ranges::find(kReservedQueryParameters, name) !=
                   kReservedQueryParameters.end()) {
          fail(path + ".queryParameters[" + name + "]", ErrorCode::kInvalidArgument,
               "is set by the operator for every query and cannot be overridden");
        }
      }
      if (prom.bearerTokenSecret) {
        if (prom.bearerTokenSecret->name.empty()) required(path + ".bearerTokenSecret.name");
        if (prom.bearerTokenSecret->key.empty()) required(path + ".bearerTokenSecret.key");
      }
    }
    if (m.queryStep && m.historyWindow && *m.historyWindow < *m.queryStep) {
      fail("spec.metricsSource.historyWindow", ErrorCode::kOutOfRange,
           "must be at least queryStep (" + formatDuration(*m.queryStep) + "), got " +
               formatDuration(*m.historyWindow));
    }
    if (m.rateWindow && m.historyWindow && *m.rateWindow > *m.historyWindow) {
      fail("spec.metricsSource.rateWindow", ErrorCode::kOutOfRange,
           "must be at most historyWindow (" + formatDuration(*m.historyWindow) + "), got " +
               formatDuration(*m.rateWindow));
    }
  }

  template <typename Amount>
  void resource(const std::string& path, const ResourcePolicy<Amount>& r,
                std::string (*format)(Amount)) {
    if (r.percentile &&
        std::find(kPercentiles.begin(), kPercentiles.end(), *r.percentile) == kPercentiles.end()) {
      fail(path + ".percentile", ErrorCode::kInvalidArgument,
           "must be one of 0, 50, 90, 95, 99; got " + std::to_string(*r.percentile));
    }
    if (r.overhead && !r.overhead->empty()) {
      const auto percent = parsePercent(*r.overhead);
      if (!percent) {
        fail(path + ".overhead", ErrorCode::kInvalidArgument,
             "must be a non-negative decimal percentage such as \"20\", got \"" + *r.overhead +
                 "\"");
      } else if (*percent > kMaxOverheadPercent) {
        fail(path + ".overhead", ErrorCode::kOutOfRange, "must be at most 900, got " + *r.overhead);
      }
    }
    if (r.maxAllowed && r.maxAllowed->value() <= 0) {
      fail(path + ".maxAllowed", ErrorCode::kOutOfRange,
           "must be greater than 0, got " + format(*r.maxAllowed));
    }
    if (r.minAllowed && r.maxAllowed && *r.minAllowed > *r.maxAllowed) {
      fail(path + ".minAllowed", ErrorCode::kOutOfRange,
           "must be at most maxAllowed (" + format(*r.maxAllowed) + "), got " +
               format(*r.minAllowed));
    }
  }

  void updateStrategy() {
    const UpdateStrategy& u = p_.spec.updateStrategy;
    const std::string path = "spec.updateStrategy";
    if (u.type == UpdateMode::kCanary && !u.canary) {
      fail(path + ".canary", ErrorCode::kInvalidArgument, "required when type is Canary");
    }
    if (u.canary) {
      if (!u.canary->percentage) required(path + ".canary.percentage");
      if (!u.canary->observationPeriod) required(path + ".canary.observationPeriod");
    }
  }

  // spec.updateStrategy.schedule: windows "HH:MM", day names, an IANA zone name.
  void schedule() {
    const auto& s = p_.spec.updateStrategy.schedule;
    if (!s) return;
    const std::string path = "spec.updateStrategy.schedule";
    for (std::size_t i = 0; i < s->windows.size(); ++i) {
      const std::string at = path + ".windows[" + std::to_string(i) + "]";
      for (const auto& [name, value] :
           {std::pair{".start", &s->windows[i].start}, std::pair{".end", &s->windows[i].end}}) {
        if (value->empty()) {
          required(at + name);
        } else if (!parseTimeOfDay(*value)) {
          fail(at + name, ErrorCode::kInvalidArgument,
               "must be a time of day HH:MM (24-hour, e.g. \"02:00\"), got \"" + *value + "\"");
        }
      }
    }
    for (std::size_t i = 0; i < s->daysOfWeek.size(); ++i) {
      if (!weekdayIndex(s->daysOfWeek[i])) {
        static constexpr std::array<std::string_view, 7> kMondayFirst = {
            "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
        oneOf(path + ".daysOfWeek[" + std::to_string(i) + "]", s->daysOfWeek[i], kMondayFirst);
      }
    }
    if (s->timezone && !isTimeZoneName(*s->timezone)) {
      fail(path + ".timezone", ErrorCode::kInvalidArgument,
           "must be an IANA time zone name such as \"America/New_York\", got \"" + *s->timezone +
               "\"");
    }
  }

  // spec.updateStrategy.maxTotalCpuIncrease / maxTotalMemoryIncrease: not negative.
  void increaseBudget() {
    const UpdateStrategy& u = p_.spec.updateStrategy;
    if (u.maxTotalCpuIncrease && u.maxTotalCpuIncrease->value() < 0) {
      fail("spec.updateStrategy.maxTotalCpuIncrease", ErrorCode::kOutOfRange,
           "must not be negative, got " + formatCpu(*u.maxTotalCpuIncrease));
    }
    if (u.maxTotalMemoryIncrease && u.maxTotalMemoryIncrease->value() < 0) {
      fail("spec.updateStrategy.maxTotalMemoryIncrease", ErrorCode::kOutOfRange,
           "must not be negative, got " + formatMemory(*u.maxTotalMemoryIncrease));
    }
  }

  // spec.cpu.startupBoost (docs/startup-boost.md): the public API's bounds.
  void startupBoost() {
    if (!p_.spec.cpu.startupBoost) return;
    const StartupBoost& b = *p_.spec.cpu.startupBoost;
    const std::string path = "spec.cpu.startupBoost";
    if (b.multiplier.empty()) {
      required(path + ".multiplier");
    } else if (const auto m = parseDecimal(b.multiplier); !m) {
      fail(path + ".multiplier", ErrorCode::kInvalidArgument,
           "must be a decimal number such as \"2.0\", got \"" + b.multiplier + "\"");
    } else if (*m <= 1 || *m > 10) {
      fail(path + ".multiplier", ErrorCode::kOutOfRange,
           "must be greater than 1 and at most 10, got " + b.multiplier);
    }
    if (!b.duration) {
      required(path + ".duration");
    } else if (*b.duration < seconds(10) || *b.duration > hours(1)) {
      fail(path + ".duration", ErrorCode::kOutOfRange,
           "must be between 10s and 1h, got " + formatDuration(*b.duration));
    }
  }

  // spec.updateStrategy.sloGuardrails (docs/slo-guardrails.md).
  void sloGuardrails() {
    const auto& list = p_.spec.updateStrategy.sloGuardrails;
    if (list.size() > 10) {  // the CRD's maxItems
      fail("spec.updateStrategy.sloGuardrails", ErrorCode::kOutOfRange,
           "must have at most 10 items, got " + std::to_string(list.size()));
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      const SloGuardrail& g = list[i];
      const std::string path = "spec.updateStrategy.sloGuardrails[" + std::to_string(i) + "]";
      if (g.name.empty()) {
        required(path + ".name");
      } else if (std::any_of(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(i),
                             [&](const SloGuardrail& o) { return o.name == g.name; })) {
        fail(path + ".name", ErrorCode::kInvalidArgument,
             "duplicate guardrail name \"" + g.name + "\"");
      }
      if (g.query.empty()) {
        required(path + ".query");
      } else if (auto rendered = renderSloQuery(g.query, {}); !rendered) {
        fail(path + ".query", ErrorCode::kInvalidArgument, rendered.error().message);
      }
      if (g.threshold.empty()) {
        required(path + ".threshold");
      } else if (!parseDecimal(g.threshold)) {
        fail(path + ".threshold", ErrorCode::kInvalidArgument,
             "must be a decimal number such as \"0.5\", got \"" + g.threshold + "\"");
      }
      if (g.evaluationWindow && *g.evaluationWindow < kMinimumSloEvaluationWindow) {
        fail(path + ".evaluationWindow", ErrorCode::kOutOfRange,
             "must be at least 1m, got " + formatDuration(*g.evaluationWindow));
      }
    }
  }

  void excludedContainers() {
    const auto& names = p_.spec.excludedContainers;
    if (names.size() > kMaxExcludedContainers) {
      fail("spec.excludedContainers", ErrorCode::kOutOfRange,
           "must have at most 100 items, got " + std::to_string(names.size()));
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) {
        fail("spec.excludedContainers[" + std::to_string(i) + "]", ErrorCode::kInvalidArgument,
             "must not be empty");
      }
    }
  }

  void status() {
    const AttunePolicyStatus& s = p_.status;
    for (std::size_t i = 0; i < s.conditions.size(); ++i) {
      const std::string path = "status.conditions[" + std::to_string(i) + "]";
      const Condition& c = s.conditions[i];
      if (c.type.empty()) required(path + ".type");
      if (c.status.empty()) {
        required(path + ".status");
      } else {
        oneOf(path + ".status", c.status, kConditionStatuses);
      }
      checkInteger(path + ".observedGeneration", c.observedGeneration, 0, kNoLimit);
    }
    for (std::size_t w = 0; w < s.recommendations.size(); ++w) {
      const auto& containers = s.recommendations[w].containers;
      for (std::size_t c = 0; c < containers.size(); ++c) {
        const std::string path = "status.recommendations[" + std::to_string(w) + "].containers[" +
                                 std::to_string(c) + "]";
        if (containers[c].dataPoints) {
          checkInteger(path + ".dataPoints", *containers[c].dataPoints, 0, kNoLimit);
        }
        const auto confidence = containers[c].confidence;
        if (confidence && (*confidence < 0 || *confidence > 1)) {
          fail(path + ".confidence", ErrorCode::kOutOfRange,
               "must be between 0 and 1, got " + formatNumber(*confidence));
        }
      }
    }
  }

  const AttunePolicy& p_;
  std::vector<PolicyDiagnostic> out_;
};

}  // namespace

void sortBySourceLine(std::vector<PolicyDiagnostic>& diagnostics) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(),
                   [](const PolicyDiagnostic& a, const PolicyDiagnostic& b) {
                     // Unknown lines (0) go last, in rule order.
                     const auto key = [](const PolicyDiagnostic& d) {
                       return d.line > 0 ? d.line : std::numeric_limits<int>::max();
                     };
                     return key(a) < key(b);
                   });
}

std::vector<PolicyDiagnostic> validatePolicy(const AttunePolicy& policy) {
  std::vector<PolicyDiagnostic> errors = Validator(policy).run();
  sortBySourceLine(errors);
  return errors;
}

std::vector<PolicyDiagnostic> policyWarnings(const AttunePolicy& policy) {
  std::vector<PolicyDiagnostic> out;
  auto warn = [&](std::string path, std::string message) {
    const SourcePosition pos = policy.sources.find(path);
    out.push_back({Error{ErrorCode::kInvalidArgument, std::move(message), std::move(path)},
                   pos.line, pos.column});
  };
  const UpdateStrategy& u = policy.spec.updateStrategy;
  if (u.canary && u.type && *u.type != UpdateMode::kCanary) {
    warn("spec.updateStrategy.canary",
         "ignored: updateStrategy.type is " + std::string(toString(*u.type)) + ", not Canary");
  }
  if (u.schedule) {
    for (std::size_t i = 0; i < u.schedule->windows.size(); ++i) {
      const TimeWindow& w = u.schedule->windows[i];
      if (!w.start.empty() && w.start == w.end && parseTimeOfDay(w.start)) {
        warn("spec.updateStrategy.schedule.windows[" + std::to_string(i) + "]",
             "start equals end (" + w.start + "): this window never opens");
      }
    }
  }
  const auto& prom = policy.spec.metricsSource.prometheus;
  if (prom && prom->insecureSkipVerify.value_or(false)) {
    warn("spec.metricsSource.prometheus.tls.insecureSkipVerify",
         "TLS certificate verification of the Prometheus server is disabled");
  }
  if (prom) {
    for (const auto& [name, value] : prom->headers) {
      std::string lower(name);
      std::ranges::transform(lower, lower.begin(),
                             [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower == "authorization" || lower == "proxy-authorization") {
        warn("spec.metricsSource.prometheus.headers[" + name + "]",
             "a credential in the policy is readable by anyone who can read the policy; prefer "
             "bearerTokenSecret where the server accepts a bearer token");
      }
    }
  }
  if (auto advice = runtimeProfileWarning(policy.spec)) {
    warn("spec.memory.allowDecrease", std::move(*advice));
  }
  return out;
}

}  // namespace attune::api
