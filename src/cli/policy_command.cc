// `attune policy validate PATH...`: decode, default and validate AttunePolicy documents (and the
// AttuneDefaults / AttuneNamespaceDefaults among them); with --effective, print each policy as
// the controller uses it, merged with the defaults tiers.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <set>

#include "api/policy/attune_defaults.h"
#include "api/policy/attune_policy.h"
#include "api/policy/policy_codec.h"
#include "cli/commands.h"
#include "core/clock.h"
#include "kube/http_cluster_api.h"
#include "kube/kubeconfig.h"

namespace attune::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  std::string output = "yaml";
  bool effective = false;
  std::vector<std::string> defaultsFiles;  // --defaults
  std::string kubeconfig;                  // --kubeconfig: defaults from the cluster
  std::string context;
};

// The defaults objects an --effective run merges: from files and from the cluster.
struct DefaultsSet {
  std::vector<api::AttuneDefaults> cluster;
  std::vector<api::AttuneNamespaceDefaults> namespaced;
  void add(api::AttuneDefaults d) {
    if (d.scope == api::DefaultsScope::kCluster) {
      cluster.push_back(std::move(d));
    } else {
      namespaced.emplace_back(std::move(d));
    }
  }
};

// Lists both kinds of defaults from the cluster `kubeconfig` names (a kind whose CRD is not
// installed counts as none).
Result<void> readClusterDefaults(const ValidateOptions& opts, DefaultsSet& out) {
  auto config = kube::loadKubeconfig(opts.kubeconfig, opts.context);
  if (!config) return std::unexpected(config.error());
  SystemClock clock;
  kube::HttpClusterApi api(*config, clock);
  auto cluster = api.listAttuneDefaults({});
  if (!cluster && cluster.error().code != ErrorCode::kNotFound) {
    return std::unexpected(cluster.error());
  }
  if (cluster) {
    for (auto& d : cluster->items) out.cluster.push_back(std::move(d));
  }
  auto namespaced = api.listAttuneNamespaceDefaults({});
  if (!namespaced && namespaced.error().code != ErrorCode::kNotFound) {
    return std::unexpected(namespaced.error());
  }
  if (namespaced) {
    for (auto& d : namespaced->items) out.namespaced.push_back(std::move(d));
  }
  return {};
}

// Reads the defaults documents of `file` into `out`, printing their problems; the number of
// errors.
int readDefaultsDocuments(const std::string& file, const std::string& text, DefaultsSet& out,
                          std::vector<std::string>* rendered, const std::string& format);

// Reads `path` ("-" = standard input); nullopt with a message on stderr when unreadable.
std::optional<std::string> readInput(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "{}: cannot read file\n", path);
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The files `path` names: itself, or for a directory every *.yaml, *.yml and *.json file under
// it, recursively, sorted by path (as `kubectl apply -R -f DIR` reads them). "-" stays as is.
// Empty after printing why for a directory without such files or one that cannot be listed.
std::vector<std::string> expandInput(const std::string& path) {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  std::filesystem::recursive_directory_iterator it(path, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string extension = it->path().extension().string();
    if (it->is_regular_file(ec) &&
        (extension == ".yaml" || extension == ".yml" || extension == ".json")) {
      files.push_back(it->path().string());
    }
  }
  if (ec) {
    fmt::print(stderr, "{}: cannot read directory: {}\n", path, ec.message());
    return {};
  }
  if (files.empty()) fmt::print(stderr, "{}: no .yaml, .yml or .json files\n", path);
  std::sort(files.begin(), files.end());
  return files;
}

std::string location(const std::string& file, int line) {
  std::string name = file == "-" ? "<stdin>" : file;
  return line > 0 ? fmt::format("{}:{}", name, line) : name;
}

void printDiagnostic(const std::string& file, const api::PolicyDiagnostic& d, bool warning) {
  fmt::print(stderr, "{}: {}{}\n", location(file, d.line), warning ? "warning: " : "",
             d.error.toString());
}

