// Internal to api/k8s: standard base64 (RFC 4648 §4, with padding), for the JSON Patch carried
// by an AdmissionReview response.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attune::api {

std::string base64Encode(std::string_view bytes);
// nullopt when `text` is not padded standard base64.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace attune::api
