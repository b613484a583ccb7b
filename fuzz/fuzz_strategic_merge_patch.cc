// Kubernetes' strategic merge patch (application/strategic-merge-patch+json):
// lists merged by their patchMergeKey, the $patch, $setElementOrder,
// $deleteFromPrimitiveList and $retainKeys directives, over the kind named by
// the original's apiVersion/kind.
#include "fuzz_patch.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)fuzz::ApplyFuzzPatch(apiserver::PatchType::kStrategicMerge, fuzz::Bytes(data, size));
  return 0;
}
