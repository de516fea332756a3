#include "kube/kubeconfig.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace attune::kube {
namespace {

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("attune_kubeconfig_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path dir_;
};

// base64("CA-PEM") = "Q0EtUEVN", base64("CERT") = "Q0VSVA==", base64("KEY") = "S0VZ".
constexpr const char* kConfig = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://dev.example:6443/
    certificate-authority-data: Q0EtUEVN
- name: prod-cluster
  cluster:
    server: https://prod.example
    certificate-authority: certs/ca.crt
    insecure-skip-tls-verify: true
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user, namespace: team}
- name: prod
  context: {cluster: prod-cluster, user: prod-user}
- name: exec
  context: {cluster: dev-cluster, user: exec-user}
- name: nouser
  context: {cluster: dev-cluster}
users:
- name: dev-user
  user:
    token: abc123
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: prod-user
  user:
    tokenFile: token
    client-certificate: /abs/client.crt
    client-key: keys/client.key
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
)";

TEST_F(KubeconfigTest, LoadsTheCurrentContext) {
  const auto path = write("config", kConfig);
  auto c = loadKubeconfig(path);
  ASSERT_TRUE(c.has_value()) << c.error().toString();
  EXPECT_EQ(c->server, "https://dev.example:6443");
  EXPECT_EQ(c->namespace_, "team");
  EXPECT_EQ(c->context, "dev");
  EXPECT_EQ(c->user, "dev-user");
  EXPECT_EQ(c->http.caData, "CA-PEM");
  EXPECT_EQ(c->http.bearerToken, "abc123");
  EXPECT_EQ(c->http.clientCertData, "CERT");
  EXPECT_EQ(c->http.clientKeyData, "KEY");
  EXPECT_FALSE(c->http.insecureSkipVerify);
}

TEST_F(KubeconfigTest, LoadsAnExplicitContextWithPathsRelativeToTheFile) {
  const auto path = write("config", kConfig);
  write("token", "t0k3n\n");
  auto c = loadKubeconfig(path, "prod");
  ASSERT_TRUE(c.has_value()) << c.error().toString();
  EXPECT_EQ(c->server, "https://prod.example");
  EXPECT_EQ(c->namespace_, "default");
  EXPECT_EQ(c->http.caFile, dir_ / "certs/ca.crt");
  EXPECT_TRUE(c->http.insecureSkipVerify);
  EXPECT_EQ(c->http.bearerTokenFile, dir_ / "token");
  EXPECT_EQ(c->http.clientCertFile, "/abs/client.crt");
  EXPECT_EQ(c->http.clientKeyFile, dir_ / "keys/client.key");
}

TEST_F(KubeconfigTest, AContextWithoutAUserSendsNoCredentials) {
  auto c = loadKubeconfig(write("config", kConfig), "nouser");
  ASSERT_TRUE(c.has_value()) << c.error().toString();
  EXPECT_TRUE(c->http.bearerToken.empty());
  EXPECT_TRUE(c->user.empty());
}

TEST_F(KubeconfigTest, AnExecUserIsUnsupportedAndNamed) {
  const auto path = write("config", kConfig);
  auto c = loadKubeconfig(path, "exec");
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(c.error().message.find("\"exec-user\""), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find(path.string()), std::string::npos);
  EXPECT_EQ(c.error().field, "users[2].user.exec");
}

struct BadCase {
  std::string name;
  std::string text;
  std::string context;
  ErrorCode code;
  std::string field;
};

