// The workload kinds (the first byte picks one), decoded, validated and
// defaulted as a create of that kind is: their pod templates go through the
// same checks as pods.
#include <array>

#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static constexpr std::array kKinds = {
      api::Kind::kDeployment,  api::Kind::kReplicaSet,  api::Kind::kStatefulSet,
      api::Kind::kDaemonSet,   api::Kind::kJob,         api::Kind::kCronJob,
      api::Kind::kReplicationController, api::Kind::kPodTemplate,
      api::Kind::kHorizontalPodAutoscaler, api::Kind::kPodDisruptionBudget,
      api::Kind::kControllerRevision, api::Kind::kService,
  };
  std::string_view input = fuzz::Bytes(data, size);
  api::Kind kind = fuzz::PickKind(input, kKinds);
  (void)fuzz::CheckObjectOfKind(kind, input);
  return 0;
}
