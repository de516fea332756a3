// Fuzzes the kubeconfig reader: kube::parseKubeconfig of the input (what loadKubeconfig does
// with a file's content), with the file's current-context and with a context named "ctx". For
// any input nothing crashes or throws, and every error message starts with
// "kubeconfig <path>". A loaded configuration has a server without a trailing "/", a namespace,
// the context used, and its relative file paths resolved against the kubeconfig's directory.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <source_location>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "kube/kubeconfig.h"

namespace {

using namespace attune;

using attune::fuzz::check;

// A directory that does not exist, so that no relative tokenFile does either.
const std::filesystem::path kPath = "/nonexistent-attune-fuzz/dir/kubeconfig";

void checkFile(const std::filesystem::path& file) { check(file.empty() || file.is_absolute()); }

void load(std::string_view text, std::string_view context) {
  auto config = kube::parseKubeconfig(text, kPath, context);
  if (!config) {
    check(config.error().message.starts_with("kubeconfig " + kPath.string()));
    return;
  }
  check(!config->server.empty() && !config->server.ends_with('/'));
  check(!config->namespace_.empty());
  check(!config->context.empty());
  if (!context.empty()) check(config->context == context);
  checkFile(config->http.caFile);
  checkFile(config->http.bearerTokenFile);
  checkFile(config->http.clientCertFile);
  checkFile(config->http.clientKeyFile);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  load(text, {});
  load(text, "ctx");
  return 0;
}
