#include "sim/serve/object_handlers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>
#include <type_traits>

#include "api/k8s/decode.h"
#include "api/k8s/encode_objects.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/policy_codec.h"
#include "api/policy/policy_json.h"
#include "sim/serve/hpa_handlers.h"
#include "sim/serve/scale_handlers.h"

namespace attune::sim::serve {
namespace {

using Json = nlohmann::json;

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Calls fn(store) with the typed store of `plural`; kNotFound for a plural without one.
template <typename Fn>
Result<Reply> visitStore(ClusterState& s, std::string_view plural, Fn&& fn) {
  if (plural == "pods") return fn(s.pods);
  if (plural == "nodes") return fn(s.nodes);
  if (plural == "namespaces") return fn(s.namespaces);
  if (plural == "deployments") return fn(s.deployments);
  if (plural == "statefulsets") return fn(s.statefulSets);
  if (plural == "daemonsets") return fn(s.daemonSets);
  if (plural == "replicasets") return fn(s.replicaSets);
  if (plural == "jobs") return fn(s.jobs);
  if (plural == "cronjobs") return fn(s.cronJobs);
  if (plural == "limitranges") return fn(s.limitRanges);
  if (plural == "resourcequotas") return fn(s.resourceQuotas);
  if (plural == "horizontalpodautoscalers") return fn(s.hpas);
  if (plural == "poddisruptionbudgets") return fn(s.pdbs);
  if (plural == "events") return fn(s.events);
  if (plural == "leases") return fn(s.leases);
  if (plural == "attunepolicies") return fn(s.attunePolicies);
  if (plural == "attunedefaults") return fn(s.attuneDefaults);
  if (plural == "attunenamespacedefaults") return fn(s.attuneNamespaceDefaults);
  return fail(ErrorCode::kNotFound, "the server could not find the requested resource");
}

template <typename T>
Result<Reply> encoded(const Result<T>& object, int status = 200) {
  if (!object) return std::unexpected(object.error());
  return Reply{status, api::encodeObjectJson(*object)};
}

// The object's JSON on one line (watch streams are one event per line; AttunePolicy's encoder
// indents).
template <typename T>
std::string oneLineJson(const T& object) {
  std::string json = api::encodeObjectJson(object);
  if (json.find('\n') != std::string::npos) json = dump(Json::parse(json));
  return json;
}

api::StringMap labelsOf(const Json& meta) {
  api::StringMap out;
  auto it = meta.find("labels");
  if (it == meta.end() || !it->is_object()) return out;
  for (const auto& [key, value] : it->items()) {
    if (value.is_string()) out[key] = value.get<std::string>();
  }
  return out;
}

bool typed(const ResourceRequest& r) { return r.info->storage == Storage::kTyped; }
std::string opaqueKey(const ResourceRequest& r) { return r.info->qualifiedName(); }

// The object's current JSON: the typed store first (its text kept in `texts` at the object's
// resourceVersion, encoded when not kept), then the opaque one.
Result<std::string> currentJson(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                                const ResourceRequest& r) {
  if (typed(r)) {
    auto found = visitStore(sim.state(), r.info->plural, [&](auto& store) -> Result<Reply> {
      const auto* object = store.find(r.ns, r.name);
      if (object == nullptr) return encoded(store.get(r.ns, r.name));  // its kNotFound
      return Reply{200, texts.text(r.info->qualifiedName(), object->metadata,
                                   [&] { return oneLineJson(*object); })};
    });
    if (found) return found->body;
    if (found.error().code != ErrorCode::kNotFound ||
        !opaque.contains(opaqueKey(r), r.ns, r.name)) {
      return std::unexpected(found.error());
    }
  }
  return opaque.get(opaqueKey(r), r.ns, r.name);
}

Result<Json> parseBody(std::string_view body) {
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail(ErrorCode::kInvalidArgument, "the request body is not a JSON object");
  }
  if (!j.contains("metadata") || !j["metadata"].is_object()) j["metadata"] = Json::object();
  return j;
}

// Puts the request's namespace and name into the body's metadata; kInvalidArgument when the
// body names another namespace (the API server's 400) or another name.
Result<std::string> withIdentity(const ResourceRequest& r, std::string_view body) {
  auto parsed = parseBody(body);
  if (!parsed) return std::unexpected(parsed.error());
  Json& meta = (*parsed)["metadata"];
  if (r.info->namespaced) {
    const std::string ns = meta.value("namespace", std::string());
    if (!ns.empty() && ns != r.ns) {
      return fail(ErrorCode::kInvalidArgument,
                  "the namespace of the provided object does not match the namespace sent on "
                  "the request");
    }
    meta["namespace"] = r.ns;
  }
  if (!r.name.empty()) {
    const std::string name = meta.value("name", std::string());
    if (!name.empty() && name != r.name) {
      return fail(ErrorCode::kInvalidArgument,
                  "the name of the object (" + name + ") does not match the name on the URL (" +
                      r.name + ")",
                  "metadata.name");
    }
    meta["name"] = r.name;
  }
  meta.erase("managedFields");
  return dump(*parsed);
}

// Drops the metadata fields the policy and defaults decoders do not know: they are not part of
// what Attune keeps.
void dropUnknownMetadata(Json& object) {
  Json& meta = object["metadata"];
  for (auto it = meta.begin(); it != meta.end();) {
    static constexpr std::string_view kKept[] = {
        "name",           "generateName",      "namespace",         "uid",    "resourceVersion",
        "generation",     "creationTimestamp", "deletionTimestamp", "labels", "annotations",
        "ownerReferences"};
    const bool kept = std::find(std::begin(kKept), std::end(kKept), it.key()) != std::end(kKept);
    it = kept ? std::next(it) : meta.erase(it);
  }
}

Result<api::AttunePolicy> decodePolicy(std::string_view json) {
  auto parsed = parseBody(json);
  if (!parsed) return std::unexpected(parsed.error());
  dropUnknownMetadata(*parsed);
  // The usual body holds only modelled fields and is read at once; the policy decoder reports
  // what else is there, or preserves it.
  if (auto policy = api::decodePolicyJson(*parsed)) return std::move(*policy);
  auto decoded = api::decodePolicies(dump(*parsed));
  if (decoded.size() != 1 || !decoded[0].policy) {
    return fail(ErrorCode::kInvalidArgument, "the body is not one AttunePolicy");
  }
  if (!decoded[0].errors.empty()) {
    const api::PolicyDiagnostic& d = decoded[0].errors.front();
    return std::unexpected(d.error);
  }
  return std::move(*decoded[0].policy);
}

// An AttuneDefaults (D = api::AttuneDefaults) or AttuneNamespaceDefaults as written by a user:
// decoded and validated as a validating webhook would (the first error, with its field path).
template <typename D>
Result<D> decodeDefaultsBody(std::string_view json, std::string_view kind) {
  auto parsed = parseBody(json);
  if (!parsed) return std::unexpected(parsed.error());
  dropUnknownMetadata(*parsed);
  (*parsed)["kind"] = kind;
  auto decoded = api::checkDefaults(dump(*parsed));
  if (decoded.size() != 1 || !decoded[0].defaults) {
    return fail(ErrorCode::kInvalidArgument, "the body is not one " + std::string(kind));
  }
  if (!decoded[0].errors.empty()) return std::unexpected(decoded[0].errors.front().error);
  D out;
  static_cast<api::AttuneDefaults&>(out) = std::move(*decoded[0].defaults);
  out.scope = std::is_same_v<D, api::AttuneNamespaceDefaults> ? api::DefaultsScope::kNamespace
                                                              : api::DefaultsScope::kCluster;
  out.sources = {};
  return out;
}

// CREATE (`create`) or UPDATE of a defaults object in `store`.
template <typename D>
Result<Reply> writeDefaults(ObjectStore<D>& store, const ResourceRequest& r, std::string_view json,
                            bool create) {
  auto defaults = decodeDefaultsBody<D>(json, r.info->kind);
  if (!defaults) return std::unexpected(defaults.error());
  if (create) {
    if (defaults->metadata.name.empty() && defaults->metadata.generateName.empty()) {
      return fail(ErrorCode::kInvalidArgument, "name or generateName is required", "metadata.name");
    }
    return encoded(store.create(std::move(*defaults)), 201);
  }
  return encoded(store.modify(
      r.ns, r.name, defaults->metadata.resourceVersion, [&](D& stored) -> Result<Change> {
        const bool spec =
            !(stored.spec == defaults->spec) || stored.preserved != defaults->preserved;
        if (!spec && stored.metadata.labels == defaults->metadata.labels &&
            stored.metadata.annotations == defaults->metadata.annotations) {
          return Change::kNone;
        }
        stored.spec = std::move(defaults->spec);
        stored.preserved = std::move(defaults->preserved);
        stored.metadata.labels = std::move(defaults->metadata.labels);
        stored.metadata.annotations = std::move(defaults->metadata.annotations);
        return spec ? Change::kSpec : Change::kMetadata;
      }));
}

// A change of the annotations only of a typed object the simulator owns: every other field of
// `after` must equal `before`.
Result<api::AnnotationChanges> annotationChanges(std::string_view before, std::string_view after,
                                                 std::string_view resource) {
  Json b = Json::parse(before, nullptr, false);
  auto parsedAfter = parseBody(after);
  if (!parsedAfter) return std::unexpected(parsedAfter.error());
  Json a = std::move(*parsedAfter);
  auto annotationsOf = [](Json& j) {
    Json out = j["metadata"].value("annotations", Json::object());
    for (const char* key : {"annotations", "resourceVersion", "managedFields"}) {
      j["metadata"].erase(key);
    }
    return out;
  };
  Json before_ = annotationsOf(b);
  Json after_ = annotationsOf(a);
  if (a != b) {
    return fail(ErrorCode::kUnsupported,
                std::string(resource) +
                    " of the simulated cluster accept changes to metadata.annotations only");
  }
  api::AnnotationChanges changes;
  for (const auto& [key, value] : before_.items()) {
    if (!after_.contains(key)) changes[key] = std::nullopt;
  }
  for (const auto& [key, value] : after_.items()) {
    if (!value.is_string()) {
      return fail(ErrorCode::kInvalidArgument, "annotation values must be strings",
                  "metadata.annotations." + key);
    }
    if (!before_.contains(key) || before_[key] != value) changes[key] = value.get<std::string>();
  }
  return changes;
}

std::optional<api::WorkloadKind> workloadKind(std::string_view plural) {
  if (plural == "deployments") return api::WorkloadKind::kDeployment;
  if (plural == "statefulsets") return api::WorkloadKind::kStatefulSet;
  if (plural == "daemonsets") return api::WorkloadKind::kDaemonSet;
  if (plural == "replicasets") return api::WorkloadKind::kReplicaSet;
  if (plural == "jobs") return api::WorkloadKind::kJob;
  if (plural == "cronjobs") return api::WorkloadKind::kCronJob;
  return std::nullopt;
}

// The typed kinds whose status subresource PUT and PATCH write (besides pods).
bool hasStatusSubresource(std::string_view plural) {
  return plural == "attunepolicies" || plural == "horizontalpodautoscalers" ||
         plural == "poddisruptionbudgets";
}

Result<Reply> updatePodStatus(Simulation& sim, const ResourceRequest& r, std::string_view body) {
  auto pod = api::decodePod(body);
  if (!pod) return std::unexpected(pod.error());
  return encoded(sim.state().pods.modify(r.ns, r.name, pod->metadata.resourceVersion,
                                         [&](api::Pod& stored) -> Result<Change> {
                                           if (stored.status == pod->status) return Change::kNone;
                                           stored.status = pod->status;
                                           return Change::kMetadata;
                                         }));
}

Result<Reply> updateNamespace(Simulation& sim, std::string_view body, std::string_view name) {
  auto ns = api::decodeNamespace(body);
  if (!ns) return std::unexpected(ns.error());
  return encoded(sim.state().namespaces.modify(
      "", name, ns->metadata.resourceVersion, [&](api::Namespace& stored) -> Result<Change> {
        if (stored.metadata.labels == ns->metadata.labels &&
            stored.metadata.annotations == ns->metadata.annotations) {
          return Change::kNone;
        }
        stored.metadata.labels = ns->metadata.labels;
        stored.metadata.annotations = ns->metadata.annotations;
        return Change::kMetadata;
      }));
}

// A node's PUT (or PATCH: kubectl taint, cordon, label, annotate): its taints through the
// ClusterApi, then spec.unschedulable, labels and annotations. Status stays the kubelet's.
Result<Reply> updateNode(Simulation& sim, std::string_view body, std::string_view name) {
  auto node = api::decodeNode(body);
  if (!node) return std::unexpected(node.error());
  const auto& meta = node->metadata;
  auto tainted = sim.api().updateNodeTaints(name, node->spec.taints, meta.resourceVersion);
  if (!tainted) return std::unexpected(tainted.error());
  return encoded(sim.state().nodes.modify("", name, "", [&](api::Node& stored) -> Result<Change> {
    if (stored.spec.unschedulable == node->spec.unschedulable &&
        stored.metadata.labels == meta.labels && stored.metadata.annotations == meta.annotations) {
      return Change::kNone;
    }
    const bool specChanged = stored.spec.unschedulable != node->spec.unschedulable;
    stored.spec.unschedulable = node->spec.unschedulable;
    stored.metadata.labels = meta.labels;
    stored.metadata.annotations = meta.annotations;
    return specChanged ? Change::kSpec : Change::kMetadata;
  }));
}

// A PodDisruptionBudget as written by a user: validated as the API server does (422 with the
// field), status dropped (the disruption controller owns it).
Result<api::PodDisruptionBudget> decodeBudget(std::string_view json) {
  auto pdb = api::decodePodDisruptionBudget(json);
  if (!pdb) return std::unexpected(pdb.error());
  const auto errors = api::validatePdbSpec(pdb->spec);
  if (!errors.empty()) {
    return fail(ErrorCode::kInvalidArgument, errors[0].message, joinPath("spec", errors[0].field));
  }
  pdb->status = {};
  return pdb;
}

Result<Reply> createBudget(Simulation& sim, std::string_view json) {
  auto pdb = decodeBudget(json);
  if (!pdb) return std::unexpected(pdb.error());
  if (pdb->metadata.name.empty() && pdb->metadata.generateName.empty()) {
    return fail(ErrorCode::kInvalidArgument, "name or generateName is required", "metadata.name");
  }
  return encoded(sim.state().pdbs.create(std::move(*pdb)), 201);
}

// PUT: spec, labels and annotations (generation + 1 when the spec changes); PUT on /status:
// the status only.
Result<Reply> updateBudget(Simulation& sim, const ResourceRequest& r, std::string_view json) {
  const bool status = r.subresource == "status";
  auto pdb = status ? api::decodePodDisruptionBudget(json) : decodeBudget(json);
  if (!pdb) return std::unexpected(pdb.error());
  return encoded(
      sim.state().pdbs.modify(r.ns, r.name, pdb->metadata.resourceVersion,
                              [&](api::PodDisruptionBudget& stored) -> Result<Change> {
                                if (status) {
                                  if (stored.status == pdb->status) return Change::kNone;
                                  stored.status = std::move(pdb->status);
                                  return Change::kMetadata;
                                }
                                const bool spec = !(stored.spec == pdb->spec);
                                if (!spec && stored.metadata.labels == pdb->metadata.labels &&
                                    stored.metadata.annotations == pdb->metadata.annotations) {
                                  return Change::kNone;
                                }
                                stored.spec = std::move(pdb->spec);
                                stored.metadata.labels = std::move(pdb->metadata.labels);
                                stored.metadata.annotations = std::move(pdb->metadata.annotations);
                                return spec ? Change::kSpec : Change::kMetadata;
                              }));
}

// Runs `admission` (when set) on a write of `object`: nullopt when admitted (`object` is then
// what the mutating webhooks made of it, and `warnings` holds their warnings), otherwise the
// refusal's Status reply.
std::optional<Reply> admitWrite(const WriteAdmission& admission, const ResourceRequest& r,
                                std::string_view operation, std::string& object,
                                const std::string& oldObject, std::vector<std::string>& warnings) {
  if (!admission) return std::nullopt;
  AdmissionVerdict verdict = admission(r, operation, object, oldObject);
  warnings = std::move(verdict.warnings);
  if (!verdict.allowed) {
    const api::ApiStatus refusal = verdict.status.value_or(
        api::ApiStatus{"Failure", "admission webhook denied the request", "BadRequest", 400});
    return Reply{refusal.code, api::encodeStatusJson(refusal), std::move(warnings)};
  }
  object = std::move(verdict.object);
  return std::nullopt;
}

// A policy write (CREATE or UPDATE of `json`) through the admission webhooks, then `write`.
template <typename Write>
Result<Reply> writePolicy(const WriteAdmission& admission, const ResourceRequest& r,
                          std::string_view operation, std::string json,
                          const std::string& oldObject, int status, Write&& write) {
  std::vector<std::string> warnings;
  if (auto refused = admitWrite(admission, r, operation, json, oldObject, warnings)) {
    return std::move(*refused);
  }
  auto policy = decodePolicy(json);
  if (!policy) return std::unexpected(policy.error());
  auto reply = encoded(write(*policy), status);
  if (reply) reply->warnings = std::move(warnings);
  return reply;
}

// The resize subresource goes through admission as an UPDATE of pods/resize, as on the API
// server: a validating webhook (a policy engine) may refuse it, a mutating one change it.
Result<Reply> resize(Simulation& sim, EncodedObjects& texts, const ResourceRequest& r,
                     std::string body, const WriteAdmission& admission) {
  if (admission) {
    auto current = sim.state().pods.get(r.ns, r.name);
    if (!current) return std::unexpected(current.error());
    std::vector<std::string> warnings;
    if (auto refused =
            admitWrite(admission, r, "UPDATE", body, api::encodeObjectJson(*current), warnings)) {
      return std::move(*refused);
    }
  }
  auto pod = api::decodePod(body);
  if (!pod) return std::unexpected(pod.error());
  std::vector<api::ContainerResize> containers;
  for (const auto* list : {&pod->spec.containers, &pod->spec.initContainers}) {
    for (const api::Container& c : *list) containers.push_back({c.name, c.resources});
  }
  auto resized = sim.api().resizePod(r.ns, r.name, containers);
  if (!resized) return std::unexpected(resized.error());
  return Reply{200, texts.text(r.info->qualifiedName(), resized->metadata,
                               [&] { return oneLineJson(*resized); })};
}

// Writes `changes` to the annotations of the pod or scenario workload `r` names (with the
// resourceVersion precondition unless empty) and answers with the object as stored then.
Result<Reply> writeAnnotations(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                               const ResourceRequest& r, const api::AnnotationChanges& changes,
                               const std::string& precondition) {
  if (r.info->plural == "pods") {
    auto patched = sim.api().patchPodAnnotations(r.ns, r.name, changes, precondition);
    if (!patched) return std::unexpected(patched.error());
    return getObject(sim, opaque, texts, r);
  }
  if (auto kind = workloadKind(r.info->plural)) {
    auto patched = sim.api().patchWorkloadAnnotations(*kind, r.ns, r.name, changes, precondition);
    if (!patched) return std::unexpected(patched.error());
    return getObject(sim, opaque, texts, r);
  }
  return fail(ErrorCode::kUnsupported,
              r.info->qualifiedName() + " of the simulated cluster are read-only");
}

// The annotation changes of `patch`, a merge patch on a stored pod or scenario workload, when it
// sets nothing but metadata.annotations (string values, or null to remove) and
// metadata.resourceVersion (a string: the precondition, returned in `precondition`); they are
// the changes annotationChanges finds between the object and the patched object. nullopt for
// any other patch or object, which the general path handles (with its errors).
std::optional<api::AnnotationChanges> annotationOnlyPatch(Simulation& sim, OpaqueStore& opaque,
                                                          const ResourceRequest& r,
                                                          std::string_view patch,
                                                          std::string& precondition) {
  const std::string_view plural = r.info->plural;
  if (!typed(r) || !r.subresource.empty() || (plural != "pods" && !workloadKind(plural))) {
    return std::nullopt;
  }
  const Json p = Json::parse(patch, nullptr, false);
  if (!p.is_object() || p.size() != 1 || !p.contains("metadata")) return std::nullopt;
  const Json& meta = p["metadata"];
  if (!meta.is_object()) return std::nullopt;
  const Json* annotations = nullptr;
  for (const auto& [key, value] : meta.items()) {
    if (key == "annotations" && value.is_object()) {
      annotations = &value;
    } else if (key == "resourceVersion" && value.is_string()) {
      precondition = value.get<std::string>();
    } else {
      return std::nullopt;
    }
  }
  if (opaque.contains(opaqueKey(r), r.ns, r.name)) return std::nullopt;
  const api::StringMap* stored = nullptr;
  (void)visitStore(sim.state(), plural, [&](auto& store) -> Result<Reply> {
    if (const auto* object = store.find(r.ns, r.name)) stored = &object->metadata.annotations;
    return Reply{};
  });
  if (stored == nullptr) return std::nullopt;
  api::AnnotationChanges changes;
  if (annotations == nullptr) return changes;
  for (const auto& [key, value] : annotations->items()) {
    const auto it = stored->find(key);
    if (value.is_null()) {
      if (it != stored->end()) changes[key] = std::nullopt;
    } else if (!value.is_string()) {
      return std::nullopt;
    } else if (it == stored->end() || it->second != value.get_ref<const std::string&>()) {
      changes[key] = value.get<std::string>();
    }
  }
  return changes;
}

}  // namespace

