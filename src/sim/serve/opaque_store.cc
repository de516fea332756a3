#include "sim/serve/opaque_store.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

Result<Json> parseObject(std::string_view text) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail(ErrorCode::kInvalidArgument, "the request body is not a JSON object");
  }
  if (!j.contains("metadata") || !j["metadata"].is_object()) j["metadata"] = Json::object();
  return j;
}

std::string stringAt(const Json& meta, const char* key) {
  auto it = meta.find(key);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string notFound(std::string_view resource, std::string_view name) {
  return std::string(resource) + " \"" + std::string(name) + "\" not found";
}

}  // namespace

Result<std::string> OpaqueStore::create(std::string_view resource, std::string_view ns,
                                        std::string_view objectJson, Time now) {
  auto parsed = parseObject(objectJson);
  if (!parsed) return std::unexpected(parsed.error());
  Json& obj = *parsed;
  Json& meta = obj["metadata"];
  std::string name = stringAt(meta, "name");
  if (name.empty()) {
    const std::string generate = stringAt(meta, "generateName");
    if (generate.empty()) {
      return fail(ErrorCode::kInvalidArgument, "name or generateName is required", "metadata.name");
    }
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%05llx",
                  static_cast<unsigned long long>((uids_ * 2654435761ULL) & 0xfffff));
    name = generate + suffix;
  }
  Key key{std::string(resource), std::string(ns), name};
  if (objects_.contains(key)) {
    return fail(ErrorCode::kConflict, std::string(resource) + " \"" + name + "\" already exists");
  }
  meta["name"] = name;
  if (!ns.empty()) meta["namespace"] = std::string(ns);
  char uid[40];
  std::snprintf(uid, sizeof uid, "00000000-0000-4000-9000-%012llx",
                static_cast<unsigned long long>(++uids_));
  meta["uid"] = uid;
  meta["resourceVersion"] = std::to_string(versioner_.next());
  meta["generation"] = 1;
  meta["creationTimestamp"] = formatRfc3339(now);
  meta.erase("managedFields");
  std::string out = dump(obj);
  objects_[key] = out;
  notify(resource, api::WatchEventType::kAdded, out);
  return out;
}

Result<std::string> OpaqueStore::update(std::string_view resource, std::string_view ns,
                                        std::string_view name, std::string_view objectJson) {
  auto it = objects_.find(Key{std::string(resource), std::string(ns), std::string(name)});
  if (it == objects_.end()) return fail(ErrorCode::kNotFound, notFound(resource, name));
  auto parsed = parseObject(objectJson);
  if (!parsed) return std::unexpected(parsed.error());
  Json& obj = *parsed;
  const Json stored = Json::parse(it->second);
  const Json& storedMeta = stored["metadata"];
  Json& meta = obj["metadata"];
  const std::string precondition = stringAt(meta, "resourceVersion");
  if (!precondition.empty() && precondition != stringAt(storedMeta, "resourceVersion")) {
    return fail(ErrorCode::kConflict,
                "Operation cannot be fulfilled on " + std::string(resource) + " \"" +
                    std::string(name) +
                    "\": the object has been modified; please apply your changes to the latest "
                    "version and try again");
  }
  for (const char* key :
       {"name", "namespace", "uid", "creationTimestamp", "generation", "resourceVersion"}) {
    if (storedMeta.contains(key)) meta[key] = storedMeta[key];
  }
  meta.erase("managedFields");
  Json before = stored;
  Json after = obj;
  for (Json* j : {&before, &after}) {
    j->erase("metadata");
    j->erase("status");
  }
  if (obj == stored) return it->second;
  if (before != after) meta["generation"] = storedMeta.value("generation", 1) + 1;
  meta["resourceVersion"] = std::to_string(versioner_.next());
  it->second = dump(obj);
  notify(resource, api::WatchEventType::kModified, it->second);
  return it->second;
}

Result<std::string> OpaqueStore::get(std::string_view resource, std::string_view ns,
                                     std::string_view name) const {
  auto it = objects_.find(Key{std::string(resource), std::string(ns), std::string(name)});
  if (it == objects_.end()) return fail(ErrorCode::kNotFound, notFound(resource, name));
  return it->second;
}

std::vector<std::string> OpaqueStore::list(std::string_view resource, std::string_view ns) const {
  std::vector<std::string> out;
  for (auto it = objects_.lower_bound(Key{std::string(resource), "", ""});
       it != objects_.end() && std::get<0>(it->first) == resource; ++it) {
    if (ns.empty() || std::get<1>(it->first) == ns) out.push_back(it->second);
  }
  return out;
}

Result<std::string> OpaqueStore::erase(std::string_view resource, std::string_view ns,
                                       std::string_view name) {
  auto node = objects_.extract(Key{std::string(resource), std::string(ns), std::string(name)});
  if (node.empty()) return fail(ErrorCode::kNotFound, notFound(resource, name));
  Json obj = Json::parse(node.mapped());
  obj["metadata"]["resourceVersion"] = std::to_string(versioner_.next());
  std::string out = dump(obj);
  notify(resource, api::WatchEventType::kDeleted, out);
  return out;
}

bool OpaqueStore::contains(std::string_view resource, std::string_view ns,
                           std::string_view name) const {
  return objects_.contains(Key{std::string(resource), std::string(ns), std::string(name)});
}

}  // namespace attune::sim::serve
