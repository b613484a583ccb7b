// A Pod decoded (its typed view: containers, resources, affinity, tolerations,
// topology spread, volumes), validated and defaulted; the helpers the
// scheduler and controllers call on pods.
#include "api/defaults.h"
#include "api/pod_view.h"
#include "fuzz_util.h"

using namespace berth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto pod = fuzz::CheckObjectOfKind(api::Kind::kPod, fuzz::Bytes(data, size));
  if (!pod) return 0;
  fuzz::Check(pod->As<api::PodView>() != nullptr, "a decoded pod has no view");
  (void)api::IsPodReady(*pod);
  (void)api::PodReadySince(*pod);
  (void)api::IsPodActive(*pod);
  if (auto* spec = pod->json().if_contains("spec"); spec && spec->is_object()) {
    (void)api::QosClass(spec->get_object());
    boost::json::object copy = spec->get_object();
    api::DefaultPodSpec(copy);
  }
  return 0;
}
