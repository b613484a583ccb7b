// berth: one binary, one subcommand per job.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cmd/commands.h"

namespace {

// The command path and the first word that names no subcommand of it
// ("berth store", "frob"), when the command line has one; CLI11 only says
// that a subcommand is required.
bool FindUnknownCommand(CLI::App& app, int argc, char** argv, std::string& path, std::string& word) {
  CLI::App* current = &app;
  path = "berth";
  for (int i = 1; i < argc; ++i) {
    std::string token = argv[i];
    if (token.empty() || token[0] == '-') continue;
    std::vector<CLI::App*> subs = current->get_subcommands({});
    if (subs.empty()) return false;  // its own arguments from here
    CLI::App* sub = nullptr;
    for (CLI::App* candidate : subs) {
      if (candidate->check_name(token)) sub = candidate;
    }
    if (sub == nullptr) {
      word = token;
      return true;
    }
    current = sub;
    path += " " + token;
  }
  return false;
}

}  // namespace

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
    std::string path, word;
    if (e.get_exit_code() != 0 && FindUnknownCommand(app, argc, argv, path, word)) {
      std::fprintf(stderr, "berth: unknown command \"%s\" for \"%s\"\nRun '%s --help' for the commands.\n",
                   word.c_str(), path.c_str(), path.c_str());
      return 2;
    }
    return app.exit(e);
  }
  return berth::cmd::ExitCode();
}
