#pragma once
// Registration of berth's subcommands. Each Add* function adds its subcommands
// to the app; a subcommand's callback stores its exit status in ExitCode().

#include <CLI/App.hpp>

#include "scheduler/framework/registry.h"

namespace berth::cmd {

void AddStoreCommands(CLI::App& app);
// `serve` and `scheduler` build their schedulers from `registry` (the
// in-tree plugins and any a custom binary added). REQUIRES: `registry`
// outlives the app's parse.
void AddServeCommand(CLI::App& app, const scheduler::Registry& registry);
void AddApiBenchCommand(CLI::App& app);
void AddBenchCommand(CLI::App& app);
void AddSchedulerCommand(CLI::App& app, const scheduler::Registry& registry);
void AddSimCommand(CLI::App& app);
void AddPerfCommand(CLI::App& app);
void AddControllerManagerCommand(CLI::App& app);
// `berth explain pod NAME`: asks a scheduler's explain endpoint.
void AddExplainCommand(CLI::App& app);
// `berth store bench`, under the store subcommand.
void AddStoreBenchCommand(CLI::App& store);

// The exit status the chosen subcommand set (0 when it succeeded).
int ExitCode();
void SetExitCode(int code);

}  // namespace berth::cmd
