#include "kube/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "api/k8s/base64.h"

namespace attune::kube {
namespace {

// Reads one kubeconfig; every error names the file.
class KubeconfigReader {
 public:
  explicit KubeconfigReader(std::filesystem::path path) : path_(std::move(path)) {}

  std::unexpected<Error> error(ErrorCode code, const std::string& message,
                               const std::string& field = {}) const {
    std::string where = "kubeconfig " + path_.string();
    if (!field.empty()) where += ": " + field;
    return fail(code, where + ": " + message, field);
  }

  // The entry named `name` of the list `listKey` ("clusters", "contexts", "users") and its
  // index; kNotFound when absent.
  Result<std::pair<YAML::Node, size_t>> entry(const YAML::Node& root, const std::string& listKey,
                                              const std::string& name,
                                              const std::string& what) const {
    const YAML::Node list = root[listKey];
    if (list && !list.IsSequence())
      return error(ErrorCode::kInvalidArgument, "not a list", listKey);
    if (list) {
      for (size_t i = 0; i < list.size(); ++i) {
        const YAML::Node item = list[i];
        if (item.IsMap() && item["name"] && item["name"].IsScalar() &&
            item["name"].Scalar() == name) {
          return std::pair{item, i};
        }
      }
    }
    return error(ErrorCode::kNotFound, what + " \"" + name + "\" not found", listKey);
  }

  // A scalar field of `node` ("" when absent); kInvalidArgument when not a scalar.
  Result<std::string> scalar(const YAML::Node& node, const char* key,
                             const std::string& path) const {
    const YAML::Node value = node[key];
    if (!value || value.IsNull()) return std::string();
    if (!value.IsScalar()) {
      return error(ErrorCode::kInvalidArgument, "expected a string", joinPath(path, key));
    }
    return value.Scalar();
  }

  Result<std::string> base64Field(const YAML::Node& node, const char* key,
                                  const std::string& path) const {
    auto text = scalar(node, key, path);
    if (!text || text->empty()) return text;
    std::string compact;
    for (char c : *text) {
      if (c != '\n' && c != '\r' && c != ' ' && c != '\t') compact += c;
    }
    auto decoded = api::base64Decode(compact);
    if (!decoded) {
      return error(ErrorCode::kInvalidArgument, "not valid base64", joinPath(path, key));
    }
    return *decoded;
  }

  // A path field, resolved against the kubeconfig's directory.
  Result<std::filesystem::path> fileField(const YAML::Node& node, const char* key,
                                          const std::string& path) const {
    auto text = scalar(node, key, path);
    if (!text) return std::unexpected(text.error());
    if (text->empty()) return std::filesystem::path();
    std::filesystem::path p(*text);
    if (p.is_relative()) p = path_.parent_path() / p;
    return p;
  }

  // Reads the file.
  Result<ClusterConfig> load(std::string_view contextArg) const;
  // Parses `text` as the file's content.
  Result<ClusterConfig> parse(std::string_view text, std::string_view contextArg) const;

 private:
  std::filesystem::path path_;
};

Result<ClusterConfig> KubeconfigReader::load(std::string_view contextArg) const {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return error(ErrorCode::kNotFound, "cannot be read");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(text, contextArg);
}

Result<ClusterConfig> KubeconfigReader::parse(std::string_view text,
                                              std::string_view contextArg) const {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return error(ErrorCode::kInvalidArgument, std::string("invalid YAML: ") + e.what());
  }
  if (!root.IsMap()) return error(ErrorCode::kInvalidArgument, "not a YAML mapping");

  ClusterConfig config;
  config.context = std::string(contextArg);
  if (config.context.empty()) {
    auto current = scalar(root, "current-context", "");
    if (!current) return std::unexpected(current.error());
    if (current->empty()) {
      return error(ErrorCode::kNotFound, "no current-context is set and no context was given",
                   "current-context");
    }
    config.context = *current;
  }

  auto context = entry(root, "contexts", config.context, "context");
  if (!context) return std::unexpected(context.error());
  const std::string ctxPath = "contexts[" + std::to_string(context->second) + "].context";
  const YAML::Node ctx = context->first["context"];
  if (!ctx || !ctx.IsMap()) return error(ErrorCode::kInvalidArgument, "missing", ctxPath);
  auto clusterName = scalar(ctx, "cluster", ctxPath);
  auto userName = scalar(ctx, "user", ctxPath);
  auto ns = scalar(ctx, "namespace", ctxPath);
  for (const auto* r : {&clusterName, &userName, &ns}) {
    if (!*r) return std::unexpected(r->error());
  }
  if (clusterName->empty())
    return error(ErrorCode::kInvalidArgument, "missing", ctxPath + ".cluster");
  config.namespace_ = ns->empty() ? "default" : *ns;

