// kubeconfig files (clusters, users, contexts, current-context), as
// --kubeconfig and $KUBECONFIG load them, merged as $KUBECONFIG's list is.
#include "client/kubeconfig.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(berth::fuzz::Bytes(data, size));
  auto config = berth::client::ParseKubeconfig(text, "/fuzz/kubeconfig");
  if (!config.ok()) return 0;
  berth::client::Kubeconfig merged = *config;
  berth::client::MergeKubeconfig(merged, *config);
  return 0;
}
