#include "api/policy/runtime_profile.h"

namespace attune::api {
namespace {

// The profiles whose runtimes keep their heap when the memory limit shrinks in place.
bool keepsHeap(RuntimeProfile p) {
  return p == RuntimeProfile::kJava || p == RuntimeProfile::kPython || p == RuntimeProfile::kNodejs;
}

}  // namespace

void applyRuntimeProfile(AttunePolicySpec& spec) {
  const RuntimeProfile profile = spec.runtimeProfile.value_or(RuntimeProfile::kGeneric);
  if (!keepsHeap(profile)) return;
  if (!spec.memory.allowDecrease) spec.memory.allowDecrease = false;
  if (profile == RuntimeProfile::kJava && spec.memory.overhead.value_or("").empty()) {
    spec.memory.overhead = std::string(kJavaMemoryOverhead);
  }
}

std::optional<std::string> runtimeProfileWarning(const AttunePolicySpec& spec) {
  const RuntimeProfile profile = spec.runtimeProfile.value_or(RuntimeProfile::kGeneric);
  if (!keepsHeap(profile) || !spec.memory.allowDecrease.value_or(false)) return std::nullopt;
  return "runtimeProfile " + std::string(toString(profile)) +
         ": this runtime usually keeps its heap when the memory limit shrinks in place; prefer "
         "allowDecrease: false, or resizePolicy RestartContainer for memory on the pod";
}

}  // namespace attune::api
