// spec.runtimeProfile: memory defaults for language runtimes that do not give memory back when
// their cgroup limit shrinks in place (the public operator's profiles). A profile only fills
// fields left unset; it never changes a set one, and it does not touch pod specs.
//
// | profile            | fills when unset                                  |
// |--------------------|---------------------------------------------------|
// | unset, generic     | nothing                                           |
// | java               | memory.allowDecrease = false, memory.overhead = 40 |
// | python, nodejs     | memory.allowDecrease = false                      |
// | golang             | nothing (the Go runtime follows its cgroup limit) |
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/policy/attune_policy.h"

namespace attune::api {

inline constexpr std::string_view kJavaMemoryOverhead = "40";

// Fills the unset fields of `spec` that its runtimeProfile defaults. applyDefaults() calls it
// before the built-in defaults, that is after the AttuneNamespaceDefaults and AttuneDefaults
// tiers (mergeDefaults): a value from the policy or a defaults tier wins over the profile.
void applyRuntimeProfile(AttunePolicySpec& spec);

// The advice against live memory decreases when the profile is java, python or nodejs and
// memory.allowDecrease is true; nullopt otherwise.
std::optional<std::string> runtimeProfileWarning(const AttunePolicySpec& spec);

}  // namespace attune::api
