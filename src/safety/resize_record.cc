#include "safety/resize_record.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <set>
#include <string_view>

#include "core/quantity.h"
#include "safety/annotations.h"

namespace attune::safety {
namespace {

// The per-container keys and the ResourceValues member each one carries.
struct ValueKey {
  std::string_view prefix;
  bool target;  // false: original
  bool cpu;     // false: memory
  bool limit;   // false: request
};

constexpr std::array<ValueKey, 8> kValueKeys = {{
    {kOriginalCpuRequestPrefix, false, true, false},
    {kOriginalCpuLimitPrefix, false, true, true},
    {kOriginalMemoryRequestPrefix, false, false, false},
    {kOriginalMemoryLimitPrefix, false, false, true},
    {kTargetCpuRequestPrefix, true, true, false},
    {kTargetCpuLimitPrefix, true, true, true},
    {kTargetMemoryRequestPrefix, true, false, false},
    {kTargetMemoryLimitPrefix, true, false, true},
}};

constexpr std::array<std::string_view, 4> kRecordKeys = {
    kResizedAtAnnotation, kResizedContainersAnnotation, kResizedWorkloadAnnotation,
    kPolicyAnnotation};

std::optional<Millicores>& cpuOf(api::ResourceValues& v, bool limit) {
  return limit ? v.cpuLimit : v.cpuRequest;
}
std::optional<Bytes>& memoryOf(api::ResourceValues& v, bool limit) {
  return limit ? v.memoryLimit : v.memoryRequest;
}

std::string key(std::string_view prefix, std::string_view container) {
  std::string k(prefix);
  k += container;
  return k;
}

bool nameTooLong(std::string_view fullKey) {
  const auto slash = fullKey.find('/');
  return fullKey.size() - slash - 1 > kMaxAnnotationNameLength;
}

// The resize time as written: whole seconds when exact, else nanoseconds.
std::string formatResizedAt(Time t) {
  const bool whole = std::chrono::floor<std::chrono::seconds>(t) == t;
  return formatRfc3339(t, whole ? 0 : 9);
}

std::vector<std::string_view> splitNames(std::string_view list) {
  std::vector<std::string_view> names;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view name = list.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) names.push_back(name);
    start = comma + 1;
  }
  return names;
}

bool isRecordKey(std::string_view k) {
  if (std::find(kRecordKeys.begin(), kRecordKeys.end(), k) != kRecordKeys.end()) return true;
  if (k.starts_with(kOriginalRestartCountPrefix)) return true;
  return std::any_of(kValueKeys.begin(), kValueKeys.end(),
                     [&](const ValueKey& v) { return k.starts_with(v.prefix); });
}

}  // namespace

const ContainerRecord* ResizeRecord::find(std::string_view name) const {
  auto it = std::find_if(containers.begin(), containers.end(),
                         [&](const ContainerRecord& c) { return c.name == name; });
  return it == containers.end() ? nullptr : &*it;
}

Result<api::AnnotationChanges> encodeResizeAnnotations(const ResizeRecord& record) {
  if (record.containers.empty()) {
    return fail(ErrorCode::kInvalidArgument, "a resize record needs at least one container",
                std::string(kResizedContainersAnnotation));
  }
  api::AnnotationChanges out;
  out[std::string(kResizedAtAnnotation)] = formatResizedAt(record.resizedAt);
  out[std::string(kResizedWorkloadAnnotation)] = record.workload;
  out[std::string(kPolicyAnnotation)] = record.policy;

  std::string names;
  std::set<std::string_view> seen;
  for (const ContainerRecord& c : record.containers) {
    if (c.name.empty() || c.name.find(',') != std::string::npos ||
        c.name.find(' ') != std::string::npos || !seen.insert(c.name).second) {
      return fail(ErrorCode::kInvalidArgument,
                  "container name \"" + c.name + "\" is empty, repeated or not a DNS label",
                  std::string(kResizedContainersAnnotation));
    }
    if (!names.empty()) names += ',';
    names += c.name;

    const std::string restartKey = key(kOriginalRestartCountPrefix, c.name);
    if (nameTooLong(restartKey) || nameTooLong(key(kOriginalMemoryRequestPrefix, c.name))) {
      return fail(ErrorCode::kInvalidArgument,
                  "container name \"" + c.name + "\" is too long for a resize-record annotation",
                  restartKey);
    }
    out[restartKey] = std::to_string(c.restartCount);
    for (const ValueKey& v : kValueKeys) {
      api::ResourceValues values = v.target ? c.target : c.original;
      if (v.cpu) {
        if (const auto& m = cpuOf(values, v.limit)) out[key(v.prefix, c.name)] = formatCpu(*m);
      } else {
        if (const auto& b = memoryOf(values, v.limit)) {
          out[key(v.prefix, c.name)] = formatMemory(*b);
        }
      }
    }
  }
  out[std::string(kResizedContainersAnnotation)] = names;
  return out;
}