Result<Reply> getObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                        const ResourceRequest& r) {
  if (r.subresource == "eviction") {
    return fail(ErrorCode::kUnsupported, "the eviction subresource only accepts POST");
  }
  if (r.subresource == "scale") return getScale(sim, r);
  auto json = currentJson(sim, opaque, texts, r);
  if (!json) return std::unexpected(json.error());
  return Reply{200, std::move(*json)};
}

const std::string& EncodedObjects::text(const std::string& resource, const api::ObjectMeta& meta,
                                        const std::function<std::string()>& encode) {
  auto it = resources_.find(resource);
  if (it == resources_.end()) it = resources_.emplace(resource, Objects{}).first;
  Entry& entry = it->second[{meta.namespace_, meta.name}];
  if (entry.resourceVersion != meta.resourceVersion || entry.resourceVersion.empty()) {
    entry.json = encode();
    entry.resourceVersion = meta.resourceVersion;
  }
  return entry.json;
}

void EncodedObjects::put(const std::string& resource, const api::ObjectMeta& meta,
                         std::string json) {
  resources_[resource][{meta.namespace_, meta.name}] = Entry{meta.resourceVersion, std::move(json)};
}

void EncodedObjects::erase(const std::string& resource, const api::ObjectMeta& meta) {
  if (auto it = resources_.find(resource); it != resources_.end()) {
    it->second.erase({meta.namespace_, meta.name});
  }
}

