#pragma once
// What a container's command would do, for the few commands whose effect
// needs no process to know: `sleep N` (N seconds, or with a unit suffix
// s/m/h/d, or `infinity`), `true`, `false`, `exit N`, `:`, `echo ...`,
// `env` and `printenv [NAME...]`, alone or as a shell script (`sh -c "sleep
// 5; exit 3"`, also bash and ash) of such statements joined by `;`, `&&`,
// `||` or new lines, with words quoted ('...' or "..." without expansions)
// and `NAME=value` assignments before a command. A run ends with the last
// statement's status, as a shell's does; `exit N` ends it at once. Anything
// else (an image's own entrypoint, a loop, a pipe, a shell expansion) is
// not known: nullopt, and whoever asked applies its own default.
//
// The command and args are first expanded as the kubelet expands them:
// `$(NAME)` is the value of the container's variable NAME (left as it is
// when there is none) and `$$` is `$` (kube's third_party expansion).
//
// The simulated kubelet uses the duration and exit status; the simulated
// log (apiserver/subresources/log.h) prints the output.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

namespace berth::api::container {

// A container's environment in the order its variables were defined.
using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct CommandRun {
  std::optional<std::chrono::milliseconds> duration;  // nullopt: runs for ever
  int exit_code = 0;
  std::string output;  // what it printed (stdout and stderr in one, as a log has them)
};

// The run of a container spec (its `command` then `args`, as the kubelet
// joins them) with the environment `env`; nullopt when the command is not
// one of the above.
std::optional<CommandRun> RunCommand(const boost::json::object& container, const EnvVars& env);

// kube's expansion of `$(NAME)` references in `text` by `env` (later
// definitions of a name win).
std::string ExpandReferences(std::string_view text, const EnvVars& env);

}  // namespace berth::api::container
