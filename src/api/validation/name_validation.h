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
// Service names: a DNS-1035 label (a letter first).
std::vector<std::string> IsDns1035Label(std::string_view value);
// Ingress hosts with a wildcard: "*." and a DNS-1123 subdomain.
std::vector<std::string> IsWildcardDns1123Subdomain(std::string_view value);
// ConfigMap and Secret keys: [-._a-zA-Z0-9]+, at most 253, not "." or "..*".
std::vector<std::string> IsConfigMapKey(std::string_view value);
// Named ports (IANA_SVC_NAME): at most 15 of [-a-z0-9], a letter, no "--",
// no hyphen at either end.
std::vector<std::string> IsValidPortName(std::string_view value);
// Names that are one URL path segment (RBAC objects, object references):
// not "." or "..", no "/" or "%".
std::vector<std::string> IsValidPathSegmentName(std::string_view value);

}  // namespace berth::api
