// berth store …: inspect and repair the embedded store's data directory.

#include <cstdio>

#include "cmd/commands.h"

namespace berth::cmd {
namespace {
int exit_code = 0;
}  // namespace

int ExitCode() { return exit_code; }
void SetExitCode(int code) { exit_code = code; }

void AddStoreCommands(CLI::App& app) {
  auto* store = app.add_subcommand("store", "Inspect and repair the embedded store");
  store->require_subcommand(1);
}

}  // namespace berth::cmd
