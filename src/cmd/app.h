#pragma once
// berth's whole command line as a library, for binaries that add their own
// scheduler plugins (kube-scheduler's app.NewSchedulerCommand(app.WithPlugin(…))):
//
//   #include "cmd/app.h"
//   int main(int argc, char** argv) {
//     return berth::app::Main(argc, argv, {berth::app::WithPlugin("MinScore", NewMinScore)});
//   }
//
// The binary then runs every berth subcommand; `serve` and `scheduler` build
// their schedulers from the in-tree plugins plus the ones given, so a
// KubeSchedulerConfiguration (--config) may enable them by name and pass
// them args through pluginConfig. CMake: link the target `berth_app`
// (examples/my-scheduler/ is a whole example).

#include <string>
#include <vector>

#include "scheduler/framework/registry.h"

namespace berth::app {

// Something added to the command line's defaults (so far: a plugin).
struct Option {
  std::string plugin_name;
  scheduler::PluginFactory factory;
};

// Adds the plugin `name` (as configurations write it), built by `factory`.
// A name of an in-tree plugin replaces that plugin.
Option WithPlugin(std::string name, scheduler::PluginFactory factory);

// The in-tree registry with `options`' plugins added.
scheduler::Registry RegistryWith(const std::vector<Option>& options);

// Parses the command line and runs the subcommand it names; returns the
// process's exit status.
int Main(int argc, char** argv, const std::vector<Option>& options = {});

}  // namespace berth::app
