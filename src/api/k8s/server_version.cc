#include "api/k8s/server_version.h"

#include <charconv>
#include <exception>
#include <optional>

#include <nlohmann/json.hpp>

namespace attune::api {
namespace {

// Reads a decimal number at the start of `s` and drops it; nullopt when there is none.
std::optional<int> takeNumber(std::string_view& s) {
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

Error invalid(std::string message, std::string field) {
  return Error{ErrorCode::kInvalidArgument, std::move(message), std::move(field)};
}

}  // namespace

Result<ServerVersion> parseServerVersion(std::string_view gitVersion) {
  const auto bad = [&] {
    return std::unexpected(invalid(
        "\"" + std::string(gitVersion) + "\" is not a Kubernetes version (want vMAJOR.MINOR.PATCH)",
        "gitVersion"));
  };
  std::string_view s = gitVersion;
  if (s.starts_with('v')) s.remove_prefix(1);
  ServerVersion v;
  v.gitVersion = std::string(gitVersion);
  const auto major = takeNumber(s);
  if (!major || !s.starts_with('.')) return bad();
  s.remove_prefix(1);
  const auto minor = takeNumber(s);
  if (!minor) return bad();
  v.major = *major;
  v.minor = *minor;
  if (s.starts_with('.')) {
    s.remove_prefix(1);
    const auto patch = takeNumber(s);
    if (!patch) return bad();
    v.patch = *patch;
  }
  if (!s.empty() && s.front() != '-' && s.front() != '+') return bad();
  return v;
}

Result<ServerVersion> decodeServerVersion(std::string_view json) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json);
  } catch (const std::exception& e) {
    return std::unexpected(invalid(std::string("malformed /version body: ") + e.what(), ""));
  }
  if (!doc.is_object()) return std::unexpected(invalid("/version body is not an object", ""));
  const auto text = [&](const char* key) -> std::string {
    auto it = doc.find(key);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string git = text("gitVersion");
  if (auto parsed = parseServerVersion(git); parsed) return parsed;
  const std::string majorText = text("major");
  std::string_view major = majorText;
  const std::string minorText = text("minor");
  std::string_view minor = minorText;
  if (minor.ends_with('+')) minor.remove_suffix(1);
  ServerVersion v;
  v.gitVersion = git;
  const auto ma = takeNumber(major);
  const auto mi = takeNumber(minor);
  if (!ma || !major.empty()) {
    return std::unexpected(invalid(
        "no Kubernetes version in gitVersion \"" + git + "\" or major \"" + majorText + "\"",
        "major"));
  }
  if (!mi || !minor.empty()) {
    return std::unexpected(invalid("minor \"" + minorText + "\" is not a number", "minor"));
  }
  v.major = *ma;
  v.minor = *mi;
  return v;
}

std::string encodeServerVersion(const ServerVersion& version) {
  const std::string git = version.gitVersion.empty() ? "v" + std::to_string(version.major) + "." +
                                                           std::to_string(version.minor) + "." +
                                                           std::to_string(version.patch)
                                                     : version.gitVersion;
  return nlohmann::json{{"major", std::to_string(version.major)},
                        {"minor", std::to_string(version.minor)},
                        {"gitVersion", git},
                        {"gitCommit", "0000000000000000000000000000000000000000"},
                        {"gitTreeState", "clean"},
                        {"buildDate", "2025-01-01T00:00:00Z"},
                        {"goVersion", "go1.24"},
                        {"compiler", "gc"},
                        {"platform", "linux/amd64"}}
      .dump();
}

}  // namespace attune::api
