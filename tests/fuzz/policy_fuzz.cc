// Fuzzes the AttunePolicy codec. For any input: decoding never crashes or throws, and every
// diagnostic has a message. For every document that decodes without errors:
//  - the policy as written, and again after applyDefaults(), re-encodes to YAML and to JSON text
//    that decodes, without errors, to an equal policy, and re-encoding that gives the same text;
//  - applyDefaults() is idempotent;
//  - validatePolicy() of the defaulted policy does not crash, and its errors carry field paths.
// The same input read as AttuneDefaults / AttuneNamespaceDefaults documents: every one that
// decodes and validates without errors re-encodes (YAML and JSON) to an equal object, and merged
// into a policy it gives a policy that re-encodes too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/policy/attune_defaults.h"
#include "api/policy/policy_codec.h"
#include "fuzz_check.h"

namespace {

using attune::api::AttunePolicy;

using attune::fuzz::check;

void expectRoundTrip(const AttunePolicy& policy, std::string (*encode)(const AttunePolicy&)) {
  const std::string text = encode(policy);
  check(!text.empty());
  const auto again = attune::api::decodePolicies(text);
  check(again.size() == 1);
  check(again[0].errors.empty());
  check(again[0].policy.has_value());
  check(*again[0].policy == policy);
  check(encode(*again[0].policy) == text);
}

void expectRoundTrips(const AttunePolicy& policy) {
  expectRoundTrip(policy, attune::api::encodePolicyYaml);
  expectRoundTrip(policy, attune::api::encodePolicyJson);
}

void expectDefaultsRoundTrip(const attune::api::AttuneDefaults& defaults,
                             std::string (*encode)(const attune::api::AttuneDefaults&)) {
  const std::string text = encode(defaults);
  check(!text.empty());
  const auto again = attune::api::decodeDefaults(text);
  check(again.size() == 1);
  check(again[0].errors.empty());
  check(again[0].defaults.has_value());
  attune::api::AttuneDefaults decoded = *again[0].defaults;
  decoded.sources = defaults.sources;
  check(decoded == defaults);
}

void checkDefaultsDocuments(std::string_view text) {
  for (const auto& doc : attune::api::checkDefaults(text)) {
    for (const auto& e : doc.errors) check(!e.error.message.empty() && e.line >= 0);
    if (!doc.defaults || !doc.errors.empty()) continue;
    expectDefaultsRoundTrip(*doc.defaults, attune::api::encodeDefaultsYaml);
    expectDefaultsRoundTrip(*doc.defaults, attune::api::encodeDefaultsJson);
    AttunePolicy policy;
    policy.metadata.name = "p";
    policy.spec.targetRef.kind = attune::api::TargetKind::kDeployment;
    policy.spec.targetRef.name = "p";
    AttunePolicy merged = attune::api::mergeDefaults(policy, &*doc.defaults, &*doc.defaults);
    expectRoundTrips(merged);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& doc : attune::api::decodePolicies(text)) {
    for (const auto& e : doc.errors) check(!e.error.message.empty() && e.line >= 0);
    for (const auto& w : doc.warnings) check(!w.error.message.empty() && !w.error.field.empty());
    if (!doc.policy || !doc.errors.empty()) continue;

    AttunePolicy policy = *doc.policy;
    expectRoundTrips(policy);

    attune::api::applyDefaults(policy);
    AttunePolicy twice = policy;
    attune::api::applyDefaults(twice);
    check(twice == policy);
    expectRoundTrips(policy);

    for (const auto& e : attune::api::validatePolicy(policy)) {
      check(!e.error.field.empty() && !e.error.message.empty());
    }
  }
  checkDefaultsDocuments(text);
  return 0;
}
