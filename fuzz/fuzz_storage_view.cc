// The storage kinds with typed views (PersistentVolume, PersistentVolumeClaim,
// StorageClass, PriorityClass; the first byte picks one) and their
// neighbours, decoded, validated and defaulted.
#include <array>

#include "api/storage_views.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static constexpr std::array kKinds = {
      api::Kind::kPersistentVolume, api::Kind::kPersistentVolumeClaim, api::Kind::kStorageClass,
      api::Kind::kPriorityClass,    api::Kind::kCSINode,               api::Kind::kCSIDriver,
      api::Kind::kCSIStorageCapacity, api::Kind::kVolumeAttachment,
  };
  std::string_view input = fuzz::Bytes(data, size);
  api::Kind kind = fuzz::PickKind(input, kKinds);
  auto object = fuzz::CheckObjectOfKind(kind, input);
  if (object && kind == api::Kind::kPersistentVolumeClaim) (void)api::ClaimClass(*object);
  if (object && kind <= api::Kind::kPriorityClass) {
    fuzz::Check(object->view() != nullptr, "a decoded storage object has no view");
  }
  return 0;
}