std::size_t EncodedObjects::size() const {
  std::size_t n = 0;
  for (const auto& [resource, objects] : resources_) n += objects.size();
  return n;
}

Result<std::vector<KeyedItem>> listItems(Simulation& sim, OpaqueStore& opaque,
                                         const ResourceRequest& r, const api::LabelSelector& labels,
                                         const std::vector<FieldRequirement>& fields,
                                         EncodedObjects& encoded) {
  std::vector<KeyedItem> items;
  const api::ListOptions options{r.ns, labels};
  if (typed(r)) {
    const std::string resource = r.info->qualifiedName();
    auto listed = visitStore(sim.state(), r.info->plural, [&](auto& store) -> Result<Reply> {
      store.forEach([&](const auto& object) {
        if (!listMatches(options, object.metadata)) return;
        std::string json =
            encoded.text(resource, object.metadata, [&] { return oneLineJson(object); });
        if (fieldsMatch(fields, json)) {
          items.push_back({object.metadata.namespace_, object.metadata.name, std::move(json)});
        }
      });
      return Reply{};
    });
    if (!listed) return std::unexpected(listed.error());
  }
  const std::size_t typedCount = items.size();
  for (std::string& json : opaque.list(opaqueKey(r), r.ns)) {
    const Json meta = Json::parse(json)["metadata"];
    if (!api::selectorMatches(labels, labelsOf(meta)) || !fieldsMatch(fields, json)) continue;
    items.push_back({meta.value("namespace", std::string()), meta.value("name", std::string()),
                     std::move(json)});
  }
  if (typedCount != 0 && typedCount != items.size()) {
    std::ranges::stable_sort(items, [](const KeyedItem& a, const KeyedItem& b) {
      return std::tie(a.ns, a.name) < std::tie(b.ns, b.name);
    });
  }
  return items;
}