api::AnnotationChanges clearResizeAnnotations(const api::Pod& pod) {
  api::AnnotationChanges out;
  for (const auto& [k, v] : pod.metadata.annotations) {
    if (isRecordKey(k)) out[k] = std::nullopt;
  }
  return out;
}

Result<api::AnnotationChanges> replaceResizeAnnotations(const api::Pod& pod,
                                                        const ResizeRecord& record) {
  auto encoded = encodeResizeAnnotations(record);
  if (!encoded) return encoded;
  api::AnnotationChanges out = clearResizeAnnotations(pod);
  for (auto& [k, v] : *encoded) out[k] = std::move(v);
  return out;
}

bool hasResizeRecord(const api::Pod& pod) {
  return pod.metadata.annotations.contains(kResizedAtAnnotation);
}

Result<std::optional<ResizeRecord>> decodeResizeRecord(const api::Pod& pod) {
  const api::StringMap& ann = pod.metadata.annotations;
  auto at = ann.find(kResizedAtAnnotation);
  if (at == ann.end()) return std::optional<ResizeRecord>{};

  ResizeRecord record;
  auto time = parseRfc3339(at->second);
  if (!time) {
    return fail(ErrorCode::kInvalidArgument, "not an RFC 3339 time: " + time.error().message,
                std::string(kResizedAtAnnotation));
  }
  record.resizedAt = *time;
  if (auto it = ann.find(kResizedWorkloadAnnotation); it != ann.end()) record.workload = it->second;
  if (auto it = ann.find(kPolicyAnnotation); it != ann.end()) record.policy = it->second;

  auto list = ann.find(kResizedContainersAnnotation);
  if (list == ann.end()) {
    return fail(ErrorCode::kInvalidArgument, "missing: the record names no container",
                std::string(kResizedContainersAnnotation));
  }
  const std::vector<std::string_view> names = splitNames(list->second);
  if (names.empty()) {
    return fail(ErrorCode::kInvalidArgument, "empty: the record names no container",
                std::string(kResizedContainersAnnotation));
  }
  std::set<std::string_view> seen;
  for (std::string_view name : names) {
    if (!seen.insert(name).second) {
      return fail(ErrorCode::kInvalidArgument,
                  "container \"" + std::string(name) + "\" is listed twice",
                  std::string(kResizedContainersAnnotation));
    }
    ContainerRecord c;
    c.name = std::string(name);

    const std::string restartKey = key(kOriginalRestartCountPrefix, name);
    auto restart = ann.find(restartKey);
    if (restart == ann.end()) {
      return fail(ErrorCode::kInvalidArgument, "missing restart count of a resized container",
                  restartKey);
    }
    const std::string& text = restart->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), c.restartCount);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty() ||
        c.restartCount < 0) {
      return fail(ErrorCode::kInvalidArgument,
                  "not a non-negative 32-bit integer: \"" + text + "\"", restartKey);
    }

    for (const ValueKey& v : kValueKeys) {
      const std::string k = key(v.prefix, name);
      auto it = ann.find(k);
      if (it == ann.end()) continue;
      api::ResourceValues& values = v.target ? c.target : c.original;
      if (v.cpu) {
        auto m = parseCpu(it->second);
        if (!m) return fail(ErrorCode::kInvalidArgument, m.error().message, k);
        cpuOf(values, v.limit) = *m;
      } else {
        auto b = parseMemory(it->second);
        if (!b) return fail(ErrorCode::kInvalidArgument, b.error().message, k);
        memoryOf(values, v.limit) = *b;
      }
    }
    record.containers.push_back(std::move(c));
  }
  return std::optional<ResizeRecord>(std::move(record));
}

api::ResourceValues resourceValuesOf(const api::ResourceRequirements& r) {
  api::ResourceValues v;
  if (r.requests.cpu) v.cpuRequest = r.requests.cpu->toMillicores();
  if (r.limits.cpu) v.cpuLimit = r.limits.cpu->toMillicores();
  if (r.requests.memory) v.memoryRequest = r.requests.memory->toBytes();
  if (r.limits.memory) v.memoryLimit = r.limits.memory->toBytes();
  return v;
}

api::ResourceRequirements withResourceValues(api::ResourceRequirements base,
                                             const api::ResourceValues& values) {
  auto cpu = [](const std::optional<Millicores>& m) -> std::optional<Quantity> {
    if (!m) return std::nullopt;
    return Quantity::fromMillicores(*m);
  };
  auto memory = [](const std::optional<Bytes>& b) -> std::optional<Quantity> {
    if (!b) return std::nullopt;
    return Quantity::fromBytes(*b);
  };
  base.requests.cpu = cpu(values.cpuRequest);
  base.limits.cpu = cpu(values.cpuLimit);
  base.requests.memory = memory(values.memoryRequest);
  base.limits.memory = memory(values.memoryLimit);
  return base;
}

}  // namespace attune::safety
