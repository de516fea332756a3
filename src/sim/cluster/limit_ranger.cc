#include "sim/cluster/limit_ranger.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace attune::sim {
namespace {

constexpr std::string_view kContainer = "Container";
constexpr std::string_view kPod = "Pod";

// The item as the API server stores it (SetDefaults_LimitRangeItem).
api::LimitRangeItem defaulted(const api::LimitRangeItem& item) {
  api::LimitRangeItem out = item;
  if (item.type != kContainer) return out;
  auto fill = [](api::ResourceList& into, const api::ResourceList& from) {
    from.forEach([&](std::string_view name, const Quantity& q) {
      if (!into.find(name)) into.set(name, q);
    });
  };
  fill(out.default_, out.max);
  fill(out.defaultRequest, out.default_);
  fill(out.defaultRequest, out.min);
  return out;
}

// The Container defaults of one LimitRange: later items override earlier ones.
api::ResourceRequirements containerDefaults(const api::LimitRange& range) {
  api::ResourceRequirements defaults;
  for (const auto& raw : range.limits) {
    if (raw.type != kContainer) continue;
    const api::LimitRangeItem item = defaulted(raw);
    item.defaultRequest.forEach(
        [&](std::string_view name, const Quantity& q) { defaults.requests.set(name, q); });
    item.default_.forEach(
        [&](std::string_view name, const Quantity& q) { defaults.limits.set(name, q); });
  }
  return defaults;
}

// Sets into `list` each entry of `defaults` it lacks; returns the names set, sorted.
std::vector<std::string> fillMissing(api::ResourceList& list, const api::ResourceList& defaults) {
  std::vector<std::string> set;
  defaults.forEach([&](std::string_view name, const Quantity& q) {
    if (list.find(name)) return;
    list.set(name, q);
    set.emplace_back(name);
  });
  std::sort(set.begin(), set.end());
  return set;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// LimitRanger's mergeContainerResources: appends what it set to `notes`.
void mergeDefaults(api::Container& c, const api::ResourceRequirements& defaults,
                   std::string_view kind, std::vector<std::string>& notes) {
  const std::vector<std::string> limits = fillMissing(c.resources.limits, defaults.limits);
  const std::vector<std::string> requests = fillMissing(c.resources.requests, defaults.requests);
  const std::string suffix = " for " + std::string(kind) + " " + c.name;
  if (!requests.empty()) notes.push_back(join(requests, ", ") + " request" + suffix);
  if (!limits.empty()) notes.push_back(join(limits, ", ") + " limit" + suffix);
}

void requestsFromLimits(api::Container& c) {
  c.resources.limits.forEach([&](std::string_view name, const Quantity& q) {
    if (!c.resources.requests.find(name)) c.resources.requests.set(name, q);
  });
}

// One item's constraints on one set of requests and limits; appends violations to `errors`.
void checkItem(std::string_view type, const api::LimitRangeItem& item,
               const api::ResourceList& requests, const api::ResourceList& limits,
               std::vector<std::string>& errors) {
  item.min.forEach([&](std::string_view name, const Quantity& min) {
    const std::string head = "minimum " + std::string(name) + " usage per " + std::string(type) +
                             " is " + min.toString();
    const Quantity* request = requests.find(name);
    const Quantity* limit = limits.find(name);
    if (!request) {
      errors.push_back(head + ".  No request is specified");
    } else if (*request < min) {
      errors.push_back(head + ", but request is " + request->toString());
    } else if (limit && *limit < min) {
      errors.push_back(head + ", but limit is " + limit->toString());
    }
  });
  item.max.forEach([&](std::string_view name, const Quantity& max) {
    const std::string head = "maximum " + std::string(name) + " usage per " + std::string(type) +
                             " is " + max.toString();
    const Quantity* request = requests.find(name);
    const Quantity* limit = limits.find(name);
    if (!limit) {
      errors.push_back(head + ".  No limit is specified");
    } else if (max < *limit) {
      errors.push_back(head + ", but limit is " + limit->toString());
    } else if (request && max < *request) {
      errors.push_back(head + ", but request is " + request->toString());
    }
  });
  item.maxLimitRequestRatio.forEach([&](std::string_view name, const Quantity& ratio) {
    const std::string head = std::string(name) + " max limit to request ratio per " +
                             std::string(type) + " is " + ratio.toString();
    const Quantity* request = requests.find(name);
    const Quantity* limit = limits.find(name);
    if (!request || request->isZero()) {
      errors.push_back(head + ", but no request is specified or request is 0");
    } else if (!limit || limit->isZero()) {
      errors.push_back(head + ", but no limit is specified or limit is 0");
    } else {
      const double observed =
          static_cast<double>(limit->nanos()) / static_cast<double>(request->nanos());
      if (observed * 1e9 > static_cast<double>(ratio.nanos())) {
        char text[64];
        std::snprintf(text, sizeof text, "%f", observed);
        errors.push_back(head + ", but provided ratio is " + text);
      }
    }
  });
}

void addTo(api::ResourceList& total, const api::ResourceList& list, bool onlyExisting) {
  list.forEach([&](std::string_view name, const Quantity& q) {
    const Quantity* current = total.find(name);
    if (!current && onlyExisting) return;
    total.set(name,
              current ? Quantity::fromNanos(current->nanos() + q.nanos(), current->format()) : q);
  });
}

void maxTo(api::ResourceList& total, const api::ResourceList& list) {
  list.forEach([&](std::string_view name, const Quantity& q) {
    const Quantity* current = total.find(name);
    if (!current || *current < q) total.set(name, q);
  });
}

// The plugin's podRequests / podLimits.
api::ResourceRequirements podTotals(const api::PodSpec& spec) {
  api::ResourceRequirements total;
  for (const auto& c : spec.containers) {
    addTo(total.requests, c.resources.requests, false);
    addTo(total.limits, c.resources.limits, false);
  }
  for (const auto& c : spec.initContainers) {
    maxTo(total.requests, c.resources.requests);
    maxTo(total.limits, c.resources.limits);
  }
  addTo(total.requests, spec.overhead, false);
  addTo(total.limits, spec.overhead, true);
  return total;
}

// utilerrors.NewAggregate(...).Error(): duplicates dropped; several read "[a, b]".
std::string aggregate(const std::vector<std::string>& errors) {
  std::set<std::string> seen;
  std::vector<std::string> unique;
  for (const auto& e : errors) {
    if (seen.insert(e).second) unique.push_back(e);
  }
  if (unique.size() == 1) return unique.front();
  return "[" + join(unique, ", ") + "]";
}

}  // namespace

void applyPodDefaults(api::Pod& pod, std::span<const api::LimitRange> ranges) {
  for (auto& c : pod.spec.containers) requestsFromLimits(c);
  for (auto& c : pod.spec.initContainers) requestsFromLimits(c);
  for (const api::LimitRange& range : ranges) {
    const api::ResourceRequirements defaults = containerDefaults(range);
    if (defaults.requests.empty() && defaults.limits.empty()) continue;
    std::vector<std::string> notes;
    for (auto& c : pod.spec.containers) mergeDefaults(c, defaults, "container", notes);
    for (auto& c : pod.spec.initContainers) mergeDefaults(c, defaults, "init container", notes);
    if (!notes.empty()) {
      pod.metadata.annotations.insert_or_assign(std::string(kLimitRangerAnnotation),
                                                "LimitRanger plugin set: " + join(notes, "; "));
    }
  }
}

Result<void> validateLimitRanges(const api::PodSpec& spec, std::span<const api::LimitRange> ranges,
                                 std::string_view subject) {
  std::vector<std::string> errors;
  for (const api::LimitRange& range : ranges) {
    for (const api::LimitRangeItem& item : range.limits) {
      if (item.type == kContainer) {
        for (const auto& c : spec.containers) {
          checkItem(kContainer, item, c.resources.requests, c.resources.limits, errors);
        }
        for (const auto& c : spec.initContainers) {
          checkItem(kContainer, item, c.resources.requests, c.resources.limits, errors);
        }
      } else if (item.type == kPod) {
        const api::ResourceRequirements total = podTotals(spec);
        checkItem(kPod, item, total.requests, total.limits, errors);
      }
    }
  }
  if (errors.empty()) return {};
  return fail(ErrorCode::kForbidden, std::string(subject) + " is forbidden: " + aggregate(errors));
}

}  // namespace attune::sim
