#pragma once
// pods/NAME/binding, kube's BindingREST: POST of a v1 Binding (JSON, or
// kube's protobuf as client-go's Pods().Bind sends it) assigns the pod to a
// node. The legacy `bindings` resource (POST namespaces/NS/bindings, the
// pod named in the body) is served by the same code: ServeBinding.
//
// The write itself, AssignPod, is also JSON-RPC's bind.pod; UnassignPod, its
// reverse, is JSON-RPC's unbind.pod (berth's own).

#include <cstdint>
#include <string>

#include <boost/json/object.hpp>

#include "api/object.h"
#include "api/status.h"
#include "apiserver/registry/subresource.h"

namespace berth::store {
class Store;
}

namespace berth::apiserver {

class BindingSubresource final : public Subresource {
 public:
  BindingSubresource();
  // POST only.
  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;
};

// A POSTed Binding, of pods/NAME/binding or of the `bindings` resource: read,
// admitted as the create of pods/binding, then written (AssignPod); 201 with
// a v1 Status once the write is visible.
Response ServeBinding(Request& request, const RequestInfo& info, GenericRest& rest);

// kube's assignPod: sets spec.nodeName and the PodScheduled condition (and
// adds `annotations`, may be null) in one guarded write. Conflict when the
// pod is already bound, being deleted or gated; `expected_uid` /
// `expected_revision` (when non-empty / > 0) are preconditions.
Result<api::ObjectPtr> AssignPod(store::Store& store, const std::string& ns, const std::string& name,
                                 const std::string& node, const std::string& expected_uid, int64_t expected_revision,
                                 const boost::json::object* annotations);
// The reverse: clears spec.nodeName of a bound pod that has not started
// (PodScheduled False, Unbound). Conflict when it is not bound.
Result<api::ObjectPtr> UnassignPod(store::Store& store, const std::string& ns, const std::string& name,
                                   int64_t expected_revision);

}  // namespace berth::apiserver
