// A Node decoded (its typed view: capacity, allocatable, taints, labels,
// conditions), validated and defaulted.
#include "api/node_view.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto node = fuzz::CheckObjectOfKind(api::Kind::kNode, fuzz::Bytes(data, size));
  if (node) fuzz::Check(node->As<api::NodeView>() != nullptr, "a decoded node has no view");
  return 0;
}