int readDefaultsDocuments(const std::string& file, const std::string& text, DefaultsSet& out,
                          std::vector<std::string>* rendered, const std::string& format) {
  int errors = 0;
  for (const api::DecodedDefaults& doc : api::checkDefaults(text)) {
    for (const auto& w : doc.warnings) printDiagnostic(file, w, true);
    for (const auto& e : doc.errors) printDiagnostic(file, e, false);
    errors += static_cast<int>(doc.errors.size());
    if (!doc.errors.empty() || !doc.defaults) continue;
    if (rendered != nullptr) {
      rendered->push_back(format == "json" ? api::encodeDefaultsJson(*doc.defaults)
                                           : api::encodeDefaultsYaml(*doc.defaults));
    }
    out.add(*doc.defaults);
  }
  return errors;
}

// The document indexes of `text` that are defaults objects (not policies).
std::set<int> defaultsDocuments(const std::string& text) {
  std::set<int> out;
  for (const api::DecodedDefaults& doc : api::decodeDefaults(text)) {
    out.insert(doc.documentIndex);
  }
  return out;
}

// The effective form of the valid `policy`: its namespace's and the cluster's defaults merged in,
// then the built-in ones, validated. Empty after printing the problems when it is invalid.
std::optional<std::string> effectivePolicy(const std::string& file, int line,
                                           const api::AttunePolicy& policy,
                                           const DefaultsSet& defaults, const std::string& format,
                                           int& errors) {
  const std::string ns =
      policy.metadata.namespace_.empty() ? "default" : policy.metadata.namespace_;
  const api::AttuneDefaults* namespaced = api::selectNamespaceDefaults(defaults.namespaced, ns);
  const api::AttuneDefaults* cluster = api::selectDefaults(defaults.cluster);
  api::AttunePolicy effective = api::mergeDefaults(policy, namespaced, cluster);
  api::applyDefaults(effective);
  const std::string tiers = fmt::format(
      "AttuneNamespaceDefaults {}, AttuneDefaults {}",
      namespaced ? namespaced->metadata.namespace_ + "/" + namespaced->metadata.name : "none",
      cluster ? cluster->metadata.name : "none");
  const auto problems = api::validatePolicy(effective);
  for (const api::PolicyDiagnostic& p : problems) {
    fmt::print(stderr, "{}: effective policy {} (with {}): {}\n", location(file, line),
               policy.metadata.name, tiers, p.error.toString());
  }
  errors += static_cast<int>(problems.size());
  if (!problems.empty()) return std::nullopt;
  if (format == "json") return api::encodePolicyJson(effective);
  return "# effective: " + tiers + "\n" + api::encodePolicyYaml(effective);
}

