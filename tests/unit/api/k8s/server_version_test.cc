// The Kubernetes version of GET /version: parsing gitVersion, the major/minor fallback, the
// ordering the resize rules use, and the body the simulated server answers.
#include "api/k8s/server_version.h"

#include <gtest/gtest.h>

namespace attune::api {
namespace {

TEST(ServerVersionTest, ParsesGitVersionsWithProviderSuffixes) {
  auto v = parseServerVersion("v1.34.1");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 1);
  EXPECT_EQ(v->minor, 34);
  EXPECT_EQ(v->patch, 1);
  EXPECT_EQ(parseServerVersion("v1.33.5-gke.1000")->minor, 33);
  EXPECT_EQ(parseServerVersion("v1.35.0+k3s1")->minor, 35);
  EXPECT_EQ(parseServerVersion("1.30")->minor, 30);
  for (const char* bad : {"", "v1", "vx.y.z", "v1.34.1x", "1.", "v1.a"}) {
    auto r = parseServerVersion(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().field, "gitVersion");
  }
}

TEST(ServerVersionTest, OrdersByMajorMinorPatch) {
  EXPECT_TRUE(parseServerVersion("v1.34.0")->atLeast(1, 34));
  EXPECT_FALSE(parseServerVersion("v1.33.9")->atLeast(1, 34));
  EXPECT_TRUE(parseServerVersion("v2.0.0")->atLeast(1, 34));
  EXPECT_LT(*parseServerVersion("v1.33.9"), *parseServerVersion("v1.34.0"));
}

TEST(ServerVersionTest, DecodesTheVersionBodyWithTheMajorMinorFallback) {
  auto v = decodeServerVersion(R"({"major":"1","minor":"34","gitVersion":"v1.34.2"})");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->patch, 2);
  auto plus = decodeServerVersion(R"({"major":"1","minor":"33+","gitVersion":"custom"})");
  ASSERT_TRUE(plus) << plus.error().toString();
  EXPECT_EQ(plus->minor, 33);
  auto bad = decodeServerVersion(R"({"major":"1","minor":"x"})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "minor");
  EXPECT_FALSE(decodeServerVersion("not json"));
}

TEST(ServerVersionTest, EncodesWhatItDecodes) {
  const ServerVersion v = *parseServerVersion("v1.33.4");
  auto back = decodeServerVersion(encodeServerVersion(v));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, v);
  EXPECT_EQ(back->gitVersion, "v1.33.4");
}

}  // namespace
}  // namespace attune::api
