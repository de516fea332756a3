#include "kube/wire.h"

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "api/k8s/encode.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/policy_codec.h"
#include "api/policy/policy_json.h"
#include "api/policy/policy_yaml.h"

#include <type_traits>

namespace attune::kube::wire {

std::string eventBody(const api::Event& event) { return api::encodeEvent(event); }
std::string leaseBody(const api::Lease& lease) { return api::encodeLease(lease); }
std::string evictionBody(const api::Eviction& eviction) { return api::encodeEviction(eviction); }
std::string policyBody(const api::AttunePolicy& policy) { return api::encodePolicyJson(policy); }

namespace {

// `json` as the YAML node its text would load as, built directly instead of printing the JSON
// and parsing it again: a JSON string is a quoted scalar (never read as a number, bool or null),
// a number or boolean the plain scalar JSON writes for it, null a null node.
YAML::Node yamlOf(const nlohmann::json& json) {
  switch (json.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node map(YAML::NodeType::Map);
      for (const auto& [key, value] : json.items()) map.force_insert(key, yamlOf(value));
      return map;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node sequence(YAML::NodeType::Sequence);
      for (const nlohmann::json& item : json) sequence.push_back(yamlOf(item));
      return sequence;
    }
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      return YAML::Node(YAML::NodeType::Null);
    case nlohmann::json::value_t::string: {
      YAML::Node scalar(json.get_ref<const std::string&>());
      scalar.SetTag("!");
      return scalar;
    }
    default:
      return YAML::Node(json.dump());
  }
}

// Decodes one policy object. Server-managed metadata.managedFields is dropped (it is not ours to
// write back); a list item without apiVersion/kind gets the AttunePolicy ones.
Result<api::AttunePolicy> decodePolicyObject(nlohmann::json object) {
  if (!object.is_object()) return fail(ErrorCode::kInternal, "AttunePolicy is not a JSON object");
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  if (!object.contains("apiVersion")) object["apiVersion"] = std::string(api::kPolicyApiVersion);
  if (!object.contains("kind")) object["kind"] = std::string(api::kPolicyKind);
  // The usual object holds only modelled fields: read at once. Anything else goes through the
  // policy decoder, which reports it or preserves it.
  if (auto policy = api::decodePolicyJson(object)) return std::move(*policy);
  api::DecodedPolicy decoded = api::decodePolicyNode(yamlOf(object));
  if (!decoded.errors.empty()) {
    Error e = decoded.errors[0].error;
    e.code = ErrorCode::kInternal;
    e.message = "AttunePolicy from the API server does not decode: " + e.message;
    return std::unexpected(e);
  }
  if (!decoded.policy) {
    return fail(ErrorCode::kInternal, "the API server did not return one AttunePolicy");
  }
  // The nodes were built, not read from text: no source positions to keep (the caches and every
  // copy out of them do without them).
  decoded.policy->sources = {};
  return std::move(*decoded.policy);
}

// A list of custom objects (metadata.resourceVersion and continue, then each item decoded by
// `decodeItem`, its errors under items[i]); `what` names the list in errors.
template <typename T, typename DecodeItem>
Result<api::List<T>> decodeObjectList(std::string_view json, std::string_view what,
                                      DecodeItem decodeItem) {
  const auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    return fail(ErrorCode::kInternal, std::string(what) + " is not a JSON object");
  }
  api::List<T> list;
  if (auto meta = doc.find("metadata"); meta != doc.end() && meta->is_object()) {
    if (auto rv = meta->find("resourceVersion"); rv != meta->end() && rv->is_string()) {
      list.resourceVersion = rv->get<std::string>();
    }
    if (auto c = meta->find("continue"); c != meta->end() && c->is_string()) {
      list.continueToken = c->get<std::string>();
    }
  }
  const auto items = doc.find("items");
  if (items == doc.end() || items->is_null()) return list;
  if (!items->is_array()) return fail(ErrorCode::kInternal, "not a list", "items");
  for (size_t i = 0; i < items->size(); ++i) {
    auto item = decodeItem((*items)[i]);
    if (!item) return std::unexpected(item.error().under("items[" + std::to_string(i) + "]"));
    list.items.push_back(std::move(*item));
  }
  return list;
}

}  // namespace

Result<api::AttunePolicy> decodePolicy(std::string_view json) {
  auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail(ErrorCode::kInternal, "AttunePolicy is not valid JSON");
  return decodePolicyObject(std::move(doc));
}

Result<api::List<api::AttunePolicy>> decodePolicyList(std::string_view json) {
  return decodeObjectList<api::AttunePolicy>(json, "AttunePolicyList", decodePolicyObject);
}

