// RFC 7386 JSON merge patch (application/merge-patch+json). A merge patch is
// idempotent: applying it to its own result changes nothing.
#include "fuzz_patch.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input = fuzz::Bytes(data, size);
  auto once = fuzz::ApplyFuzzPatch(apiserver::PatchType::kMerge, input);
  if (!once) return 0;
  auto patch = fuzz::SplitAtNul(input).second;
  auto twice = apiserver::ApplyPatch(apiserver::PatchType::kMerge, api::Kind::kPod, *once, patch);
  fuzz::Check(twice.ok(), "a merge patch that applied once fails on its result", boost::json::serialize(*once),
              twice.ok() ? "" : twice.status().message());
  fuzz::Check(*twice == *once, "a merge patch is not idempotent", boost::json::serialize(*once),
              boost::json::serialize(*twice));
  return 0;
}