  // Cluster.
  auto cluster = entry(root, "clusters", *clusterName, "cluster");
  if (!cluster) return std::unexpected(cluster.error());
  const std::string clusterPath = "clusters[" + std::to_string(cluster->second) + "].cluster";
  const YAML::Node c = cluster->first["cluster"];
  if (!c || !c.IsMap()) return error(ErrorCode::kInvalidArgument, "missing", clusterPath);
  auto server = scalar(c, "server", clusterPath);
  if (!server) return std::unexpected(server.error());
  if (server->empty())
    return error(ErrorCode::kInvalidArgument, "missing", clusterPath + ".server");
  config.server = *server;
  while (config.server.ends_with('/')) config.server.pop_back();
  auto caData = base64Field(c, "certificate-authority-data", clusterPath);
  auto caFile = fileField(c, "certificate-authority", clusterPath);
  auto insecure = scalar(c, "insecure-skip-tls-verify", clusterPath);
  if (!caData) return std::unexpected(caData.error());
  if (!caFile) return std::unexpected(caFile.error());
  if (!insecure) return std::unexpected(insecure.error());
  config.http.caData = *caData;
  config.http.caFile = *caFile;
  if (*insecure == "true") {
    config.http.insecureSkipVerify = true;
  } else if (!insecure->empty() && *insecure != "false") {
    return error(ErrorCode::kInvalidArgument, "expected true or false",
                 clusterPath + ".insecure-skip-tls-verify");
  }

  // User (a context without one sends no credentials).
  if (userName->empty()) return config;
  config.user = *userName;
  auto user = entry(root, "users", *userName, "user");
  if (!user) return std::unexpected(user.error());
  const std::string userPath = "users[" + std::to_string(user->second) + "].user";
  const YAML::Node u = user->first["user"];
  if (!u || u.IsNull()) return config;
  if (!u.IsMap()) return error(ErrorCode::kInvalidArgument, "not a mapping", userPath);
  for (const char* plugin : {"exec", "auth-provider"}) {
    if (u[plugin]) {
      return error(ErrorCode::kUnsupported,
                   "user \"" + *userName + "\" uses an " + plugin +
                       " credential plugin, which attune does not support; use a token, a "
                       "tokenFile or a client certificate",
                   userPath + "." + plugin);
    }
  }
  auto token = scalar(u, "token", userPath);
  auto tokenFile = fileField(u, "tokenFile", userPath);
  auto certData = base64Field(u, "client-certificate-data", userPath);
  auto certFile = fileField(u, "client-certificate", userPath);
  auto keyData = base64Field(u, "client-key-data", userPath);
  auto keyFile = fileField(u, "client-key", userPath);
  auto username = scalar(u, "username", userPath);
  auto password = scalar(u, "password", userPath);
  for (const auto* r : {&token, &certData, &keyData, &username, &password}) {
    if (!*r) return std::unexpected(r->error());
  }
  for (const auto* r : {&tokenFile, &certFile, &keyFile}) {
    if (!*r) return std::unexpected(r->error());
  }
  config.http.bearerToken = *token;
  config.http.bearerTokenFile = *tokenFile;
  if (!tokenFile->empty() && !std::filesystem::exists(*tokenFile)) {
    return error(ErrorCode::kNotFound, "token file " + tokenFile->string() + " does not exist",
                 userPath + ".tokenFile");
  }
  config.http.clientCertData = *certData;
  config.http.clientCertFile = *certFile;
  config.http.clientKeyData = *keyData;
  config.http.clientKeyFile = *keyFile;
  const bool hasCert = !certData->empty() || !certFile->empty();
  const bool hasKey = !keyData->empty() || !keyFile->empty();
  if (hasCert != hasKey) {
    return error(ErrorCode::kInvalidArgument,
                 "a client certificate and a client key must be given together",
                 userPath + (hasCert ? ".client-key" : ".client-certificate"));
  }
  if (!username->empty() || !password->empty()) {
    config.http.basicAuth = http::BasicAuth{*username, *password};
  }
  return config;
}

std::string readTrimmed(const std::filesystem::path& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = static_cast<bool>(in);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

}  // namespace

Result<ClusterConfig> loadKubeconfig(const std::filesystem::path& path, std::string_view context) {
  return KubeconfigReader(path).load(context);
}

Result<ClusterConfig> parseKubeconfig(std::string_view text, const std::filesystem::path& path,
                                      std::string_view context) {
  return KubeconfigReader(path).parse(text, context);
}

std::optional<std::string> processEnv(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::filesystem::path defaultKubeconfigPath() {
  if (auto env = processEnv("KUBECONFIG"); env && !env->empty()) {
    return std::filesystem::path(env->substr(0, env->find(':')));
  }
  if (auto home = processEnv("HOME"); home && !home->empty()) {
    return std::filesystem::path(*home) / ".kube" / "config";
  }
  return {};
}

Result<ClusterConfig> loadInClusterConfig(const InClusterPaths& paths, const EnvLookup& env) {
  const auto host = env("KUBERNETES_SERVICE_HOST");
  const auto port = env("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty()) {
    return fail(ErrorCode::kNotFound,
                "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                "must be set");
  }
  if (!std::filesystem::exists(paths.tokenFile)) {
    return fail(ErrorCode::kNotFound,
                "in-cluster service-account token " + paths.tokenFile.string() + " is missing");
  }
  if (!std::filesystem::exists(paths.caFile)) {
    return fail(ErrorCode::kNotFound,
                "in-cluster service-account CA " + paths.caFile.string() + " is missing");
  }
  ClusterConfig config;
  const bool ipv6 = host->find(':') != std::string::npos;
  config.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;
  config.http.bearerTokenFile = paths.tokenFile;
  config.http.caFile = paths.caFile;
  bool ok = false;
  std::string ns = readTrimmed(paths.namespaceFile, ok);
  config.namespace_ = ok && !ns.empty() ? ns : "default";
  return config;
}

}  // namespace attune::kube
