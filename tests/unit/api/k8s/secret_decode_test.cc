// Secret decoding: data base64-decoded, stringData merged over it, error paths.
#include <gtest/gtest.h>

#include "api/k8s/decode.h"

namespace attune::api {
namespace {

TEST(K8sSecretDecode, DataIsBase64Decoded) {
  auto secret = decodeSecret(R"({
    "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
    "metadata": {"name": "prom-token", "namespace": "apps", "resourceVersion": "7"},
    "data": {"token": "czNjcmV0LXRva2Vu", "empty": ""}
  })");
  ASSERT_TRUE(secret) << secret.error().toString();
  EXPECT_EQ(secret->metadata.name, "prom-token");
  EXPECT_EQ(secret->metadata.namespace_, "apps");
  EXPECT_EQ(secret->type, "Opaque");
  EXPECT_EQ(secret->data.at("token"), "s3cret-token");
  EXPECT_EQ(secret->data.at("empty"), "");
}

TEST(K8sSecretDecode, StringDataWinsOverData) {
  // stringData before data in the document: the merge does not depend on the order.
  auto secret = decodeSecret(R"({
    "metadata": {"name": "t", "namespace": "apps"},
    "stringData": {"token": "plain-token"},
    "data": {"token": "czNjcmV0LXRva2Vu", "other": "b3RoZXI="}
  })");
  ASSERT_TRUE(secret) << secret.error().toString();
  EXPECT_EQ(secret->data.at("token"), "plain-token");
  EXPECT_EQ(secret->data.at("other"), "other");
}

TEST(K8sSecretDecode, NonBase64DataNamesTheKey) {
  auto secret = decodeSecret(R"({"metadata": {"name": "t"}, "data": {"token": "not base64!"}})");
  ASSERT_FALSE(secret);
  EXPECT_EQ(secret.error().field, "data.token");
  EXPECT_EQ(secret.error().message, "is not valid base64");
}

}  // namespace
}  // namespace attune::api
