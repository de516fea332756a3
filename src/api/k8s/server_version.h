// The Kubernetes version an API server reports at /version (version.Info): what decides which
// in-place resizes it accepts (KEP-1287: a memory limit decrease without a RestartContainer
// resize policy is refused before v1.34 and allowed from v1.34, guarded by the kubelet's usage
// check).
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "core/error.h"

namespace attune::api {

struct ServerVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string gitVersion;  // as reported, e.g. "v1.34.1" or "v1.33.5-gke.1000"

  // Orders by (major, minor, patch); gitVersion is not compared.
  std::strong_ordering operator<=>(const ServerVersion& o) const {
    if (auto c = major <=> o.major; c != 0) return c;
    if (auto c = minor <=> o.minor; c != 0) return c;
    return patch <=> o.patch;
  }
  bool operator==(const ServerVersion& o) const { return (*this <=> o) == 0; }
  // True from major.minor on.
  bool atLeast(int wantMajor, int wantMinor) const {
    return major != wantMajor ? major > wantMajor : minor >= wantMinor;
  }
};

// Parses a gitVersion: "v" (optional), then MAJOR.MINOR[.PATCH] in decimal, then anything
// after a '-' or '+' (pre-release and build suffixes, e.g. "-gke.1000", "+k3s1").
// kInvalidArgument (field "gitVersion") otherwise.
Result<ServerVersion> parseServerVersion(std::string_view gitVersion);

// Decodes the JSON body of GET /version. gitVersion decides when it parses; otherwise the
// "major" and "minor" strings do (a trailing '+' on the minor, as some providers write it, is
// ignored). kInvalidArgument with the field when neither gives a version, or for malformed JSON.
Result<ServerVersion> decodeServerVersion(std::string_view json);

// The /version body an API server of `version` answers (gitVersion, major, minor and the
// build fields kubectl prints).
std::string encodeServerVersion(const ServerVersion& version);

}  // namespace attune::api