std::string encodeList(const ResourceInfo& info, const ListPage& page,
                       std::uint64_t resourceVersion) {
  Json metadata = {{"resourceVersion", std::to_string(resourceVersion)}};
  if (!page.continueToken.empty()) {
    metadata["continue"] = page.continueToken;
    metadata["remainingItemCount"] = page.remainingItemCount;
  }
  std::string out = dump(Json{{"apiVersion", info.apiVersion()},
                              {"kind", std::string(info.kind) + "List"},
                              {"metadata", std::move(metadata)}});
  out.pop_back();  // the closing brace: the pre-encoded items are spliced in
  out += ",\"items\":[";
  for (std::size_t i = 0; i < page.items.size(); ++i) {
    if (i > 0) out += ',';
    out += page.items[i];
  }
  out += "]}";
  return out;
}

Result<Reply> createObject(Simulation& sim, OpaqueStore& opaque, const ResourceRequest& r,
                           std::string_view body, const WriteAdmission& admission) {
  const std::string_view plural = r.info->plural;
  if (plural == "pods" && r.subresource == "eviction") {
    auto eviction = api::decodeEviction(body);
    if (!eviction) return std::unexpected(eviction.error());
    eviction->metadata.namespace_ = r.ns;
    eviction->metadata.name = r.name;
    if (auto ok = sim.api().evictPod(*eviction); !ok) return std::unexpected(ok.error());
    return Reply{201, api::encodeStatusJson(api::ApiStatus{"Success", "", "", 201})};
  }
  if (!r.subresource.empty() || !r.name.empty()) {
    return fail(ErrorCode::kUnsupported, "POST is served on collections and pods/eviction only");
  }
  auto json = withIdentity(r, body);
  if (!json) return std::unexpected(json.error());
  if (r.info->namespaced && sim.state().namespaces.find("", r.ns) == nullptr) {
    return std::unexpected(notFoundError("namespaces", r.ns));
  }
  if (plural == "namespaces") {
    auto ns = api::decodeNamespace(*json);
    if (!ns) return std::unexpected(ns.error());
    if (ns->metadata.name.empty()) {
      return fail(ErrorCode::kInvalidArgument, "name is required", "metadata.name");
    }
    if (sim.state().namespaces.find("", ns->metadata.name) != nullptr) {
      return fail(ErrorCode::kConflict, "namespaces \"" + ns->metadata.name + "\" already exists");
    }
    if (auto made = sim.state().ensureNamespace(ns->metadata.name); !made) {
      return std::unexpected(made.error());
    }
    auto updated = updateNamespace(sim, *json, ns->metadata.name);
    if (updated) updated->status = 201;
    return updated;
  }
  if (plural == "events") {
    auto event = api::decodeEvent(*json);
    if (!event) return std::unexpected(event.error());
    return encoded(sim.api().createEvent(*event), 201);
  }
  if (plural == "leases") {
    auto lease = api::decodeLease(*json);
    if (!lease) return std::unexpected(lease.error());
    return encoded(sim.api().createLease(*lease), 201);
  }
  if (plural == "attunepolicies") {
    return writePolicy(admission, r, "CREATE", *json, "", 201,
                       [&](const api::AttunePolicy& p) { return sim.api().createAttunePolicy(p); });
  }
  if (plural == "poddisruptionbudgets") return createBudget(sim, *json);
  if (plural == "attunedefaults") return writeDefaults(sim.state().attuneDefaults, r, *json, true);
  if (plural == "attunenamespacedefaults") {
    return writeDefaults(sim.state().attuneNamespaceDefaults, r, *json, true);
  }
  if (plural == "horizontalpodautoscalers") return encoded(createHpa(sim, *json), 201);
  if (plural == "pods") {
    return fail(ErrorCode::kUnsupported,
                "the simulated cluster creates pods from its workloads; POST pods is not served");
  }
  if (typed(r)) {
    // A kind the scenario fills: a new object is kept as given, without an effect.
    const std::string name = Json::parse(*json)["metadata"].value("name", std::string());
    auto exists = visitStore(sim.state(), plural, [&](auto& store) -> Result<Reply> {
      if (store.find(r.ns, name) != nullptr) {
        return fail(ErrorCode::kConflict,
                    r.info->qualifiedName() + " \"" + name + "\" already exists");
      }
      return Reply{};
    });
    if (!exists) return std::unexpected(exists.error());
  }
  auto created = opaque.create(opaqueKey(r), r.ns, *json, sim.clock().now());
  if (!created) return std::unexpected(created.error());
  return Reply{201, std::move(*created)};
}

