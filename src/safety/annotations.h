// The annotation keys Attune reads and writes on pods and workloads. Keys shared with the public
// Go operator (same API group) are spelled exactly as it spells them, so pods and workloads
// annotated by either operator are understood by the other; keys marked "ours" are extensions.
#pragma once

#include <cstddef>
#include <string_view>

namespace attune::safety {

// ---- On a workload or a pod: opt-out. The value "true" (exactly) excludes the object.
inline constexpr std::string_view kSkipAnnotation = "attune.io/skip";

// ---- On a workload: cooldown state (safety/cooldown.h).
// RFC 3339 time of the workload's last resize or revert.
inline constexpr std::string_view kLastResizeTimeAnnotation = "attune.io/last-resize-time";
// Ours: reverts since the workload's last resize declared safe (decimal, absent = 0).
inline constexpr std::string_view kConsecutiveRevertsAnnotation = "attune.io/consecutive-reverts";
// Ours: RFC 3339 time the workload's last resize was declared safe (canary promotion waits on it).
inline constexpr std::string_view kLastSafeTimeAnnotation = "attune.io/last-safe-time";

// ---- On a pod under observation: the resize record (safety/resize_record.h).
inline constexpr std::string_view kResizedAtAnnotation = "attune.io/resized-at";
// Comma-separated names of the containers the resize changed.
inline constexpr std::string_view kResizedContainersAnnotation = "attune.io/resized-containers";
inline constexpr std::string_view kResizedWorkloadAnnotation = "attune.io/resized-workload";
// The AttunePolicy that made the resize.
inline constexpr std::string_view kPolicyAnnotation = "attune.io/policy";
// Per-container keys: prefix + container name.
inline constexpr std::string_view kOriginalCpuRequestPrefix = "attune.io/original-cpu-request.";
inline constexpr std::string_view kOriginalMemoryRequestPrefix =
    "attune.io/original-memory-request.";
inline constexpr std::string_view kOriginalCpuLimitPrefix = "attune.io/original-cpu-limit.";
inline constexpr std::string_view kOriginalMemoryLimitPrefix = "attune.io/original-memory-limit.";
inline constexpr std::string_view kOriginalRestartCountPrefix = "attune.io/original-restart-count.";
// Ours: what the resize asked for, so that a restarted controller can tell whether the kubelet
// has applied it.
inline constexpr std::string_view kTargetCpuRequestPrefix = "attune.io/target-cpu-request.";
inline constexpr std::string_view kTargetMemoryRequestPrefix = "attune.io/target-memory-request.";
inline constexpr std::string_view kTargetCpuLimitPrefix = "attune.io/target-cpu-limit.";
inline constexpr std::string_view kTargetMemoryLimitPrefix = "attune.io/target-memory-limit.";

// The name part of an annotation key (after the "/") is at most this long (a qualified name).
inline constexpr std::size_t kMaxAnnotationNameLength = 63;

}  // namespace attune::safety