TEST_F(KubeconfigTest, EveryErrorNamesTheFileAndField) {
  const std::string cluster = "clusters:\n- name: c\n  cluster: {server: https://x}\n";
  const std::string context = "contexts:\n- name: k\n  context: {cluster: c, user: u}\n";
  const std::vector<BadCase> cases = {
      {"syntax", "clusters: [", "", ErrorCode::kInvalidArgument, ""},
      {"not a map", "- a\n- b\n", "", ErrorCode::kInvalidArgument, ""},
      {"no current context", cluster + context, "", ErrorCode::kNotFound, "current-context"},
      {"unknown context", cluster + context, "other", ErrorCode::kNotFound, "contexts"},
      {"unknown cluster", context + "users:\n- name: u\n  user: {}\n", "k", ErrorCode::kNotFound,
       "clusters"},
      {"unknown user", cluster + context, "k", ErrorCode::kNotFound, "users"},
      {"no server", "clusters:\n- name: c\n  cluster: {}\n" + context, "k",
       ErrorCode::kInvalidArgument, "clusters[0].cluster.server"},
      {"server not a string", "clusters:\n- name: c\n  cluster: {server: [1]}\n" + context, "k",
       ErrorCode::kInvalidArgument, "clusters[0].cluster.server"},
      {"bad ca base64",
       "clusters:\n- name: c\n  cluster: {server: https://x, certificate-authority-data: '%%'}\n" +
           context,
       "k", ErrorCode::kInvalidArgument, "clusters[0].cluster.certificate-authority-data"},
      {"bad insecure flag",
       "clusters:\n- name: c\n  cluster: {server: https://x, insecure-skip-tls-verify: maybe}\n" +
           context,
       "k", ErrorCode::kInvalidArgument, "clusters[0].cluster.insecure-skip-tls-verify"},
      {"bad key base64", cluster + context + "users:\n- name: u\n  user: {client-key-data: '!'}\n",
       "k", ErrorCode::kInvalidArgument, "users[0].user.client-key-data"},
      {"cert without key",
       cluster + context + "users:\n- name: u\n  user: {client-certificate: a.crt}\n", "k",
       ErrorCode::kInvalidArgument, "users[0].user.client-key"},
      {"missing token file", cluster + context + "users:\n- name: u\n  user: {tokenFile: nope}\n",
       "k", ErrorCode::kNotFound, "users[0].user.tokenFile"},
      {"auth provider",
       cluster + context + "users:\n- name: u\n  user: {auth-provider: {name: gcp}}\n", "k",
       ErrorCode::kUnsupported, "users[0].user.auth-provider"},
  };
  for (const auto& bad : cases) {
    const auto path = write("bad", bad.text);
    auto c = loadKubeconfig(path, bad.context);
    ASSERT_FALSE(c.has_value()) << bad.name;
    EXPECT_EQ(c.error().code, bad.code) << bad.name << ": " << c.error().message;
    EXPECT_EQ(c.error().field, bad.field) << bad.name << ": " << c.error().message;
    EXPECT_TRUE(c.error().message.starts_with("kubeconfig " + path.string()))
        << bad.name << ": " << c.error().message;
  }
  auto missing = loadKubeconfig(dir_ / "absent");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST_F(KubeconfigTest, ParsesTextAsTheFileAtAPathWithoutReadingIt) {
  const auto path = dir_ / "not-written";
  write("token", "t0k3n\n");
  auto c = parseKubeconfig(kConfig, path, "prod");
  ASSERT_TRUE(c.has_value()) << c.error().toString();
  EXPECT_EQ(c->server, "https://prod.example");
  EXPECT_EQ(c->http.caFile, dir_ / "certs/ca.crt");
  EXPECT_EQ(c->http.bearerTokenFile, dir_ / "token");
  EXPECT_EQ(c->http.clientKeyFile, dir_ / "keys/client.key");

  auto current = parseKubeconfig(kConfig, path);
  auto loaded = loadKubeconfig(write("config", kConfig));
  ASSERT_TRUE(current.has_value() && loaded.has_value());
  EXPECT_EQ(current->server, loaded->server);
  EXPECT_EQ(current->context, "dev");
  EXPECT_EQ(current->http.clientKeyData, loaded->http.clientKeyData);

  auto bad = parseKubeconfig("clusters: [", path);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(bad.error().message.starts_with("kubeconfig " + path.string()))
      << bad.error().message;
}

TEST_F(KubeconfigTest, InClusterReadsTheServiceAccountMount) {
  InClusterPaths paths{write("token", "sa-token\n"), write("ca.crt", "PEM"),
                       write("namespace", "attune-system\n")};
  std::map<std::string, std::string, std::less<>> env{{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                                      {"KUBERNETES_SERVICE_PORT", "443"}};
  const EnvLookup lookup = [&env](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional(it->second);
  };
  auto c = loadInClusterConfig(paths, lookup);
  ASSERT_TRUE(c.has_value()) << c.error().toString();
  EXPECT_EQ(c->server, "https://10.0.0.1:443");
  EXPECT_EQ(c->namespace_, "attune-system");
  EXPECT_EQ(c->http.bearerTokenFile, paths.tokenFile);  // re-read on rotation by the client
  EXPECT_EQ(c->http.caFile, paths.caFile);

  env["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  EXPECT_EQ(loadInClusterConfig(paths, lookup)->server, "https://[fd00::1]:443");

  std::filesystem::remove(paths.namespaceFile);
  EXPECT_EQ(loadInClusterConfig(paths, lookup)->namespace_, "default");

  std::filesystem::remove(paths.caFile);
  auto noCa = loadInClusterConfig(paths, lookup);
  ASSERT_FALSE(noCa.has_value());
  EXPECT_EQ(noCa.error().code, ErrorCode::kNotFound);

  std::filesystem::remove(paths.tokenFile);
  EXPECT_EQ(loadInClusterConfig(paths, lookup).error().code, ErrorCode::kNotFound);

  env.erase("KUBERNETES_SERVICE_PORT");
  auto notInCluster = loadInClusterConfig(paths, lookup);
  ASSERT_FALSE(notInCluster.has_value());
  EXPECT_NE(notInCluster.error().message.find("KUBERNETES_SERVICE_HOST"), std::string::npos);
}

}  // namespace
}  // namespace attune::kube
