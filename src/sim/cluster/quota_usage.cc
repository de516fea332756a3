#include "sim/cluster/quota_usage.h"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>

namespace attune::sim {
namespace {

using Amounts = std::map<std::string, Quantity, std::less<>>;

constexpr __int128 kOneUnit = 1'000'000'000;  // nano-units per unit

// a + b; a zero `a` takes b's format (resource.Quantity.Add).
Quantity plus(const Quantity& a, const Quantity& b) {
  return Quantity::fromNanos(a.nanos() + b.nanos(), a.isZero() ? b.format() : a.format());
}

void add(Amounts& into, const api::ResourceList& list) {
  list.forEach([&](std::string_view name, const Quantity& q) {
    auto it = into.find(name);
    if (it == into.end()) {
      into.emplace(std::string(name), q);
    } else {
      it->second = plus(it->second, q);
    }
  });
}

void maxInto(Amounts& into, const Amounts& other) {
  for (const auto& [name, q] : other) {
    auto it = into.find(name);
    if (it == into.end()) {
      into.emplace(name, q);
    } else if (it->second < q) {
      it->second = q;
    }
  }
}

// resourcehelper.PodRequests (limits = false) or PodLimits (limits = true) of `spec`.
Amounts podAmounts(const api::PodSpec& spec, bool limits) {
  auto of = [&](const api::Container& c) -> const api::ResourceList& {
    return limits ? c.resources.limits : c.resources.requests;
  };
  Amounts total;
  for (const auto& c : spec.containers) add(total, of(c));
  Amounts sidecars;
  Amounts initMax;
  for (const auto& c : spec.initContainers) {
    if (c.isSidecar()) {
      add(total, of(c));
      add(sidecars, of(c));
      maxInto(initMax, sidecars);
    } else {
      Amounts running = sidecars;
      add(running, of(c));
      maxInto(initMax, running);
    }
  }
  maxInto(total, initMax);
  if (spec.resources) {
    const api::ResourceList& pod = limits ? spec.resources->limits : spec.resources->requests;
    for (std::string_view name : {"cpu", "memory"}) {
      if (const Quantity* q = pod.find(name)) total.insert_or_assign(std::string(name), *q);
    }
  }
  spec.overhead.forEach([&](std::string_view name, const Quantity& q) {
    auto it = total.find(name);
    if (it != total.end()) {
      it->second = plus(it->second, q);
    } else if (!limits) {
      total.emplace(std::string(name), q);
    }
  });
  return total;
}

bool isBestEffort(const api::Pod& pod) {
  if (!pod.status.qosClass.empty()) {
    return pod.status.qosClass == api::qosClassName(api::QosClass::kBestEffort);
  }
  return api::computeQosClass(pod.spec) == api::QosClass::kBestEffort;
}

// "k=v,k=v" over `list`, sorted by name (the plugin's prettyPrint).
std::string prettyPrint(const api::ResourceList& list) {
  std::vector<std::pair<std::string, std::string>> entries;
  list.forEach([&](std::string_view name, const Quantity& q) {
    entries.emplace_back(std::string(name), q.toString());
  });
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const auto& [name, value] : entries) {
    if (!out.empty()) out += ',';
    out += name + "=" + value;
  }
  return out;
}

}  // namespace

std::optional<QuotaCharge> quotaChargeOf(const api::Pod& pod) {
  if (pod.status.phase == "Succeeded" || pod.status.phase == "Failed") return std::nullopt;
  QuotaCharge charge;
  charge.bestEffort = isBestEffort(pod);
  api::ResourceList& usage = charge.usage;
  const Quantity one = Quantity::fromNanos(kOneUnit, QuantityFormat::kDecimalSI);
  usage.set("pods", one);
  usage.set("count/pods", one);
  for (const auto& [name, q] : podAmounts(pod.spec, false)) {
    usage.set("requests." + name, q);
    if (name == "cpu" || name == "memory" || name == "ephemeral-storage") usage.set(name, q);
  }
  for (const auto& [name, q] : podAmounts(pod.spec, true)) usage.set("limits." + name, q);
  return charge;
}

bool quotaScopesMatch(const std::vector<std::string>& scopes, const QuotaCharge& charge) {
  return std::all_of(scopes.begin(), scopes.end(), [&](const std::string& scope) {
    if (scope == "BestEffort") return charge.bestEffort;
    if (scope == "NotBestEffort") return !charge.bestEffort;
    return scope == "NotTerminating";
  });
}

bool isPodQuotaResource(std::string_view name) {
  if (name == "requests.storage") return false;
  return name == "pods" || name == "count/pods" || name == "cpu" || name == "memory" ||
         name == "ephemeral-storage" || name.starts_with("requests.") ||
         name.starts_with("limits.");
}

void addCharge(api::ResourceList& used, const api::ResourceList& usage,
               const api::ResourceList& hard, int sign) {
  hard.forEach([&](std::string_view name, const Quantity&) {
    const Quantity* amount = usage.find(name);
    if (!amount) return;
    const Quantity change = Quantity::fromNanos(sign * amount->nanos(), amount->format());
    const Quantity* current = used.find(name);
    used.set(name, current ? plus(*current, change) : change);
  });
}

api::ResourceList baseUsed(const api::ResourceQuota& quota) {
  api::ResourceList used;
  quota.specHard.forEach([&](std::string_view name, const Quantity&) {
    const Quantity* stored = quota.used.find(name);
    used.set(name, !isPodQuotaResource(name) && stored ? *stored : Quantity());
  });
  return used;
}

Result<void> admitQuotaCharge(const api::ResourceQuota& quota, const api::ResourceList* before,
                              const api::ResourceList& after, std::string_view subject) {
  api::ResourceList requested;
  api::ResourceList used;
  api::ResourceList limited;
  quota.hard.forEach([&](std::string_view name, const Quantity& hard) {
    const Quantity* next = after.find(name);
    if (!next) return;
    const Quantity* previous = before ? before->find(name) : nullptr;
    const __int128 delta = next->nanos() - (previous ? previous->nanos() : 0);
    if (delta <= 0) return;
    const Quantity* current = quota.used.find(name);
    const __int128 currentNanos = current ? current->nanos() : 0;
    if (currentNanos + delta <= hard.nanos()) return;
    requested.set(name, Quantity::fromNanos(delta, next->format()));
    if (current) used.set(name, *current);
    limited.set(name, hard);
  });
  if (requested.empty()) return {};
  return fail(ErrorCode::kForbidden,
              std::string(subject) + " is forbidden: exceeded quota: " + quota.metadata.name +
                  ", requested: " + prettyPrint(requested) + ", used: " + prettyPrint(used) +
                  ", limited: " + prettyPrint(limited));
}

}  // namespace attune::sim
