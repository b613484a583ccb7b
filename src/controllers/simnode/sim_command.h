#pragma once
// What a container's command would do, for the few commands whose effect
// needs no process to know: `sleep N` (N seconds, or with a unit suffix
// s/m/h/d, or `infinity`), `true`, `false`, `exit N`, `:` and `echo ...`,
// alone or as a shell script (`sh -c "sleep 5; exit 3"`, also bash and ash)
// of such statements joined by `;`, `&&`, `||` or new lines. A run ends
// with the last statement's status, as a shell's does; `exit N` ends it at
// once. Anything else (an image's own entrypoint, a loop, a pipe) is not
// known: the pod's run applies.

#include <optional>

#include <boost/json/object.hpp>

#include "controllers/simnode/sim_pod_status.h"

namespace berth::controllers {

// The run of a container spec (its `command` then `args`, as the kubelet
// joins them); nullopt when the command is not one of the above.
std::optional<SimRun> CommandRun(const boost::json::object& container);

}  // namespace berth::controllers
