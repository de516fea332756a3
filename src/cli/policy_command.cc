// `attune policy validate PATH...`: decode, default and validate AttunePolicy documents.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "api/policy/attune_policy.h"
#include "api/policy/policy_codec.h"
#include "cli/commands.h"

namespace attune::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  std::string output = "yaml";
};

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

int runValidate(const ValidateOptions& opts) {
  int errors = 0;
  std::vector<std::string> rendered;
  std::vector<std::string> files;
  for (const std::string& path : opts.files) {
    std::vector<std::string> expanded = expandInput(path);
    if (expanded.empty()) ++errors;
    files.insert(files.end(), expanded.begin(), expanded.end());
  }
  for (const std::string& file : files) {
    auto text = readInput(file);
    if (!text) {
      ++errors;
      continue;
    }
    const std::vector<api::DecodedPolicy> docs = api::checkPolicies(*text);
    if (docs.empty()) {
      fmt::print(stderr, "{}: no documents\n", location(file, 0));
      ++errors;
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
      "Decode, default and validate AttunePolicy YAML or JSON files (multi-document). Prints the "
      "defaulted policies, or every error as FILE:LINE: field.path: message, and exits 1 on any "
      "error; an input without a document is an error.");
  validate
      ->add_option("files", opts->files,
                   "Policy files; a directory reads every .yaml, .yml and .json file under it "
                   "(recursively, sorted); - reads standard input")
      ->required();
  validate->add_option("-o,--output", opts->output, "Output format for the defaulted policies")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  validate->callback([opts, &exitCode] { exitCode = runValidate(*opts); });
}

}  // namespace attune::cli
