// RFC 6902 JSON patch (application/json-patch+json): add, remove, replace,
// move, copy and test over arbitrary documents.
#include "fuzz_patch.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)fuzz::ApplyFuzzPatch(apiserver::PatchType::kJson, fuzz::Bytes(data, size));
  return 0;
}
