// Where the API server is and how to authenticate to it: from a kubeconfig file or from the
// in-cluster service-account mount.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "http/http_client.h"

namespace attune::kube {

// Everything HttpClusterApi needs to reach one API server.
struct ClusterConfig {
  std::string server;            // base URL, e.g. "https://10.0.0.1:443"; no trailing "/"
  std::string namespace_;        // the context's default namespace; "default" when unset
  http::HttpClientOptions http;  // bearer token (or token file), client certificate, CA, ...
  std::string context;           // the kubeconfig context used; empty in-cluster
  std::string user;              // the kubeconfig user used; empty in-cluster
};

// Loads `path` (YAML, kubeconfig v1) and resolves `context` (the file's current-context when
// empty). Supported user credentials: token, tokenFile, client-certificate(-data) and
// client-key(-data), username/password; cluster: server, certificate-authority(-data),
// insecure-skip-tls-verify. Relative file paths are resolved against the kubeconfig's
// directory; *-data fields are base64-decoded. Errors (never throws):
//  - kNotFound: the file cannot be read, or the context, its cluster or its user is not in it;
//  - kInvalidArgument: YAML syntax, a missing or wrongly typed required field (server), bad
//    base64; Error::field is the path in the file, e.g. "users[0].user.client-key-data";
//  - kUnsupported: a user with an `exec` credential plugin or an `auth-provider`, naming the
//    user.
// Every message starts with "kubeconfig <path>".
Result<ClusterConfig> loadKubeconfig(const std::filesystem::path& path,
                                     std::string_view context = {});

// loadKubeconfig of `text`, the content of the kubeconfig at `path` (which is not read): the
// same result and errors, relative file paths resolved against path's directory and every
// message starting with "kubeconfig <path>". Like loadKubeconfig it reads none of the files the
// kubeconfig names, and checks only that a tokenFile exists.
Result<ClusterConfig> parseKubeconfig(std::string_view text, const std::filesystem::path& path,
                                      std::string_view context = {});

// The kubeconfig to use when none is given: $KUBECONFIG (its first entry), else
// $HOME/.kube/config. Empty when neither is set.
std::filesystem::path defaultKubeconfigPath();

// The files of the service-account mount; tests point them at temporary files.
struct InClusterPaths {
  std::filesystem::path tokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::filesystem::path caFile = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::filesystem::path namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
};

// Reads an environment variable (nullopt when unset); the default reads the process's.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
std::optional<std::string> processEnv(std::string_view name);

// In-cluster configuration: server https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
// (an IPv6 host is bracketed), the CA file, and the token file as http bearerTokenFile so a
// rotated token is picked up by the next request. The namespace file is optional ("default").
// kNotFound when the variables are unset or the token or CA file is missing.
Result<ClusterConfig> loadInClusterConfig(const InClusterPaths& paths = {},
                                          const EnvLookup& env = processEnv);

}  // namespace attune::kube
