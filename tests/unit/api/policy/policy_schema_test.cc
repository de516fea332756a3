// The schema tables (policy_schema.h): publicFields() equals the public Attune CRD's AttunePolicy
// schema in both directions, the tables are disjoint, and every field the decoder models is
// classified in one of them.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "api/policy/extension_schema.h"
#include "api/policy/policy_fields.h"
#include "api/policy/public_schema.h"
#include "crd_schema.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

using internal::FieldOrigin;
using internal::SchemaField;
using FieldKey = std::pair<std::string, std::string>;  // (owner, name)

std::set<FieldKey> keysOf(std::span<const SchemaField> table) {
  std::set<FieldKey> out;
  for (const SchemaField& f : table) out.emplace(f.owner, f.name);
  return out;
}

std::set<std::string> ownersOf(std::span<const SchemaField> table) {
  std::set<std::string> out;
  for (const SchemaField& f : table) out.emplace(f.owner);
  return out;
}

TEST(PolicySchemaTest, TablesAreDisjoint) {
  const auto publicKeys = keysOf(internal::publicFields());
  const auto kubernetesKeys = keysOf(internal::kubernetesMetadataFields());
  for (const auto& key : keysOf(internal::extensionFields())) {
    EXPECT_FALSE(publicKeys.contains(key)) << key.first << "." << key.second;
    EXPECT_FALSE(kubernetesKeys.contains(key)) << key.first << "." << key.second;
  }
  for (const auto& key : kubernetesKeys) {
    EXPECT_FALSE(publicKeys.contains(key)) << key.first << "." << key.second;
  }
}

// "public", "kubernetes", "extension" or "unknown" for field `name` of `owner`.
std::string originOf(std::string_view owner, std::string_view name) {
  const auto known = internal::findField(owner, name);
  if (!known) return "unknown";
  switch (known->origin) {
    case FieldOrigin::kPublic:
      return "public";
    case FieldOrigin::kKubernetes:
      return "kubernetes";
    case FieldOrigin::kExtension:
      return "extension";
  }
  return "unknown";
}

TEST(PolicySchemaTest, FindFieldReportsTheOrigin) {
  EXPECT_EQ(originOf("ResourceConfig", "percentile"), "public");
  EXPECT_EQ(originOf("ObjectMeta", "managedFields"), "kubernetes");
  EXPECT_EQ(originOf("ResourceConfig", "limitMultiplier"), "extension");
  EXPECT_EQ(originOf("AttunePolicySpec", "strategy"), "extension");
  EXPECT_EQ(originOf("AttunePolicySpec", "containerPolicies"), "extension");
  EXPECT_EQ(originOf("ResourceConfig", "percentil"), "unknown");
  EXPECT_EQ(internal::findField("UpdateStrategy", "schedule")->type, "ResizeSchedule");
}

// A visitor for internal::fields() that records every (owner, field, object type) the decoder
// models, descending into nested structs.
class ModeledFields {
 public:
  void type(std::string_view owner) { owner_ = owner; }
  template <typename T>
  void operator()(const char* name, T&) {
    add(name, "");
  }
  template <typename T>
  void object(const char* name, T& member) {
    add(name, nested(member));
  }
  template <typename T>
  void object(const char* name, std::optional<T>&) {
    T member{};
    add(name, nested(member));
  }
  template <typename T>
  void list(const char* name, std::vector<T>&) {
    T member{};
    add(name, "[]" + nested(member));
  }
  template <typename Body>
  void inlined(const char* name, std::string_view type, Body body) {
    add(name, std::string(type));
    ModeledFields inner;
    inner.type(type);
    body(inner);
    merge(inner);
  }

  std::map<FieldKey, std::string> fields;  // (owner, name) → object type, "" for non-objects

 private:
  template <typename T>
  std::string nested(T& member) {
    ModeledFields inner;
    internal::fields(inner, member);
    merge(inner);
    return std::string(inner.owner_);
  }
  void add(const char* name, std::string objectType) {
    fields[{std::string(owner_), name}] = std::move(objectType);
  }
  void merge(const ModeledFields& inner) {
    fields.insert(inner.fields.begin(), inner.fields.end());
  }

