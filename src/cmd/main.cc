// berth: one binary, one subcommand per job.

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cmd/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"berth: a Kubernetes-compatible scheduler and control plane"};
  app.require_subcommand(1);
  app.set_version_flag("--version", BERTH_VERSION);

  auto* version = app.add_subcommand("version", "Print berth's version");
  version->callback([] { std::printf("berth %s\n", BERTH_VERSION); });

  berth::cmd::AddServeCommand(app);
  berth::cmd::AddApiBenchCommand(app);
  berth::cmd::AddBenchCommand(app);
  berth::cmd::AddSchedulerCommand(app);
  berth::cmd::AddSimCommand(app);
  berth::cmd::AddPerfCommand(app);
  berth::cmd::AddControllerManagerCommand(app);
  berth::cmd::AddStoreCommands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return berth::cmd::ExitCode();
}
