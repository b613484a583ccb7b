#pragma once
// Synthetic objects for demos and benchmarks: pods and nodes shaped like
// the ones real clusters hold.

#include <cstdint>
#include <string>

#include "api/object.h"

namespace berth::cmd {

// A pod with one container requesting `milli_cpu` and `memory_bytes`.
api::ObjectPtr SamplePod(const std::string& ns, const std::string& name, int64_t milli_cpu,
                         int64_t memory_bytes);
// A node with the given allocatable cpu (milli) and memory, and standard labels.
api::ObjectPtr SampleNode(const std::string& name, int64_t milli_cpu, int64_t memory_bytes);

}  // namespace berth::cmd
