#pragma once
// KIND/NAME/status, kube's StatusREST: GET, PUT and PATCH of the whole
// object, whose writes change only its status. (That the main resource's
// writes keep the stored status is the generic update's rule, for every kind
// holding this subresource: ResourceStrategy::HasStatus.)

#include <string_view>

#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

class StatusSubresource final : public Subresource {
 public:
  // The kind it belongs to, which it answers with.
  StatusSubresource(std::string_view group, std::string_view version, std::string_view kind);

  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;
  // `current` with the status `sent` has (none when it has none).
  Result<boost::json::value> MergeWrite(const boost::json::object& current,
                                        const boost::json::object& sent) const override;
};

}  // namespace berth::apiserver
