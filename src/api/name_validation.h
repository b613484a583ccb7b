#pragma once
// Kubernetes' name and label syntax (k8s.io/apimachinery/pkg/util/validation):
// each function returns the problems with `value` in kube's words, empty
// when it is valid.

#include <string>
#include <string_view>
#include <vector>

namespace berth::api {

// Object names of most kinds' (and every container's): DNS-1123 labels.
std::vector<std::string> IsDns1123Label(std::string_view value);
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
// Label and annotation keys: an optional DNS-1123 subdomain prefix and "/", then a name.
std::vector<std::string> IsQualifiedName(std::string_view value);
std::vector<std::string> IsValidLabelValue(std::string_view value);

}  // namespace berth::api
