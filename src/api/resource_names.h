#pragma once
// Kinds of resource names, as kube's v1helper tells them apart.

#include <string_view>

namespace berth::api {

// kube's IsExtendedResourceName: a domain-prefixed name outside
// kubernetes.io (cpu, memory, hugepages-2Mi and kubernetes.io/… are native),
// not a quota's "requests." name, and valid as a quota name once prefixed.
bool IsExtendedResourceName(std::string_view name);

}  // namespace berth::api
