#pragma once
// namespaces/NAME/finalize, kube's FinalizeREST: PUT only, and the write
// changes only spec.finalizers (which a namespace's own writes keep:
// NamespaceStrategy). Not listed in discovery.

#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

class FinalizeSubresource final : public Subresource {
 public:
  FinalizeSubresource();

  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;
  // `current` with the spec.finalizers `sent` has (none when it has none).
  Result<boost::json::value> MergeWrite(const boost::json::object& current,
                                        const boost::json::object& sent) const override;
};

}  // namespace berth::apiserver