  std::string_view owner_;
};

TEST(PolicySchemaTest, EveryModeledFieldIsPublicKubernetesOrAnExtension) {
  ModeledFields modeled;
  AttunePolicy policy;
  internal::fields(modeled, policy);
  ASSERT_GT(modeled.fields.size(), 50u);
  std::set<FieldKey> modeledExtensions;
  for (const auto& [key, objectType] : modeled.fields) {
    SCOPED_TRACE(key.first + "." + key.second);
    const auto known = internal::findField(key.first, key.second);
    ASSERT_TRUE(known) << "modeled but in no schema table";
    if (!objectType.empty()) {
      EXPECT_EQ(known->type, objectType);
    }
    if (known->origin == FieldOrigin::kExtension) modeledExtensions.insert(key);
  }
  // What Attune adds and implements; docs/policy.md lists these as extensions.
  EXPECT_EQ(modeledExtensions, (std::set<FieldKey>{{"AttunePolicySpec", "nodeOptimization"},
                                                   {"AttunePolicySpec", "strategy"},
                                                   {"NodeOptimization", "enabled"},
                                                   {"NodeOptimization", "evictionRanking"},
                                                   {"AttunePolicyStatus", "consecutiveReverts"},
                                                   {"AttunePolicyStatus", "lastResizeTime"},
                                                   {"AttunePolicyStatus", "observedGeneration"},
                                                   {"ContainerRecommendation", "rationale"},
                                                   {"ResizeHistoryEntry", "pod"},
                                                   {"CanaryStatus", "workloads"},
                                                   {"CanaryWorkloadStatus", "workload"},
                                                   {"CanaryWorkloadStatus", "phase"},
                                                   {"CanaryWorkloadStatus", "pods"},
                                                   {"CanaryWorkloadStatus", "startTime"}}));
}

// The public CRD's metadata is a free-form object standing for Kubernetes' ObjectMeta.
bool isKubernetesMetadataType(std::string_view type) {
  return internal::fieldsOf(internal::publicFields(), type).empty() &&
         !internal::fieldsOf(internal::kubernetesMetadataFields(), type).empty();
}

TEST(PolicySchemaTest, PublicFieldsAreExactlyThePublicCrdFields) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  const auto crd = shared / "fixtures/attune-public-crds/attune.io_attunepolicies.yaml";
  ASSERT_TRUE(std::filesystem::exists(crd)) << crd << " is missing from " << shared;
  std::set<std::string> ownersSeen;
  std::size_t fieldsSeen = 0;
  for (const testing::CrdObject& object : testing::crdObjects(testing::openApiSchema(crd))) {
    SCOPED_TRACE("at " + (object.path.empty() ? std::string("the document root") : object.path) +
                 " (" + object.owner + ")");
    ownersSeen.insert(object.owner);
    std::set<std::string> inCrd;
    for (const auto& entry : object.schema["properties"]) {
      const std::string name = entry.first.as<std::string>();
      inCrd.insert(name);
      const auto known = internal::findField(object.owner, name);
      if (!known || known->origin != FieldOrigin::kPublic) {
        ADD_FAILURE() << "the public CRD has " << object.owner << "." << name
                      << ", publicFields() does not";
        continue;
      }
      ++fieldsSeen;
      const std::string shape = testing::shapeOf(entry.second);
      if (shape == "free-form object") {
        EXPECT_TRUE(isKubernetesMetadataType(known->type)) << name << ": " << known->type;
      } else {
        EXPECT_EQ(testing::shapeOfType(known->type), shape) << name << ": " << known->type;
      }
    }
    for (const SchemaField& f : internal::fieldsOf(internal::publicFields(), object.owner)) {
      EXPECT_TRUE(inCrd.contains(std::string(f.name)))
          << "publicFields() has " << f.owner << "." << f.name << ", the public CRD does not";
    }
  }
  for (const std::string& owner : ownersOf(internal::publicFields())) {
    EXPECT_TRUE(ownersSeen.contains(owner))
        << "publicFields() lists type " << owner << ", which the public CRD never uses";
  }
  EXPECT_GE(fieldsSeen, internal::publicFields().size());
}

}  // namespace
}  // namespace attune::api