namespace {

template <typename D>
constexpr api::DefaultsScope kScope =
    std::is_same_v<D, api::AttuneNamespaceDefaults> ? api::DefaultsScope::kNamespace
                                                    : api::DefaultsScope::kCluster;

template <typename D>
Result<D> decodeDefaultsObject(nlohmann::json object) {
  const std::string kind(api::kindOf(kScope<D>));
  if (!object.is_object()) return fail(ErrorCode::kInternal, kind + " is not a JSON object");
  if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  if (!object.contains("apiVersion")) object["apiVersion"] = std::string(api::kPolicyApiVersion);
  if (!object.contains("kind")) object["kind"] = kind;
  auto decoded = api::decodeDefaults(object.dump());
  if (decoded.size() != 1 || !decoded[0].defaults || !decoded[0].errors.empty() ||
      decoded[0].defaults->scope != kScope<D>) {
    if (!decoded.empty() && !decoded[0].errors.empty()) {
      Error e = decoded[0].errors[0].error;
      e.code = ErrorCode::kInternal;
      e.message = kind + " from the API server does not decode: " + e.message;
      return std::unexpected(e);
    }
    return fail(ErrorCode::kInternal, "the API server did not return one " + kind);
  }
  D out;
  static_cast<api::AttuneDefaults&>(out) = std::move(*decoded[0].defaults);
  return out;
}

}  // namespace

template <typename D>
Result<D> decodeDefaults(std::string_view json) {
  auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return fail(ErrorCode::kInternal, "the object is not valid JSON");
  return decodeDefaultsObject<D>(std::move(doc));
}

template <typename D>
Result<api::List<D>> decodeDefaultsList(std::string_view json) {
  return decodeObjectList<D>(json, "the list", decodeDefaultsObject<D>);
}

template Result<api::AttuneDefaults> decodeDefaults<api::AttuneDefaults>(std::string_view);
template Result<api::AttuneNamespaceDefaults> decodeDefaults<api::AttuneNamespaceDefaults>(
    std::string_view);
template Result<api::List<api::AttuneDefaults>> decodeDefaultsList<api::AttuneDefaults>(
    std::string_view);
template Result<api::List<api::AttuneNamespaceDefaults>>
    decodeDefaultsList<api::AttuneNamespaceDefaults>(std::string_view);

namespace {

// One line of a watch stream of custom objects, each decoded by `decodeObject`.
template <typename T, typename DecodeObject>
Result<api::WatchEvent<T>> decodeCustomWatchEvent(std::string_view json,
                                                  DecodeObject decodeObject) {
  auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    return fail(ErrorCode::kInvalidArgument, "watch event is not a JSON object");
  }
  auto type = doc.find("type");
  if (type == doc.end() || !type->is_string()) {
    return fail(ErrorCode::kInvalidArgument, "missing watch event type", "type");
  }
  api::WatchEvent<T> event;
  const std::string name = type->get<std::string>();
  bool known = false;
  for (api::WatchEventType t :
       {api::WatchEventType::kAdded, api::WatchEventType::kModified, api::WatchEventType::kDeleted,
        api::WatchEventType::kBookmark, api::WatchEventType::kError}) {
    if (api::watchEventTypeName(t) == name) {
      event.type = t;
      known = true;
    }
  }
  if (!known) {
    return fail(ErrorCode::kInvalidArgument, "unknown watch event type \"" + name + "\"", "type");
  }
  auto object = doc.find("object");
  if (object == doc.end() || !object->is_object()) {
    return fail(ErrorCode::kInvalidArgument, "missing watch event object", "object");
  }
  switch (event.type) {
    case api::WatchEventType::kError: {
      auto status = api::decodeApiStatus(object->dump());
      if (!status) return std::unexpected(status.error().under("object"));
      event.status = std::move(*status);
      return event;
    }
    case api::WatchEventType::kBookmark:
      if (auto meta = object->find("metadata"); meta != object->end() && meta->is_object()) {
        if (auto rv = meta->find("resourceVersion"); rv != meta->end() && rv->is_string()) {
          event.object.metadata.resourceVersion = rv->get<std::string>();
        }
      }
      return event;
    default: {
      auto decoded = decodeObject(std::move(*object));
      if (!decoded) return std::unexpected(decoded.error());
      event.object = std::move(*decoded);
      return event;
    }
  }
}

}  // namespace

Result<api::WatchEvent<api::AttunePolicy>> decodePolicyWatchEvent(std::string_view json) {
  return decodeCustomWatchEvent<api::AttunePolicy>(json, decodePolicyObject);
}

template <typename D>
Result<api::WatchEvent<D>> decodeDefaultsWatchEvent(std::string_view json) {
  return decodeCustomWatchEvent<D>(json, decodeDefaultsObject<D>);
}

template Result<api::WatchEvent<api::AttuneDefaults>> decodeDefaultsWatchEvent<api::AttuneDefaults>(
    std::string_view);
template Result<api::WatchEvent<api::AttuneNamespaceDefaults>>
    decodeDefaultsWatchEvent<api::AttuneNamespaceDefaults>(std::string_view);

}  // namespace attune::kube::wire
