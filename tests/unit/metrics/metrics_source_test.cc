#include "metrics/metrics_source.h"

#include <gtest/gtest.h>

namespace attune::metrics {
namespace {

TEST(Scope, ContainsItsNamespacesOrAllOfThem) {
  EXPECT_TRUE(Scope{}.contains("anything"));
  const Scope shop{{"shop", "data"}, {}};
  EXPECT_TRUE(shop.contains("shop"));
  EXPECT_TRUE(shop.contains("data"));
  EXPECT_FALSE(shop.contains("ops"));
}

TEST(Scope, IncludesContainersInItsNamespacesThatAreNotExcluded) {
  const Scope scope{{"shop"}, {"istio-proxy", "linkerd-proxy"}};
  EXPECT_TRUE(scope.includes({"shop", "web-1", "app"}));
  EXPECT_FALSE(scope.includes({"shop", "web-1", "istio-proxy"}));
  EXPECT_FALSE(scope.includes({"shop", "web-1", "linkerd-proxy"}));
  EXPECT_FALSE(scope.includes({"ops", "agent-1", "app"})) << "namespace out of scope";
  EXPECT_TRUE(scope.excludes("istio-proxy"));
  EXPECT_FALSE(scope.excludes("istio"));  // names match exactly, not as prefixes or patterns

  const Scope everywhere{{}, {"a.b"}};
  EXPECT_TRUE(everywhere.includes({"any", "p", "app"}));
  EXPECT_FALSE(everywhere.includes({"any", "p", "a.b"}));
  EXPECT_TRUE(everywhere.includes({"any", "p", "axb"}));
  EXPECT_TRUE(Scope{}.includes({"any", "p", "istio-proxy"})) << "nothing excluded by default";
}

}  // namespace
}  // namespace attune::metrics
