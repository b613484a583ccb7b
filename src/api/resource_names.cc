#include "api/resource_names.h"

#include <string>

#include "api/validation/name_validation.h"

namespace berth::api {

bool IsExtendedResourceName(std::string_view name) {
  if (name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos) {
    return false;
  }
  if (name.starts_with("requests.")) return false;
  return IsQualifiedName("requests." + std::string(name)).empty();
}

}  // namespace berth::api
