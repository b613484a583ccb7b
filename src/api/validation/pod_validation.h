#pragma once
// Validation of pod specs (a Pod's, or a workload's pod template) and of
// updates to a Pod, with kube's field paths and messages.

#include <boost/json/object.hpp>
#include <map>
#include <set>
#include <string>

#include "api/object.h"
#include "api/quantity.h"
#include "api/status.h"
#include "api/validation/field_errors.h"

namespace berth::api {

// Checks a resource list's quantities (parsable, not negative), reporting
// under `path` ("spec.containers[0].resources.requests"); returns the valid
// ones by resource name. A null `list` is valid and empty.
std::map<std::string, Quantity> ValidateResourceList(const boost::json::object* list,
                                                     const std::string& path, FieldErrors& errors);

// Checks a pod spec at `path` ("spec", "spec.template.spec") with kube's
// rules for what the scheduler and controllers read: volumes, containers
// (required) and init containers (names unique DNS labels, images, resources:
// requests within limits, extended resources whole and not overcommitted;
// ports; volume mounts), the restart and DNS policies, tolerations,
// affinity, topology spread constraints and the priority class name
// (validation/pod_spec.cc). Fields kube checks that the scheduler does not
// read (security contexts, probes, env, DNS config ...) are not checked. A
// null `spec` is reported as required. Volume mounts may also name
// `more_volumes` (a StatefulSet's claim templates).
void ValidatePodSpec(const boost::json::object* spec, const std::string& path, FieldErrors& errors,
                     const std::set<std::string>& more_volumes = {});

// kube's ValidatePodUpdate for a write of the pod itself (not a subresource),
// `next` defaulted as a create would be: a pod's spec is fixed once created
// but for its containers' and init containers' images, activeDeadlineSeconds
// (set, or lowered), tolerations (only additions; tolerationSeconds may
// change), scheduling gates (only removals), a gated pod's nodeSelector (only
// additions), and terminationGracePeriodSeconds from negative to 1. So a PUT
// or PATCH cannot move a bound pod (spec.nodeName: that is what
// pods/binding is for). A gated pod's node affinity stays fixed here (kube
// lets it be narrowed).
Status ValidatePodUpdate(const Object& next, const Object& current);

}  // namespace berth::api
