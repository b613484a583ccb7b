#pragma once
// GET pods/NAME/log, kube's LogREST, with its PodLogOptions query parameters
// (validated with kube's messages). Not listed in discovery.
//
// The output is that of a simulated pod's containers. No container runs, so
// nothing is stored: the API server makes the output up from the pod as it
// is now, so it is the same after a restart of the server and needs no
// kubelet to answer. For each container instance (the current one,
// or with `previous` the one before its last restart):
//
//   berth-sim: started container NAME (image IMAGE)    at its startedAt
//   each line of the pod's sim.berth.dev/log annotation, at its startedAt
//   what its command prints, when that is known        at its startedAt
//   berth-sim: container NAME exited with code N       at its finishedAt, once it exited
//
// (the start line of a previous instance names no image: a pod's status
// keeps only the current one's). The annotation is read as it is now, so
// changing it changes what every instance "printed". A command's output
// (api/container/command.h: echo, env, printenv ...) is that of its run in
// the environment the kubelet would give it (api/container/environment.h),
// with the ConfigMaps, Secrets, Services and Node as they are now.
//
// Errors are kube's: the container must be named when the pod has several
// and must be one of them; the kubelet's answers for a container that has
// not started or has no previous instance.

#include <chrono>
#include <optional>
#include <string>

#include "api/container/environment.h"
#include "api/object.h"
#include "api/status.h"
#include "apiserver/registry/subresource.h"

namespace berth::apiserver {

inline constexpr char kSimLogAnnotation[] = "sim.berth.dev/log";

// PodLogOptions' query parameters that shape the output (follow returns what
// there is and ends; sinceSeconds, sinceTime, tailLines, limitBytes and
// timestamps are applied).
struct PodLogQuery {
  std::string container;
  bool previous = false;
  bool timestamps = false;
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  std::optional<std::chrono::system_clock::time_point> since;
};

// The log text of `pod` (BadRequest with kube's messages when there is
// none), the objects its containers' environment refers to read through `sources`.
Result<std::string> RenderPodLog(const api::Object& pod, const PodLogQuery& query,
                                 const api::container::Sources& sources);

class LogSubresource final : public Subresource {
 public:
  LogSubresource();
  // GET only: the pod's log as text/plain.
  Response Serve(Request& request, const RequestInfo& info, GenericRest& rest) const override;
};

}  // namespace berth::apiserver