Result<Reply> updateObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                           const ResourceRequest& r, std::string_view body,
                           const WriteAdmission& admission) {
  if (r.name.empty()) return fail(ErrorCode::kUnsupported, "PUT needs an object name");
  auto json = withIdentity(r, body);
  if (!json) return std::unexpected(json.error());
  const std::string_view plural = r.info->plural;
  const std::string& sub = r.subresource;
  if (!typed(r) || opaque.contains(opaqueKey(r), r.ns, r.name)) {
    if (!sub.empty() && sub != "status") {
      return fail(ErrorCode::kNotFound, "the server could not find the requested resource");
    }
    auto updated = opaque.update(opaqueKey(r), r.ns, r.name, *json);
    if (!updated) return std::unexpected(updated.error());
    return Reply{200, std::move(*updated)};
  }
  if (sub == "scale" && hasScaleSubresource(plural)) return updateScale(sim, r, *json);
  if (plural == "pods") {
    if (sub == "resize") return resize(sim, texts, r, *json, admission);
    if (sub == "status") return updatePodStatus(sim, r, *json);
    if (sub == "eviction") return fail(ErrorCode::kUnsupported, "eviction only accepts POST");
  } else if (!sub.empty() && !(hasStatusSubresource(plural) && sub == "status")) {
    return fail(ErrorCode::kNotFound, "the server could not find the requested resource");
  }
  if (plural == "namespaces") return updateNamespace(sim, *json, r.name);
  if (plural == "nodes") return updateNode(sim, *json, r.name);
  if (plural == "poddisruptionbudgets") return updateBudget(sim, r, *json);
  if (plural == "attunedefaults") return writeDefaults(sim.state().attuneDefaults, r, *json, false);
  if (plural == "attunenamespacedefaults") {
    return writeDefaults(sim.state().attuneNamespaceDefaults, r, *json, false);
  }
  if (plural == "events") {
    auto event = api::decodeEvent(*json);
    if (!event) return std::unexpected(event.error());
    return encoded(sim.api().updateEvent(*event));
  }
  if (plural == "leases") {
    auto lease = api::decodeLease(*json);
    if (!lease) return std::unexpected(lease.error());
    return encoded(sim.api().updateLease(*lease));
  }
  if (plural == "attunepolicies" && sub == "status") {
    auto policy = decodePolicy(*json);
    if (!policy) return std::unexpected(policy.error());
    return encoded(sim.api().updateAttunePolicyStatus(*policy));
  }
  if (plural == "attunepolicies") {
    auto old = currentJson(sim, opaque, texts, r);
    if (!old) return std::unexpected(old.error());
    return writePolicy(admission, r, "UPDATE", *json, *old, 200,
                       [&](const api::AttunePolicy& p) { return sim.api().updateAttunePolicy(p); });
  }
  if (plural == "horizontalpodautoscalers") {
    return encoded(updateHpa(sim, *json, sub));
  }
  // Pods and scenario workloads: annotations only.
  auto current = currentJson(sim, opaque, texts, r);
  if (!current) return std::unexpected(current.error());
  auto changes = annotationChanges(*current, *json, r.info->qualifiedName());
  if (!changes) return std::unexpected(changes.error());
  const std::string precondition =
      Json::parse(*json)["metadata"].value("resourceVersion", std::string());
  return writeAnnotations(sim, opaque, texts, r, *changes, precondition);
}

