#pragma once
// The ClusterRoles and ClusterRoleBindings kube-apiserver creates at start
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy): cluster-admin, admin,
// edit and view (the last three aggregated from system:aggregate-to-*),
// system:discovery, system:basic-user, system:public-info-viewer,
// system:kube-scheduler, system:kube-controller-manager, … with kube's
// rules, labels (kubernetes.io/bootstrapping=rbac-defaults) and autoupdate
// annotation, and the bindings to system:masters, system:authenticated,
// system:unauthenticated and the components' users. Kept as data here.
//
// Also kube-system's extension-apiserver-authentication-reader Role and its
// binding. Not carried: kube's other namespaced bootstrap Roles (kube-system's
// leader election, kube-public's bootstrap signer) and the per-controller
// system:controller:* roles.

#include <boost/json/object.hpp>
#include <vector>

namespace berth::apiserver::rbac {

// The objects, as JSON (apiVersion, kind, metadata, rules or roleRef and
// subjects): ClusterRoles, ClusterRoleBindings, then the namespaced ones.
std::vector<boost::json::object> BootstrapPolicy();

}  // namespace berth::apiserver::rbac
