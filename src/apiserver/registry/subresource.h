#pragma once
// A subresource of a kind (pods/NAME/binding, deployments/NAME/scale ...), as
// kube-apiserver has one REST storage per subresource beside the generic
// store (BindingREST, EvictionREST, LogREST, StatusREST, FinalizeREST,
// ScaleREST). The kind's ResourceStrategy holds its subresources; the API
// server routes a request to the one its path names, discovery and OpenAPI
// list them from the same objects. The implementations live in
// apiserver/subresources/, one file each.
//
// GenericRest is what a subresource may call on the REST layer: the store,
// admission and the generic handlers it builds on. The API server implements
// it and passes itself to Serve.
//
// Thread-safety: a Subresource is immutable once made, and Serve runs on any
// thread the request arrives on, as the generic handlers do.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "api/object.h"
#include "api/status.h"
#include "apiserver/http.h"
#include "apiserver/request_info.h"

namespace berth::store {
class Store;
}

namespace berth::apiserver {

class AdmissionChain;  // admission/admission.h

class GenericRest {
 public:
  // Tries of a read-modify-write against concurrent writers before a Conflict.
  static constexpr int kMaxAttempts = 16;

  virtual store::Store& store() = 0;
  virtual AdmissionChain& admission() = 0;

  // The generic GET, PUT and PATCH of the object `info` names; with
  // info.subresource set, a write goes through that subresource's MergeWrite.
  virtual Response Get(Request& request, const RequestInfo& info) = 0;
  virtual Response Update(Request& request, const RequestInfo& info) = 0;
  virtual Response Patch(Request& request, const RequestInfo& info) = 0;
  // Writes `next` (a whole object's JSON) as the new version of `current`
  // with admission, the kind's preparation and validation: what Update and
  // Patch do once they have the object to write. `request` (may be nullptr)
  // is whom admission webhooks are told of and where their warnings go.
  virtual Result<api::ObjectPtr> WriteUpdate(const RequestInfo& info, const api::ObjectPtr& current,
                                             boost::json::value next, bool dry_run, Request* request) = 0;
  // A DELETE's deletion of `object`: marked when finalizers or a kubelet hold
  // it. `grace_seconds`: DeleteOptions.gracePeriodSeconds; `finalizer`: added
  // first ("orphan", "foregroundDeletion"), empty for none.
  virtual Result<api::ObjectPtr> DeleteObject(const api::ObjectPtr& object, std::optional<int64_t> grace_seconds,
                                              std::string_view finalizer) = 0;
  // `response` to a write made under a store::DeferAcknowledgement that
  // deferred `revision` (0: nothing was deferred), sent once it is visible.
  virtual Response AnswerWhenVisible(Response response, int64_t revision) = 0;

 protected:
  ~GenericRest() = default;
};

class Subresource {
 public:
  // What discovery and the OpenAPI document say of a subresource.
  struct Description {
    std::string name;  // the path segment after the object's name: "status", "binding"
    // The kind it answers with (discovery's responseKind; "" group: core).
    std::string group, version, kind;
    std::vector<std::string> verbs;  // kube's verbs for it, as discovery lists them
    // Listed in discovery and the OpenAPI document. pods' log, exec,
    // attach, portforward and proxy and namespaces' finalize are served but
    // not listed: clients reach them by their paths.
    bool listed = true;
  };

  explicit Subresource(Description description) : description_(std::move(description)) {}
  virtual ~Subresource() = default;
  Subresource(const Subresource&) = delete;
  Subresource& operator=(const Subresource&) = delete;

  const std::string& name() const { return description_.name; }
  const Description& description() const { return description_; }

  // Answers `request` for the object `info` names (info.subresource is this
  // one's name), with kube's status codes: 405 for a method it does not serve.
  virtual Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const = 0;

  // The object a write through this subresource stores: `current` (as
  // stored) with what the subresource owns taken from `sent` (the whole
  // object the client PUT, or the patch's result), so that nothing else
  // changes. Only subresources written through the generic update (status,
  // finalize) merge; the others answer MethodNotAllowed.
  virtual Result<boost::json::value> MergeWrite(const boost::json::object& current,
                                                const boost::json::object& sent) const;

 private:
  const Description description_;
};

}  // namespace berth::apiserver
