#pragma once
// The environment the kubelet gives a container (kube's
// makeEnvironmentVariables): the container's envFrom (ConfigMaps and Secrets,
// with their prefix), then its env (values with `$(NAME)` expanded by what
// is defined before them; valueFrom resolved: ConfigMap and Secret keys, the
// downward API's pod fields and resource fields), then the service links
// kube adds for the Services of the pod's namespace (unless
// enableServiceLinks is false) and the `kubernetes` Service of `default`,
// where the container defines no variable of that name; HOSTNAME first, as a
// container runtime sets it.
//
// A reference that does not resolve (a missing ConfigMap, Secret or key)
// leaves its variable out; the kubelet would not start such a container
// unless the reference is optional, so only what a started container sees
// is given. Objects are read through `Sources`, as they are at the call.

#include <functional>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/container/command.h"
#include "api/kinds.h"
#include "api/object.h"

namespace berth::api::container {

struct Sources {
  // The object of `kind` named `name` in `ns` ("" for a cluster-scoped one); nullptr when there is none.
  std::function<ObjectPtr(Kind kind, std::string_view ns, std::string_view name)> get;
  // The objects of `kind` in namespace `ns`.
  std::function<std::vector<ObjectPtr>(Kind kind, std::string_view ns)> list;
};

// The container of `pod` named `name` (init, regular or ephemeral); nullptr when none is.
const boost::json::object* ContainerNamed(const Object& pod, std::string_view name);

// The environment of `container` (one of `pod`'s containers, init or not).
EnvVars ContainerEnvironment(const Object& pod, const boost::json::object& container, const Sources& sources);

// The variables a container's own spec defines with plain values (env[].value,
// expanded), without reading any other object.
EnvVars LiteralEnvironment(const boost::json::object& container);

}  // namespace berth::api::container