Result<Reply> patchObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                          const ResourceRequest& r, std::string_view patch, PatchType type,
                          const WriteAdmission& admission) {
  if (r.name.empty()) return fail(ErrorCode::kUnsupported, "PATCH needs an object name");
  std::string precondition;
  if (type == PatchType::kMerge) {
    if (auto changes = annotationOnlyPatch(sim, opaque, r, patch, precondition)) {
      return writeAnnotations(sim, opaque, texts, r, *changes, precondition);
    }
  }
  Result<std::string> current = std::string();
  if (r.subresource == "scale") {
    auto scale = getScale(sim, r);
    current = scale ? Result<std::string>(std::move(scale->body))
                    : Result<std::string>(std::unexpected(scale.error()));
  } else {
    current = currentJson(sim, opaque, texts, r);
  }
  if (!current) return std::unexpected(current.error());
  auto patched = applyPatch(*current, patch, type);
  if (!patched) return std::unexpected(patched.error());
  return updateObject(sim, opaque, texts, r, *patched, admission);
}

Result<Reply> deleteObject(Simulation& sim, OpaqueStore& opaque, EncodedObjects& texts,
                           const ResourceRequest& r) {
  if (r.name.empty() || !r.subresource.empty()) {
    return fail(ErrorCode::kUnsupported, "DELETE is served on single objects only");
  }
  if (!typed(r) || opaque.contains(opaqueKey(r), r.ns, r.name)) {
    auto erased = opaque.erase(opaqueKey(r), r.ns, r.name);
    if (!erased) return std::unexpected(erased.error());
    return Reply{200, std::move(*erased)};
  }
  const std::string_view plural = r.info->plural;
  if (plural == "pods") return encoded(sim.state().deletePod(r.ns, r.name));
  if (plural == "events") return encoded(sim.state().events.erase(r.ns, r.name));
  if (plural == "leases") return encoded(sim.state().leases.erase(r.ns, r.name));
  if (plural == "attunepolicies") return encoded(sim.state().attunePolicies.erase(r.ns, r.name));
  if (plural == "attunedefaults") return encoded(sim.state().attuneDefaults.erase("", r.name));
  if (plural == "attunenamespacedefaults") {
    return encoded(sim.state().attuneNamespaceDefaults.erase(r.ns, r.name));
  }
  if (plural == "horizontalpodautoscalers") return encoded(deleteHpa(sim, r.ns, r.name));
  if (plural == "namespaces") return encoded(sim.state().namespaces.erase("", r.name));
  if (plural == "poddisruptionbudgets") return encoded(sim.state().pdbs.erase(r.ns, r.name));
  auto exists = getObject(sim, opaque, texts, r);
  if (!exists) return exists;
  return fail(ErrorCode::kUnsupported,
              r.info->qualifiedName() + " \"" + r.name +
                  "\" belongs to the simulated scenario and cannot be deleted");
}

