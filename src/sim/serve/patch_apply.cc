#include "sim/serve/patch_apply.h"

#include <nlohmann/json.hpp>

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

std::string_view mediaType(std::string_view contentType) {
  std::string_view t = contentType.substr(0, contentType.find(';'));
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  return t;
}

// The key lists of objects merge on: "name" for most lists, "type" for conditions.
std::string_view mergeKeyOf(const Json& list) {
  for (std::string_view key : {"name", "type", "containerPort", "key"}) {
    bool all = !list.empty();
    for (const Json& item : list) {
      if (!item.is_object() || !item.contains(key)) {
        all = false;
        break;
      }
    }
    if (all) return key;
  }
  return {};
}

void strategicMerge(Json& target, const Json& patch);

// Merges list `patch` into list `target` by `key`: matching items merge, new ones are appended,
// items with "$patch": "delete" are removed.
void mergeList(Json& target, const Json& patch, std::string_view key) {
  for (const Json& item : patch) {
    const Json& id = item[std::string(key)];
    auto it = std::find_if(target.begin(), target.end(), [&](const Json& t) {
      return t.is_object() && t.contains(key) && t[std::string(key)] == id;
    });
    const bool remove = item.contains("$patch") && item["$patch"] == "delete";
    if (it == target.end()) {
      if (!remove) {
        Json added = Json::object();
        strategicMerge(added, item);
        target.push_back(std::move(added));
      }
    } else if (remove) {
      target.erase(it);
    } else {
      strategicMerge(*it, item);
    }
  }
}

void strategicMerge(Json& target, const Json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (patch.contains("$patch") && patch["$patch"] == "replace") {
    Json copy = patch;
    copy.erase("$patch");
    target = std::move(copy);
    return;
  }
  if (!target.is_object()) target = Json::object();
  for (const auto& [key, value] : patch.items()) {
    if (key.starts_with("$setElementOrder/") || key.starts_with("$retainKeys") ||
        key.starts_with("$deleteFromPrimitiveList/") || key == "$patch") {
      continue;
    }
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_array() && target.contains(key) && target[key].is_array()) {
      const std::string_view mergeKey = mergeKeyOf(value);
      if (!mergeKey.empty() && (target[key].empty() || !mergeKeyOf(target[key]).empty())) {
        mergeList(target[key], value, mergeKey);
      } else {
        target[key] = value;
      }
    } else if (value.is_object()) {
      strategicMerge(target[key], value);
    } else {
      target[key] = value;
    }
  }
}

}  // namespace

Result<PatchType> patchTypeOf(std::string_view contentType) {
  const std::string_view t = mediaType(contentType);
  if (t == "application/merge-patch+json") return PatchType::kMerge;
  if (t == "application/strategic-merge-patch+json") return PatchType::kStrategicMerge;
  if (t == "application/json-patch+json") return PatchType::kJsonPatch;
  return fail(ErrorCode::kInvalidArgument,
              "the media type \"" + std::string(t) + "\" is not a supported patch type");
}

Result<std::string> applyPatch(std::string_view document, std::string_view patch, PatchType type) {
  Json doc = Json::parse(document, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return fail(ErrorCode::kInternal, "the stored object is not a JSON object");
  }
  Json p = Json::parse(patch, nullptr, false);
  if (p.is_discarded()) return fail(ErrorCode::kInvalidArgument, "the patch is not valid JSON");
  switch (type) {
    case PatchType::kMerge:
      if (!p.is_object()) {
        return fail(ErrorCode::kInvalidArgument, "a merge patch must be a JSON object");
      }
      doc.merge_patch(p);
      break;
    case PatchType::kStrategicMerge:
      if (!p.is_object()) {
        return fail(ErrorCode::kInvalidArgument, "a strategic merge patch must be a JSON object");
      }
      strategicMerge(doc, p);
      break;
    case PatchType::kJsonPatch: {
      if (!p.is_array()) {
        return fail(ErrorCode::kInvalidArgument, "a JSON patch must be a JSON array");
      }
      try {
        doc = doc.patch(p);
      } catch (const Json::exception& e) {
        return fail(ErrorCode::kInvalidArgument, std::string("the JSON patch failed: ") + e.what());
      }
      break;
    }
  }
  if (!doc.is_object()) {
    return fail(ErrorCode::kInvalidArgument, "the patched object is not a JSON object");
  }
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace attune::sim::serve
