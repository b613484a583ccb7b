// The scheduler's --config file: KubeSchedulerConfiguration YAML
// (kubescheduler.config.k8s.io/v1), profiles, plugins, pluginConfig args and
// extenders.
#include "fuzz_util.h"
#include "scheduler/framework/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)berth::scheduler::ParseSchedulerConfig(berth::fuzz::Bytes(data, size));
  return 0;
}