void recordChanges(ClusterState& state, WatchLog* log, EncodedObjects* encoded) {
  for (const ResourceInfo& info : servedResources()) {
    if (info.storage != Storage::kTyped) continue;
    const std::string resource = info.qualifiedName();
    (void)visitStore(state, info.plural, [&](auto& store) -> Result<Reply> {
      using Object = std::decay_t<decltype(*store.find("", ""))>;
      if (log == nullptr) {
        store.setWatchObserver(nullptr);
        return Reply{};
      }
      // The objects stored now are encoded at once, so that the first list finds them too.
      if (encoded != nullptr) {
        store.forEach([&](const Object& object) {
          (void)encoded->text(resource, object.metadata, [&] { return oneLineJson(object); });
        });
      }
      store.setWatchObserver([log, encoded, resource](api::WatchEventType type,
                                                      const Object& object) {
        const api::ObjectMeta& meta = object.metadata;
        std::string json = oneLineJson(object);
        if (encoded != nullptr) {
          if (type == api::WatchEventType::kDeleted) {
            encoded->erase(resource, meta);
          } else {
            encoded->put(resource, meta, json);
          }
        }
        log->append(LoggedEvent{parseResourceVersion(meta.resourceVersion).value_or(0), resource,
                                type, meta.namespace_, meta.name, meta.labels, std::move(json)});
      });
      return Reply{};
    });
  }
}

}  // namespace attune::sim::serve
