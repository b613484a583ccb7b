#pragma once
// KIND/NAME/scale, kube's ScaleREST: an autoscaling/v1 Scale read from and
// written to the object's replica fields. GET answers the Scale; PUT and
// PATCH (of the Scale) write spec.replicas through the main resource's
// update, with its admission and validation.

#include <string>

#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

// Where a Scale reads and writes: dotted paths (".spec.replicas"). The
// selector is a LabelSelector object for built-in kinds and, as kube's
// labelSelectorPath, a selector string for custom resources ("" for none).
struct ScalePaths {
  std::string spec_replicas = ".spec.replicas";
  std::string status_replicas = ".status.replicas";
  std::string label_selector = ".spec.selector";
  bool selector_is_object = true;
};

class ScaleSubresource final : public Subresource {
 public:
  explicit ScaleSubresource(ScalePaths paths);

  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;

 private:
  const ScalePaths paths_;
};

}  // namespace berth::apiserver
