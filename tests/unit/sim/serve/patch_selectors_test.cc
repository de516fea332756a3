// patch_apply.h and selectors.h: the patch types kubectl sends and the list selectors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/serve/patch_apply.h"
#include "sim/serve/selectors.h"

namespace attune::sim::serve {
namespace {

using nlohmann::json;

json patched(const char* doc, const char* patch, PatchType type) {
  auto out = applyPatch(doc, patch, type);
  EXPECT_TRUE(out) << out.error().toString();
  return out ? json::parse(*out) : json();
}

TEST(ApplyPatch, MergePatchSetsAndDeletes) {
  EXPECT_EQ(patched(R"({"metadata":{"annotations":{"a":"1","b":"2"}},"spec":{"x":[1,2]}})",
                    R"({"metadata":{"annotations":{"a":null,"c":"3"}},"spec":{"x":[3]}})",
                    PatchType::kMerge),
            json::parse(R"({"metadata":{"annotations":{"b":"2","c":"3"}},"spec":{"x":[3]}})"));
}

TEST(ApplyPatch, StrategicMergeMergesContainersByName) {
  const char* pod =
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"}}},)"
      R"({"name":"side","image":"s"}]}})";
  const char* patch =
      R"({"spec":{"$setElementOrder/containers":[{"name":"app"}],)"
      R"("containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":null}}}]}})";
  EXPECT_EQ(patched(pod, patch, PatchType::kStrategicMerge),
            json::parse(R"({"spec":{"containers":[{"name":"app","resources":{"requests":)"
                        R"({"cpu":"500m"}}},{"name":"side","image":"s"}]}})"));
  // A merge patch replaces the list instead.
  EXPECT_EQ(patched(pod, patch, PatchType::kMerge)["spec"]["containers"].size(), 1u);
}

TEST(ApplyPatch, JsonPatchAndErrors) {
  EXPECT_EQ(patched(R"({"a":1})", R"([{"op":"add","path":"/b","value":2}])", PatchType::kJsonPatch),
            json::parse(R"({"a":1,"b":2})"));
  EXPECT_FALSE(
      applyPatch(R"({"a":1})", R"([{"op":"remove","path":"/zz"}])", PatchType::kJsonPatch));
  EXPECT_FALSE(applyPatch(R"({"a":1})", "not json", PatchType::kMerge));
  EXPECT_EQ(patchTypeOf("application/strategic-merge-patch+json; charset=utf-8"),
            PatchType::kStrategicMerge);
  EXPECT_FALSE(patchTypeOf("application/apply-patch+yaml"));
}

TEST(Selectors, ParsesEveryLabelRequirementForm) {
  auto s = parseLabelSelector("app=web,tier!=db,env in (a, b),!legacy,team,zone notin (x)");
  ASSERT_TRUE(s) << s.error().toString();
  EXPECT_EQ(s->matchLabels.at("app"), "web");
  ASSERT_EQ(s->matchExpressions.size(), 5u);
  EXPECT_EQ(s->matchExpressions[0].operator_, "NotIn");
  EXPECT_EQ(s->matchExpressions[1].values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s->matchExpressions[2].operator_, "DoesNotExist");
  EXPECT_EQ(s->matchExpressions[3].operator_, "Exists");
  EXPECT_TRUE(api::selectorMatches(*s, {{"app", "web"}, {"env", "a"}, {"team", "t"}}));
  EXPECT_FALSE(api::selectorMatches(*s, {{"app", "web"}, {"env", "c"}, {"team", "t"}}));
  EXPECT_FALSE(parseLabelSelector("env in (a"));
}

TEST(Selectors, FieldSelectorsMatchJsonPaths) {
  auto f = parseFieldSelector("involvedObject.name=web,type!=Normal");
  ASSERT_TRUE(f);
  EXPECT_TRUE(fieldsMatch(*f, R"({"involvedObject":{"name":"web"},"type":"Warning"})"));
  EXPECT_FALSE(fieldsMatch(*f, R"({"involvedObject":{"name":"web"},"type":"Normal"})"));
  EXPECT_FALSE(fieldsMatch(*f, R"({"type":"Warning"})"));
  EXPECT_FALSE(parseFieldSelector("novalue"));
}

}  // namespace
}  // namespace attune::sim::serve
