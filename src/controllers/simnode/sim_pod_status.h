#pragma once
// What a simulated kubelet shows of a pod it runs: the pod's status moved
// forward to a moment, as kube's kubelet would have written it by then.
//
// A pod's containers run for its sim.berth.dev/run-duration, then exit with
// its sim.berth.dev/exit-code (default 0): reason Completed for 0, Error for
// any other code. Without them, a container whose command is one whose
// effect is known (`sleep 30`, `sh -c "exit 3"`, `/bin/false`: see
// api/container/command.h) runs and exits as that command would; any other runs for
// the fleet's default run duration and exits 0 under restartPolicy Never and
// OnFailure, and for ever under Always. Then, as kube, per restartPolicy: Never leaves the container
// terminated; OnFailure restarts it on a non-zero code; Always restarts it
// whatever the code. A restart waits for kube's crash-loop backoff (none for
// the first, then 10s doubling up to 5m; reset after ten minutes without a
// restart), meanwhile the container is waiting with reason CrashLoopBackOff.
// A running container whose image was changed in the spec is restarted with
// the new image at once (kube restarts containers whose definition changed,
// whatever the restart policy). A container whose image does not exist
// (SimImageMissing) is not started: it waits with ErrImagePull, then
// ImagePullBackOff, and is not ready (the pod stays Pending when it never
// ran). The phase then follows kube's rules
// (Succeeded when every container completed with 0 and none will restart,
// Failed when under Never one failed) and so do the conditions
// PodReadyToStartContainers, Initialized, ContainersReady, Ready (with the
// spec's readiness gates) and PodScheduled.
//
// Init containers run to completion, in order, as the pod starts; each
// completes at once with exit code 0 (no duration or exit code of their own).
// Restartable (sidecar) init containers are treated like the others.
//
// Events that happened after the last look are simulated at the moment they
// were due (a node that was down, or a server restart, catches up).

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/json/object.hpp>

namespace berth::controllers {

inline constexpr char kSimExitCodeAnnotation[] = "sim.berth.dev/exit-code";

// What the containers of a pod do once started.
struct SimRun {
  std::optional<std::chrono::milliseconds> duration;  // nullopt: run for ever
  int exit_code = 0;
  // Whether the pod's annotations set them: they take precedence over what
  // a container's command does (api/container/command.h).
  bool duration_annotated = false;
  bool exit_code_annotated = false;
};

// A container's crash-loop backoff, kept in memory as kube's kubelet does
// (a restarted kubelet starts afresh). Keyed by container name and image: a
// changed definition starts without backoff.
struct CrashBackoff {
  std::chrono::milliseconds backoff{0};
  std::chrono::system_clock::time_point last_restart;
};
using CrashBackoffs = std::unordered_map<std::string, CrashBackoff>;

inline constexpr std::chrono::seconds kInitialCrashBackoff{10};
inline constexpr std::chrono::seconds kMaxCrashBackoff{300};

struct KubeletEvent {
  std::string type;  // Normal, Warning
  std::string reason;
  std::string message;
};

struct SimPodStep {
  // When the status next changes by itself (a container's run ends, a
  // backoff ends); nullopt: not by itself.
  std::optional<std::chrono::system_clock::time_point> wake;
  std::vector<KubeletEvent> events;
};

// Whether a simulated kubelet fails to pull `image`, as kube's does for an
// image its registry does not have. Nothing is pulled, so the reference
// decides: its tag is 404, or one of its parts (split at '/' and ':') is
// "nonexistent", "non-existent" or "invalid", or its registry is an
// "invalid." host (the e2e suite's webserver:404, foo:non-existent,
// gb-redisslave:nonexistent, invalid.com/invalid/alpine:3.1). Every other
// image is present.
bool SimImageMissing(std::string_view image);

// The run of `pod` from its annotations; `default_duration` is used for
// restartPolicy Never and OnFailure pods without sim.berth.dev/run-duration.
// An annotation that cannot be parsed counts as absent.
SimRun SimRunOf(const boost::json::object& pod, std::chrono::milliseconds default_duration);

// Moves the status of `pod` (already Running, with its containers' statuses)
// forward to `now`. `status` is the pod's status to edit; `backoffs` the
// pod's containers' backoffs.
SimPodStep AdvancePodStatus(const boost::json::object& pod, boost::json::object& status,
                            std::chrono::system_clock::time_point now, const SimRun& run,
                            CrashBackoffs& backoffs);

// Starts `pod`: init containers completed in order, containers running since
// `now`, phase Running, startTime; then as AdvancePodStatus. Leaves pod and
// host IPs to the caller.
SimPodStep StartPodStatus(const boost::json::object& pod, boost::json::object& status,
                          std::chrono::system_clock::time_point now, const SimRun& run,
                          CrashBackoffs& backoffs);

// The pod's conditions from its phase and containers' statuses (kube's
// kubelet status generation), readiness gates included.
void SetPodConditions(const boost::json::object& pod, boost::json::object& status, const std::string& now);

}  // namespace berth::controllers