int runValidate(const ValidateOptions& opts) {
  int errors = 0;
  std::vector<std::string> rendered;
  std::vector<std::string> files;
  DefaultsSet defaults;
  if (!opts.effective && (!opts.defaultsFiles.empty() || !opts.kubeconfig.empty())) {
    fmt::print(stderr, "--defaults and --kubeconfig need --effective\n");
    return 2;
  }
  for (const std::string& file : opts.defaultsFiles) {
    auto text = readInput(file);
    if (!text) {
      ++errors;
      continue;
    }
    const std::set<int> indexes = defaultsDocuments(*text);
    if (indexes.empty()) {
      fmt::print(stderr, "{}: no AttuneDefaults or AttuneNamespaceDefaults document\n",
                 location(file, 0));
      ++errors;
    }
    errors += readDefaultsDocuments(file, *text, defaults, nullptr, opts.output);
  }
  if (!opts.kubeconfig.empty()) {
    if (auto ok = readClusterDefaults(opts, defaults); !ok) {
      fmt::print(stderr, "cannot read the defaults from the cluster: {}\n", ok.error().toString());
      ++errors;
    }
  }
  for (const std::string& path : opts.files) {
    std::vector<std::string> expanded = expandInput(path);
    if (expanded.empty()) ++errors;
    files.insert(files.end(), expanded.begin(), expanded.end());
  }
  // With --effective, the policies wait until every file's defaults are read.
  std::vector<std::pair<std::string, std::vector<api::DecodedPolicy>>> policies;
  for (const std::string& file : files) {
    auto text = readInput(file);
    if (!text) {
      ++errors;
      continue;
    }
    std::vector<api::DecodedPolicy> docs = api::checkPolicies(*text);
    // Defaults documents in a policy file: validated, printed (or, with --effective, merged into
    // the policies of every file).
    const std::set<int> defaultsIndexes = defaultsDocuments(*text);
    std::erase_if(docs, [&](const api::DecodedPolicy& d) {
      return defaultsIndexes.contains(d.documentIndex);
    });
    if (docs.empty() && defaultsIndexes.empty()) {
      fmt::print(stderr, "{}: no documents\n", location(file, 0));
      ++errors;
    }
    errors += readDefaultsDocuments(file, *text, defaults, opts.effective ? nullptr : &rendered,
                                    opts.output);
    if (opts.effective) {
      policies.push_back({file, std::move(docs)});
      continue;
    }
    for (const api::DecodedPolicy& doc : docs) {
      for (const auto& w : doc.warnings) printDiagnostic(file, w, true);
      const auto& problems = doc.errors;
      for (const auto& e : problems) printDiagnostic(file, e, false);
      errors += static_cast<int>(problems.size());
      if (problems.empty() && doc.policy) {
        api::AttunePolicy defaulted = *doc.policy;
        api::applyDefaults(defaulted);
        rendered.push_back(opts.output == "json" ? api::encodePolicyJson(defaulted)
                                                 : api::encodePolicyYaml(defaulted));
      }
    }
  }
  for (const auto& [file, docs] : policies) {
    for (const api::DecodedPolicy& doc : docs) {
      for (const auto& w : doc.warnings) printDiagnostic(file, w, true);
      for (const auto& e : doc.errors) printDiagnostic(file, e, false);
      errors += static_cast<int>(doc.errors.size());
      if (!doc.errors.empty() || !doc.policy) continue;
      if (auto out = effectivePolicy(file, doc.line, *doc.policy, defaults, opts.output, errors)) {
        rendered.push_back(std::move(*out));
      }
    }
  }
  if (errors > 0) {
    fmt::print(stderr, "{} error{} found; no policy printed\n", errors, errors == 1 ? "" : "s");
    return 1;
  }
  if (opts.output == "json") {
    if (rendered.size() == 1) {
      fmt::print("{}\n", rendered.front());
    } else {
      // Several policies: a kubectl-style List, so the output stays one JSON document.
      fmt::print("{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n");
      for (std::size_t i = 0; i < rendered.size(); ++i) {
        fmt::print("{}{}\n", rendered[i], i + 1 < rendered.size() ? "," : "");
      }
      fmt::print("]}}\n");
    }
  } else {
    for (std::size_t i = 0; i < rendered.size(); ++i) {
      if (i > 0) fmt::print("---\n");
      fmt::print("{}", rendered[i]);
    }
  }
  return 0;
}

}  // namespace

void addPolicyCommand(CLI::App& app, int& exitCode) {
  auto* policy = app.add_subcommand("policy", "Work with AttunePolicy documents");
  policy->require_subcommand(1);
  auto opts = std::make_shared<ValidateOptions>();
  auto* validate = policy->add_subcommand(
      "validate",
      "Decode, default and validate AttunePolicy YAML or JSON files (multi-document; "
      "AttuneDefaults and AttuneNamespaceDefaults documents are validated too). Prints the "
      "defaulted documents, or every error as FILE:LINE: field.path: message, and exits 1 on any "
      "error; an input without a document is an error.");
  validate
      ->add_option("files", opts->files,
                   "Policy files; a directory reads every .yaml, .yml and .json file under it "
                   "(recursively, sorted); - reads standard input")
      ->required();
  validate->add_option("-o,--output", opts->output, "Output format for the defaulted policies")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  validate->add_flag("--effective", opts->effective,
                     "Print each policy as the controller uses it: its own fields, then its "
                     "namespace's AttuneNamespaceDefaults, the AttuneDefaults, then the built-in "
                     "defaults (docs/policy.md). The defaults come from the input files' own "
                     "documents, --defaults and --kubeconfig");
  validate->add_option("--defaults", opts->defaultsFiles,
                       "With --effective: files of AttuneDefaults and AttuneNamespaceDefaults "
                       "documents (repeatable)");
  validate->add_option("--kubeconfig", opts->kubeconfig,
                       "With --effective: also read both kinds of defaults from this cluster");
  validate->add_option("--context", opts->context, "The kubeconfig context (default: current)");
  validate->callback([opts, &exitCode] { exitCode = runValidate(*opts); });
}

}  // namespace attune::cli
