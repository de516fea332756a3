#include "api/k8s/pdb.h"

#include <utility>

namespace attune::api {

std::vector<Error> validatePdbSpec(const PdbSpec& spec) {
  std::vector<Error> errors;
  if (spec.minAvailable && spec.maxUnavailable) {
    errors.push_back(Error{ErrorCode::kInvalidArgument,
                           "minAvailable and maxUnavailable cannot be both set", ""});
  }
  for (const auto& [name, value] : {std::pair{"minAvailable", &spec.minAvailable},
                                    std::pair{"maxUnavailable", &spec.maxUnavailable}}) {
    if (!*value) continue;
    auto percent = scaledValue(**value, 100, false);
    if (!percent) {
      errors.push_back(
          Error{ErrorCode::kInvalidArgument, "must be an integer or a percentage", name});
    } else if (*percent < 0) {
      errors.push_back(
          Error{ErrorCode::kInvalidArgument, "must be greater than or equal to 0", name});
    } else if ((*value)->isString && *percent > 100) {
      errors.push_back(Error{ErrorCode::kInvalidArgument, "must not be greater than 100%", name});
    }
  }
  const std::string& policy = spec.unhealthyPodEvictionPolicy;
  if (!policy.empty() && policy != kIfHealthyBudget && policy != kAlwaysAllow) {
    errors.push_back(Error{ErrorCode::kInvalidArgument,
                           "supported values: \"AlwaysAllow\", \"IfHealthyBudget\"",
                           "unhealthyPodEvictionPolicy"});
  }
  return errors;
}

Error disruptionBudgetRefusal(std::string_view cause) {
  std::string message(kEvictionRefusedMessage);
  if (!cause.empty()) {
    message += ' ';
    message += cause;
  }
  return Error{ErrorCode::kDisruptionBudget, std::move(message), {}};
}

std::string_view disruptionBudgetCause(const Error& error) {
  std::string_view message = error.message;
  if (!message.starts_with(kEvictionRefusedMessage)) return message;
  message.remove_prefix(kEvictionRefusedMessage.size());
  if (message.starts_with(' ')) message.remove_prefix(1);
  return message;
}

}  // namespace attune::api
